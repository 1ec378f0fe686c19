import Foundation

/// An HTTP request: method, absolute URL, headers and an optional body.
///
/// Its `description` (also what `String(reflecting:)` shows) and mirror show the method, host
/// and the ``redactedPath`` only, the mirror also the header names and the body size: query
/// strings, header values and bodies may carry codes or tokens and are never printed, and
/// neither is a path segment that is marked secret (see
/// ``init(method:base:path:headers:body:timeout:)``) or looks like a credential. Every error a
/// transport builds from a request uses these renderings (Docs/Security.md, "Redaction").
public struct HTTPRequest: Sendable, CustomStringConvertible, CustomReflectable {
    /// The method.
    public var method: HTTPMethod
    /// The absolute URL, query included.
    public var url: URL
    /// Header fields; names are compared case-insensitively by ``header(_:)``.
    public var headers: [String: String]
    /// The body bytes, if any.
    public var body: Data?
    /// The time limit for the whole exchange; `nil` uses the transport's default.
    public var timeout: Duration?
    /// Path segments that carry a credential, redacted wherever the request is rendered.
    var secretPathSegments: Set<String> = []

    /// Creates a request.
    public init(
        method: HTTPMethod, url: URL, headers: [String: String] = [:], body: Data? = nil, timeout: Duration? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }

    /// Creates a request whose body is `value` encoded as JSON, with `Content-Type: application/json`.
    /// - Throws: `AuthError` `.invalidInput` when `value` cannot be encoded.
    public static func json<Body: Encodable>(
        _ method: HTTPMethod, _ url: URL, body value: Body, headers: [String: String] = [:]
    ) throws -> HTTPRequest {
        let data: Data
        do { data = try JSONEncoder.multiAuth.encode(value) } catch {
            throw AuthError(.invalidInput, "request body could not be encoded as JSON")
        }
        var headers = headers
        headers["Content-Type"] = "application/json"
        headers["Accept"] = headers["Accept"] ?? "application/json"
        return HTTPRequest(method: method, url: url, headers: headers, body: data)
    }

    /// The value of header `name`, compared case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// Decodes the body as JSON, dates as Unix time in seconds (as ``json(_:_:body:headers:)``
    /// writes them) or ISO 8601 strings.
    /// - Throws: `AuthError` `.invalidInput` when the body is missing or not `T`.
    public func decodeJSON<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        guard let body else { throw AuthError(.invalidInput, "request has no body") }
        do { return try JSONDecoder.multiAuth.decode(T.self, from: body) } catch {
            throw AuthError(.invalidInput, "request body is not the expected JSON")
        }
    }

    /// `METHOD host/path` with the ``redactedPath``, without query, headers or body.
    public var description: String { "\(method.rawValue) \(url.host ?? "")\(redactedPath)" }
    /// A mirror with method, host, redacted path, header names and body size: no query,
    /// header value, body or secret path segment.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "method": method.rawValue, "host": url.host ?? "", "path": redactedPath,
                "headerNames": headers.keys.sorted(),
                "bodyBytes": body?.count ?? 0,
            ], displayStyle: .struct)
    }
}
