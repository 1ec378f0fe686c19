import Foundation

/// What ``AuthError/underlying`` keeps of a cause that is not itself an ``AuthError``: its type
/// name, its `NSError` domain and code, and for a transport failure the URL's host and a
/// redacted path — never the query, a secret or credential-like path segment, or any other
/// `userInfo` entry (Docs/Security.md, "Redaction").
///
/// A `URLError`'s `userInfo` holds the request URL (`NSErrorFailingURLStringKey`,
/// `NSErrorFailingURLKey`), with a token in its path or query where a protocol puts one there;
/// an arbitrary error's `description` may hold anything. ``AuthError`` therefore stores every
/// non-`AuthError` cause through ``init(redacting:)``, whoever builds the error.
///
/// Concurrency: an immutable value; `Sendable`.
public struct RedactedError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The Swift type name of the original error, e.g. `URLError`.
    public let typeName: String
    /// The original error's `NSError` domain, e.g. `NSURLErrorDomain`.
    public let domain: String
    /// The original error's `NSError` code, e.g. `-1001` for a `URLError` timeout.
    public let code: Int
    /// The host of the URL the error concerns, when it names one.
    public let host: String?
    /// That URL's path with every secret or credential-like segment (and every segment holding
    /// 4 or more digits, which may be a code) replaced by `<redacted>`; never the query.
    public let redactedPath: String?

    /// Keeps only the type name, domain, code, host and redacted path of `error`.
    /// - Parameter error: any error; a `RedactedError` is kept as it is.
    public init(redacting error: any Error) {
        if let redacted = error as? RedactedError {
            self = redacted
            return
        }
        let url = Self.failingURL(of: error)
        self.init(
            redacting: error, host: url?.host, redactedPath: url.map { Self.redactedPath($0.path) })
    }

    /// Keeps only the type name, domain and code of `error`, with the host and redacted path of
    /// the request it failed (a transport knows which segments are secret:
    /// ``HTTPRequest/redactedPath``).
    package init(redacting error: any Error, host: String?, redactedPath: String?) {
        let bridged = error as NSError
        typeName = String(describing: type(of: error))
        domain = bridged.domain
        code = bridged.code
        self.host = host
        self.redactedPath = redactedPath.map(Self.redactedPath)
    }

    /// `URLError(-1001, host: api.example.com, path: /v4/session/<redacted>)`.
    public var description: String {
        var parts = ["\(code)"]
        if let host { parts.append("host: \(host)") }
        if let redactedPath { parts.append("path: \(redactedPath)") }
        return "\(typeName)(\(parts.joined(separator: ", ")))"
    }

    /// The URL an error concerns: a `URLError`'s `failingURL`, else the `NSError` `userInfo`'s
    /// failing-URL entries.
    private static func failingURL(of error: any Error) -> URL? {
        if let error = error as? URLError, let url = error.failingURL { return url }
        let info = (error as NSError).userInfo
        if let url = info[NSURLErrorFailingURLErrorKey] as? URL { return url }
        if let text = info["NSErrorFailingURLStringKey"] as? String { return URL(string: text) }
        return nil
    }

    /// `path` as ``HTTPRequest/redactedPath(_:)`` shows it, with segments holding 4 or more
    /// digits redacted too (a one-time code in a path is not credential-like by length).
    private static func redactedPath(_ path: String) -> String {
        HTTPRequest.redactedPath(path).split(separator: "/", omittingEmptySubsequences: false)
            .map { segment in
                segment.filter(\.isASCIIDigit).count >= 4 ? HTTPRequest.redactionMarker : String(segment)
            }
            .joined(separator: "/")
    }
}
