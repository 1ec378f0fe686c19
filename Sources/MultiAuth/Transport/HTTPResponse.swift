import Foundation

/// An HTTP response: status, headers and the whole body.
///
/// Its `description`, `debugDescription` and mirror show the status, the header names and the
/// body size only: a body may carry tokens or codes and a `Set-Cookie` or `Authorization`
/// value is a credential (Docs/Security.md, "Redaction").
public struct HTTPResponse: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The status code, e.g. `200`, `422`.
    public var status: Int
    /// Header fields.
    public var headers: [String: String]
    /// The body bytes.
    public var body: Data

    /// Creates a response.
    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// Creates a JSON response with `Content-Type: application/json`.
    /// - Throws: `AuthError` `.malformedResponse` when `value` cannot be encoded.
    public static func json<Body: Encodable>(_ status: Int, _ value: Body, headers: [String: String] = [:]) throws
        -> HTTPResponse
    {
        var headers = headers
        headers["Content-Type"] = "application/json"
        do {
            return HTTPResponse(status: status, headers: headers, body: try JSONEncoder.multiAuth.encode(value))
        } catch {
            throw AuthError(.malformedResponse, "response body could not be encoded as JSON")
        }
    }

    /// Whether the status is 2xx.
    public var isSuccess: Bool { (200..<300).contains(status) }

    /// The value of header `name`, compared case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// Decodes the body as JSON, dates as Unix time in seconds (as ``json(_:_:headers:)`` writes
    /// them) or ISO 8601 strings.
    /// - Throws: `AuthError` `.malformedResponse` (with `provider`) when the body is not `T`.
    public func decodeJSON<T: Decodable>(_ type: T.Type = T.self, provider: AuthProviderID? = nil) throws -> T {
        do { return try JSONDecoder.multiAuth.decode(T.self, from: body) } catch {
            throw AuthError(.malformedResponse, "HTTP \(status) body is not the expected JSON", provider: provider)
        }
    }

    /// The `Retry-After` header in seconds (RFC 9110 §10.2.3, delay-seconds form), if present.
    public var retryAfter: Duration? {
        header("Retry-After").flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }.map(WireNumber.wait(seconds:))
    }

    /// `HTTP <status> (<n> bytes)`; the body is never printed.
    public var description: String { "HTTP \(status) (\(body.count) bytes)" }

    /// ``description`` plus the header names (never their values).
    public var debugDescription: String {
        "HTTPResponse(\(description), headers: [\(headers.keys.sorted().joined(separator: ", "))])"
    }

    /// A mirror with the status, header names and body size: no header value, cookie or body.
    public var customMirror: Mirror {
        Mirror(
            self, children: ["status": status, "headerNames": headers.keys.sorted(), "bodyBytes": body.count],
            displayStyle: .struct)
    }
}
