import Foundation

extension HTTPRequest {
    /// What a redacted path segment (or secret) is printed as, in every rendering of the
    /// package's types: the same marker a ``Secret`` prints.
    package static let redactionMarker = Secret.redactionMarker

    /// Creates a request whose URL is `base` with `path` appended segment by segment
    /// (percent-encoded as needed), remembering which segments are secret so that every
    /// rendering of the request, and every error a transport builds from it, shows
    /// `<redacted>` in their place.
    ///
    /// Use it where a protocol forces a credential into the path; prefer a header or body
    /// wherever the protocol allows. Example: `HTTPRequest(method: .delete, base: base,
    /// path: ["v4/session", .secret(token)])`.
    /// - Parameters:
    ///   - method: the method.
    ///   - base: the scheme, host and any leading path.
    ///   - path: the segments to append, in order.
    ///   - headers: header fields.
    ///   - body: the body bytes, if any.
    ///   - timeout: the time limit; `nil` uses the transport's default.
    public init(
        method: HTTPMethod, base: URL, path: [HTTPPathSegment], headers: [String: String] = [:], body: Data? = nil,
        timeout: Duration? = nil
    ) {
        var url = base
        for segment in path { url = url.appending(path: segment.value) }
        self.init(method: method, url: url, headers: headers, body: body, timeout: timeout)
        for segment in path where segment.isSecret { markPathSegmentSecret(segment.value) }
    }

    /// Marks `segment` (unencoded, as it appears in `url.path`) as secret, for a request
    /// whose URL was built another way.
    public mutating func markPathSegmentSecret(_ segment: String) {
        if !segment.isEmpty { secretPathSegments.insert(segment) }
    }

    /// The URL path with every secret segment, and every segment that looks like a
    /// credential (24 characters or more, or 8 or more mixing letters and digits), replaced
    /// by `<redacted>`. This is the only form of the path that descriptions, mirrors and
    /// transport errors show (Docs/Security.md, "Redaction").
    public var redactedPath: String {
        var path = url.path
        for secret in secretPathSegments.sorted(by: { $0.count > $1.count }) {
            path = path.replacingOccurrences(of: secret, with: Self.redactionMarker)
        }
        return Self.redactedPath(path)
    }

    /// `path` with every segment that looks like a credential replaced by
    /// ``redactionMarker``, for code that has a path but no request (the sandbox's request log).
    package static func redactedPath(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false)
            .map { looksLikeCredential($0) ? redactionMarker : String($0) }
            .joined(separator: "/")
    }

    /// Whether a path segment looks like a token, key or identifier rather than a word: 24
    /// characters or more, or 8 or more that mix letters and digits (a UUID, a hex or base64
    /// token, a JWT). Words such as `phoneNumberDetail` or `openid-configuration` stay.
    package static func looksLikeCredential(_ segment: some StringProtocol) -> Bool {
        guard segment != redactionMarker else { return false }
        if segment.count >= 24 { return true }
        guard segment.count >= 8 else { return false }
        return segment.contains(where: \.isNumber) && segment.contains(where: \.isLetter)
    }
}
