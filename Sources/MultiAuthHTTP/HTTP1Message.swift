import Foundation
import MultiAuth

/// The plain HTTP/1.1 pieces the cellular transport needs, kept free of any socket API so that
/// every platform (Linux included) builds and tests them: the request head of a `GET`
/// (RFC 9112 §3, §3.2 `Host`), an incremental response parser (status line, header fields,
/// a body framed by `Content-Length`, `chunked` transfer coding or the connection's close,
/// RFC 9112 §4–§7) and the redirect rule (RFC 9110 §15.4: 301, 302, 303, 307, 308 with a
/// `Location` resolved against the request URL).
///
/// Limits (a carrier answer is small): header section 64 KiB, body 1 MiB. Larger input is
/// `AuthError(.network)`, never a crash.
package enum HTTP1Message {
    /// The longest header section accepted, in bytes.
    package static let maximumHeaderBytes = 64 * 1024
    /// The longest body accepted, in bytes.
    package static let maximumBodyBytes = 1024 * 1024

    /// The bytes of a `GET` request for `url` with `Host`, the given header fields and
    /// `Connection: close` (one exchange per connection).
    /// - Throws: `AuthError` `.invalidInput` when the URL has no host or is not `http`/`https`,
    ///   or a header name or value contains CR, LF or (in a name) a colon.
    package static func getRequest(for url: URL, headers: [String: String] = [:]) throws -> Data {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty
        else {
            throw AuthError(.invalidInput, "the cellular request needs an http or https URL with a host")
        }
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        var target = components?.percentEncodedPath ?? ""
        if target.isEmpty { target = "/" }
        if let query = components?.percentEncodedQuery { target += "?" + query }
        var hostField = host.contains(":") ? "[\(host)]" : host
        if let port = url.port, port != (scheme == "https" ? 443 : 80) { hostField += ":\(port)" }
        var lines = ["GET \(target) HTTP/1.1", "Host: \(hostField)"]
        for name in headers.keys.sorted() {
            let value = headers[name] ?? ""
            let bad = { (text: String) in text.contains("\r") || text.contains("\n") }
            guard !name.isEmpty, !bad(name), !bad(value), !name.contains(":") else {
                throw AuthError(.invalidInput, "a header field of the cellular request is malformed")
            }
            let lower = name.lowercased()
            if lower == "host" || lower == "connection" || lower == "content-length" { continue }
            lines.append("\(name): \(value)")
        }
        lines.append("Connection: close")
        return Data((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }

    /// The URL a redirect response points to, or `nil` when `response` is not a redirect
    /// (301, 302, 303, 307, 308) or has no usable `Location`. A relative `Location` is resolved
    /// against `requestURL`; only `http` and `https` targets are followed.
    package static func redirectTarget(of response: HTTPResponse, requestURL: URL) -> URL? {
        guard [301, 302, 303, 307, 308].contains(response.status),
            let location = response.header("Location")?.trimmingCharacters(in: .whitespaces), !location.isEmpty,
            let target = URL(string: location, relativeTo: requestURL)?.absoluteURL,
            let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https", target.host != nil
        else { return nil }
        return target
    }

    /// An incremental response parser: feed bytes as they arrive with ``append(_:)``, then ask
    /// ``response(connectionClosed:)``.
    package struct Parser: Sendable {
        private var buffer = Data()

        /// Creates an empty parser.
        package init() {}

        /// Adds received bytes.
        /// - Throws: `AuthError` `.network` when the input grows past the limits.
        package mutating func append(_ bytes: Data) throws {
            buffer.append(bytes)
            guard buffer.count <= maximumHeaderBytes + maximumBodyBytes + 4096 else {
                throw AuthError(.network, "the cellular response is too large")
            }
        }

        /// The complete response, or `nil` while more bytes are needed.
        /// - Parameter connectionClosed: Whether the peer closed the connection (ends a body
        ///   that has neither `Content-Length` nor `chunked` framing).
        /// - Throws: `AuthError` `.network` for a malformed status line or header section, a
        ///   bad chunk size, a body cut short by the close, or input past the limits.
        package func response(connectionClosed: Bool) throws -> HTTPResponse? {
            let separator = Data("\r\n\r\n".utf8)
            guard let end = buffer.range(of: separator) else {
                if buffer.count > maximumHeaderBytes || connectionClosed {
                    throw AuthError(.network, "the cellular response has no complete header section")
                }
                return nil
            }
            guard end.lowerBound <= maximumHeaderBytes,
                let head = String(data: buffer[buffer.startIndex..<end.lowerBound], encoding: .utf8)
                    ?? String(data: buffer[buffer.startIndex..<end.lowerBound], encoding: .isoLatin1)
            else {
                throw AuthError(.network, "the cellular response header section is not readable")
            }
            let lines = head.components(separatedBy: "\r\n")
            let status = try Self.status(of: lines[0])
            var headers: [String: String] = [:]
            for line in lines.dropFirst() where !line.isEmpty {
                guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else {
                    throw AuthError(.network, "the cellular response has a malformed header field")
                }
                let name = String(line[..<colon])
                let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                if let existing = headers.first(where: { $0.key.caseInsensitiveCompare(name) == .orderedSame })?.key {
                    headers[existing] = headers[existing]! + ", " + value
                } else {
                    headers[name] = value
                }
            }
            let probe = HTTPResponse(status: status, headers: headers)
            let rest = Data(buffer[end.upperBound...])
            // 1xx, 204 and 304 have no body (RFC 9112 §6.3).
            if (100..<200).contains(status) || status == 204 || status == 304 {
                return HTTPResponse(status: status, headers: headers)
            }
            if let coding = probe.header("Transfer-Encoding"), coding.lowercased().contains("chunked") {
                guard let body = try Self.dechunk(rest, connectionClosed: connectionClosed) else { return nil }
                return HTTPResponse(status: status, headers: headers, body: body)
            }
            if let lengthText = probe.header("Content-Length") {
                guard let length = Int(lengthText.trimmingCharacters(in: .whitespaces)), length >= 0,
                    length <= maximumBodyBytes
                else {
                    throw AuthError(.network, "the cellular response has a bad Content-Length")
                }
                if rest.count >= length {
                    return HTTPResponse(status: status, headers: headers, body: Data(rest.prefix(length)))
                }
                if connectionClosed { throw AuthError(.network, "the cellular response body was cut short") }
                return nil
            }
            guard connectionClosed else { return nil }
            guard rest.count <= maximumBodyBytes else {
                throw AuthError(.network, "the cellular response is too large")
            }
            return HTTPResponse(status: status, headers: headers, body: rest)
        }

        /// The status code of `HTTP/1.x SSS reason`.
        private static func status(of line: String) throws -> Int {
            let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), parts[1].count == 3,
                let code = Int(parts[1]), (100...599).contains(code)
            else {
                throw AuthError(.network, "the cellular response has a malformed status line")
            }
            return code
        }

        /// The body of a `chunked` message, or `nil` while incomplete (RFC 9112 §7.1).
        private static func dechunk(_ data: Data, connectionClosed: Bool) throws -> Data? {
            var body = Data()
            var index = data.startIndex
            let crlf = Data("\r\n".utf8)
            while true {
                guard let lineEnd = data.range(of: crlf, in: index..<data.endIndex) else {
                    if connectionClosed { throw AuthError(.network, "the cellular response body was cut short") }
                    return nil
                }
                let sizeText = String(decoding: data[index..<lineEnd.lowerBound], as: UTF8.self)
                let sizeField = sizeText.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
                guard let size = Int(sizeField.trimmingCharacters(in: .whitespaces), radix: 16), size >= 0 else {
                    throw AuthError(.network, "the cellular response has a bad chunk size")
                }
                if size == 0 { return body }
                guard body.count + size <= maximumBodyBytes else {
                    throw AuthError(.network, "the cellular response is too large")
                }
                let chunkStart = lineEnd.upperBound
                guard data.distance(from: chunkStart, to: data.endIndex) >= size + 2 else {
                    if connectionClosed { throw AuthError(.network, "the cellular response body was cut short") }
                    return nil
                }
                let chunkEnd = data.index(chunkStart, offsetBy: size)
                body.append(data[chunkStart..<chunkEnd])
                guard data[chunkEnd..<data.index(chunkEnd, offsetBy: 2)] == crlf else {
                    throw AuthError(.network, "the cellular response has a malformed chunk")
                }
                index = data.index(chunkEnd, offsetBy: 2)
            }
        }
    }
}
