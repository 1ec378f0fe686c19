import Foundation
import MultiAuth

/// A response the server writes: status, header fields and the whole body (RFC 9112 §4, §6).
///
/// ``bytes(keepAlive:headRequest:)`` frames it with `Content-Length` (never chunked: every body
/// is complete before it is written) and adds `Connection: close` when the connection ends.
/// Header fields keep the order they were given in; an emulated backend's fields are sorted by
/// name first, so the bytes are the same for the same answer.
package struct ServerResponse: Sendable {
    /// The status code.
    package var status: Int
    /// The header fields, in writing order.
    package var headers: [(name: String, value: String)]
    /// The body bytes.
    package var body: Data

    /// Creates a response.
    package init(status: Int, headers: [(name: String, value: String)] = [], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// An emulated backend's answer, its header fields sorted by name. Framing fields it may
    /// carry (`Content-Length`, `Transfer-Encoding`, `Connection`) are the server's to write.
    package init(_ response: HTTPResponse) {
        let framing: Set<String> = ["content-length", "transfer-encoding", "connection", "keep-alive"]
        self.init(
            status: response.status,
            headers: response.headers.filter { !framing.contains($0.key.lowercased()) }.sorted { $0.key < $1.key }.map {
                (name: $0.key, value: $0.value)
            },
            body: response.body)
    }

    /// A JSON response with `Content-Type: application/json`.
    package static func json(_ status: Int, _ body: Data, headers: [(name: String, value: String)] = []) -> Self {
        ServerResponse(
            status: status, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")] + headers,
            body: body)
    }

    /// Not a response: the connection is closed without an answer (a dropped-connection fault).
    package static let drop = ServerResponse(status: 0)

    /// Whether this is ``drop``.
    package var isDrop: Bool { status == 0 }

    /// The JSON error body `{"error": reason, "status": status}` every refusal of the server
    /// itself carries (the emulated backends answer in their providers' own shapes).
    package static func error(_ status: Int, _ reason: String, headers: [(name: String, value: String)] = []) -> Self {
        let body =
            (try? JSONSerialization.data(
                withJSONObject: ["error": reason, "status": status], options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data()
        return json(status, body, headers: headers)
    }

    /// The bytes on the wire: status line, header fields, `Content-Length`, `Connection: close`
    /// unless `keepAlive`, then the body (omitted for a `HEAD` request, RFC 9110 §9.3.2).
    package func bytes(keepAlive: Bool, headRequest: Bool = false) -> [UInt8] {
        var head = "HTTP/1.1 \(status) \(Self.reason(for: status))\r\n"
        for (name, value) in headers where !name.contains(where: { $0 == "\r" || $0 == "\n" }) {
            head += "\(name): \(value.filter { $0 != "\r" && $0 != "\n" })\r\n"
        }
        let bodyless = (100..<200).contains(status) || status == 204 || status == 304
        if !bodyless { head += "Content-Length: \(body.count)\r\n" }
        head += keepAlive ? "" : "Connection: close\r\n"
        head += "\r\n"
        var bytes = Array(head.utf8)
        if !bodyless && !headRequest { bytes += body }
        return bytes
    }

    /// The reason phrase of `status` (RFC 9110 §15), `"Status"` for one not listed.
    package static func reason(for status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 410: "Gone"
        case 411: "Length Required"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        default: "Status"
        }
    }
}
