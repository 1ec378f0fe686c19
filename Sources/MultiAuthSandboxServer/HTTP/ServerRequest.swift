import Foundation

/// One HTTP/1.1 request as the server read it off a connection (RFC 9112 §3–§7): the request
/// line, the header fields in arrival order and the body after any chunked decoding.
///
/// Renderings show the method and the path only: a query, a header value or a body may carry a
/// code or a token (Docs/Security.md, "Redaction").
package struct ServerRequest: Sendable, CustomStringConvertible {
    /// The method token, e.g. `GET`, case-sensitive (RFC 9110 §9.1).
    package var method: String
    /// The request target as sent: origin-form `/path?query`, or the path and query of an
    /// absolute-form target (RFC 9112 §3.2).
    package var target: String
    /// The host of an absolute-form target, if the target had one.
    package var absoluteHost: String?
    /// `1` for HTTP/1.1, `0` for HTTP/1.0.
    package var minorVersion: Int
    /// The header fields in arrival order; names as sent.
    package var headers: [(name: String, value: String)]
    /// The body bytes (empty without a body).
    package var body: Data

    /// The percent-encoded path of ``target`` (before any `?`).
    package var path: String {
        String(target[..<(target.firstIndex(of: "?") ?? target.endIndex)])
    }

    /// The percent-encoded query of ``target`` (after the first `?`), if any.
    package var query: String? {
        target.firstIndex(of: "?").map { String(target[target.index(after: $0)...]) }
    }

    /// The value of the field `name` (case-insensitive); repeated fields joined with `", "`.
    package func header(_ name: String) -> String? {
        let values = headers.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }

    /// Whether the connection stays open after the response (RFC 9112 §9.3): HTTP/1.1 unless
    /// `Connection: close`, HTTP/1.0 only with `Connection: keep-alive`.
    package var keepAlive: Bool {
        let tokens = Set(
            (header("Connection") ?? "").split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces).lowercased()
            })
        return minorVersion >= 1 ? !tokens.contains("close") : tokens.contains("keep-alive")
    }

    /// The decoded query items (`+` is not a space: a query of this server is percent-encoded).
    package var queryItems: [String: String] {
        guard let query, let components = URLComponents(string: "/?" + query) else { return [:] }
        var items: [String: String] = [:]
        for item in components.queryItems ?? [] where items[item.name] == nil { items[item.name] = item.value ?? "" }
        return items
    }

    /// `METHOD /path` without the query.
    package var description: String { "\(method) \(path)" }
}
