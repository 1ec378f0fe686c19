import Foundation

/// One segment of a request path: plain, or secret (a credential the protocol forces into
/// the URL, such as Truecaller's `phoneNumberDetail/{accessToken}`).
///
/// A string literal is a plain segment; it may contain `/` to add several at once.
/// Concurrency: a plain value. Docs/Security.md, "Redaction".
public struct HTTPPathSegment: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The text of a plain segment, or a secret one's as a ``Secret``: Swift's default mirror
    /// (`dump`, a debugger) then shows a secret segment as `<redacted>`.
    private enum Text: Sendable, Hashable {
        case plain(String)
        case secret(Secret)
    }

    private let text: Text

    /// The segment's text, unencoded.
    var value: String {
        switch text {
        case .plain(let value): value
        case .secret(let secret): secret.reveal()
        }
    }

    /// Whether the segment is redacted wherever the request is rendered.
    var isSecret: Bool { if case .secret = text { true } else { false } }

    /// A plain segment (or several, separated by `/`).
    public init(stringLiteral value: String) { self.init(value, isSecret: false) }

    private init(_ value: String, isSecret: Bool) {
        text = isSecret ? .secret(Secret(value)) : .plain(value)
    }

    /// A plain segment (or several, separated by `/`), printed as is.
    public static func plain(_ value: String) -> HTTPPathSegment { HTTPPathSegment(value, isSecret: false) }

    /// A secret segment: sent, but shown as `<redacted>` in every description, mirror and
    /// error built from the request.
    public static func secret(_ value: String) -> HTTPPathSegment { HTTPPathSegment(value, isSecret: true) }

    /// The plain text, or `<redacted>` for a secret segment.
    public var description: String { isSecret ? HTTPRequest.redactionMarker : value }
}
