import Foundation

/// Sends one HTTP request and returns the response: the only way a provider reaches the
/// network.
///
/// `URLSessionTransport` (module `MultiAuthHTTP`) is the real one; `MultiAuthSandbox`
/// provides an in-process transport that serves emulated provider backends.
///
/// Requirements for conformers:
/// - Return every HTTP status (4xx, 5xx included) as an ``HTTPResponse``; throw only when no
///   response arrived.
/// - Throw `AuthError` `.network` (connection dropped, timeout, DNS) or `CancellationError`.
/// - Never retry a POST on your own: a resent OTP request is a user-visible side effect.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and waits for the whole response body.
    /// - Throws: `AuthError` `.network`, or `CancellationError`.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}

/// An HTTP request method, e.g. `GET`, `POST`.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral {
    /// The method token, upper case.
    public let rawValue: String
    /// Creates a method from its token.
    public init(rawValue: String) { self.rawValue = rawValue.uppercased() }
    /// Creates a method from a literal.
    public init(stringLiteral value: String) { self.init(rawValue: value) }
    /// `GET`
    public static let get: HTTPMethod = "GET"
    /// `POST`
    public static let post: HTTPMethod = "POST"
    /// `PUT`
    public static let put: HTTPMethod = "PUT"
    /// `DELETE`
    public static let delete: HTTPMethod = "DELETE"
}

/// An HTTP request: method, absolute URL, headers and an optional body.
///
/// Its `description`, `debugDescription` and mirror show the method, host and the
/// ``redactedPath`` only: query strings, header values and bodies may carry codes or tokens
/// and are never printed, and neither is a path segment that is marked secret (see
/// ``init(method:base:path:headers:body:timeout:)``) or looks like a credential. Every error a
/// transport builds from a request uses these renderings (Docs/Security.md, "Redaction").
public struct HTTPRequest: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
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
    public init(method: HTTPMethod, url: URL, headers: [String: String] = [:], body: Data? = nil, timeout: Duration? = nil) {
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

    /// Decodes the body as JSON with `JSONDecoder.multiAuth` (dates as ISO 8601 strings, as
    /// ``json(_:_:body:headers:)`` writes them).
    /// - Throws: `AuthError` `.invalidInput` when the body is missing or not `T`.
    public func decodeJSON<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        guard let body else { throw AuthError(.invalidInput, "request has no body") }
        do { return try JSONDecoder.multiAuth.decode(T.self, from: body) } catch {
            throw AuthError(.invalidInput, "request body is not the expected JSON")
        }
    }

    /// `METHOD host/path` with the ``redactedPath``, without query, headers or body.
    public var description: String { "\(method.rawValue) \(url.host ?? "")\(redactedPath)" }
    /// Same as ``description``, plus the body size.
    public var debugDescription: String { "HTTPRequest(\(description), \(body?.count ?? 0) body bytes)" }
    /// A mirror with method, host, redacted path, header names and body size: no query,
    /// header value, body or secret path segment.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "method": method.rawValue, "host": url.host ?? "", "path": redactedPath, "headerNames": headers.keys.sorted(),
                "bodyBytes": body?.count ?? 0,
            ], displayStyle: .struct)
    }
}

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
    public static func json<Body: Encodable>(_ status: Int, _ value: Body, headers: [String: String] = [:]) throws -> HTTPResponse {
        var headers = headers
        headers["Content-Type"] = "application/json"
        do { return HTTPResponse(status: status, headers: headers, body: try JSONEncoder.multiAuth.encode(value)) } catch {
            throw AuthError(.malformedResponse, "response body could not be encoded as JSON")
        }
    }

    /// Whether the status is 2xx.
    public var isSuccess: Bool { (200..<300).contains(status) }

    /// The value of header `name`, compared case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// Decodes the body as JSON with `JSONDecoder.multiAuth` (dates as ISO 8601 strings, as
    /// ``json(_:_:headers:)`` writes them).
    /// - Throws: `AuthError` `.malformedResponse` (with `provider`) when the body is not `T`.
    public func decodeJSON<T: Decodable>(_ type: T.Type = T.self, provider: AuthProviderID? = nil) throws -> T {
        do { return try JSONDecoder.multiAuth.decode(T.self, from: body) } catch {
            throw AuthError(.malformedResponse, "HTTP \(status) body is not the expected JSON", provider: provider)
        }
    }

    /// The `Retry-After` header in seconds (RFC 9110 §10.2.3, delay-seconds form), if present.
    public var retryAfter: Duration? {
        header("Retry-After").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }.map { .seconds($0) }
    }

    /// `HTTP <status> (<n> bytes)`; the body is never printed.
    public var description: String { "HTTP \(status) (\(body.count) bytes)" }

    /// ``description`` plus the header names (never their values).
    public var debugDescription: String {
        "HTTPResponse(\(description), headers: [\(headers.keys.sorted().joined(separator: ", "))])"
    }

    /// A mirror with the status, header names and body size: no header value, cookie or body.
    public var customMirror: Mirror {
        Mirror(self, children: ["status": status, "headerNames": headers.keys.sorted(), "bodyBytes": body.count], displayStyle: .struct)
    }
}

extension JSONEncoder {
    /// The encoder MultiAuth uses for request bodies and stores: sorted keys, unescaped slashes,
    /// dates as Unix time in seconds with millisecond precision (a JSON number such as
    /// `1700000000.123`).
    ///
    /// A date on a whole millisecond (what providers put in sessions) round-trips exactly:
    /// `decode(encode(date)) == date`. Finer fractions are rounded to the millisecond.
    public static var multiAuth: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(date.unixMilliseconds / 1000)
        }
        return encoder
    }
}

extension Date {
    /// Unix time in whole milliseconds, as a `Double` (exact below 2^53 ms).
    var unixMilliseconds: Double { (timeIntervalSince1970 * 1000).rounded() }

    /// This date rounded to the nearest millisecond: the precision sessions are stored with.
    /// `JSONEncoder.multiAuth` round-trips such a date exactly.
    public var roundedToMilliseconds: Date { Date(timeIntervalSince1970: unixMilliseconds / 1000) }
}

extension JSONDecoder {
    /// The decoder matching ``Foundation/JSONEncoder/multiAuth``: dates as Unix time in
    /// seconds, or as ISO 8601 strings (with or without fractional seconds).
    public static var multiAuth: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            if let seconds = try? container.decode(Double.self) { return Date(timeIntervalSince1970: seconds) }
            let text = try container.decode(String.self)
            if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) { return date }
            if let date = try? Date(text, strategy: .iso8601) { return date }
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a Unix time or ISO 8601 date")
        }
        return decoder
    }
}
