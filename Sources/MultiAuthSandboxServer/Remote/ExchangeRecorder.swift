import Foundation
import MultiAuth
import MultiAuthLocking

/// Records the exchanges between a test's sandbox and the backends (in-process, or a server
/// behind ``ForwardingBackend``) so two runs can be compared byte for byte (Docs/Emulator.md,
/// "Proving the server equivalent"). Test support (`package`); thread-safe.
package final class ExchangeRecorder: Sendable {
    /// One request and its answer, as text: request line, header fields, body, status, the
    /// answer's header fields and body. Header names are lower-cased and sorted; the fields
    /// that frame a message on one connection (`content-length`, `connection`, `keep-alive`,
    /// `transfer-encoding`, `date`) and the server's `x-multiauth-order` are left out: the
    /// server writes them, the in-process transport has none.
    package struct Exchange: Sendable, Hashable {
        /// `METHOD host/path?query`.
        package var request: String
        /// The request's header fields and body.
        package var requestContent: String
        /// `HTTP <status>`.
        package var status: Int
        /// The answer's header fields and body.
        package var responseContent: String

        /// The whole exchange as one text.
        package var text: String { "\(request)\n\(requestContent)\n→ \(status)\n\(responseContent)" }
    }

    private let list = Locked([Exchange]())

    /// Creates an empty recorder.
    package init() {}

    /// The exchanges in the order they finished.
    package var exchanges: [Exchange] { list.withLock { $0 } }

    /// Records one exchange with the backend of `host`.
    package func record(host: String, request: HTTPRequest, response: HTTPResponse) {
        let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
        let target =
            (components?.percentEncodedPath ?? request.url.path)
            + (components?.percentEncodedQuery.map { "?" + $0 } ?? "")
        let exchange = Exchange(
            request: "\(request.method.rawValue) \(host)\(target)",
            requestContent: Self.content(request.headers, request.body ?? Data()), status: response.status,
            responseContent: Self.content(response.headers, response.body))
        list.withLock { $0.append(exchange) }
    }

    private static let framing: Set<String> = [
        "content-length", "connection", "keep-alive", "transfer-encoding", "date", "x-multiauth-order",
    ]

    private static func content(_ headers: [String: String], _ body: Data) -> String {
        let fields = headers.map { ($0.key.lowercased(), $0.value) }.filter { !framing.contains($0.0) }.sorted {
            $0 < $1
        }
        let head = fields.map { "\($0.0): \($0.1)" }.joined(separator: "\n")
        let text = String(data: body, encoding: .utf8) ?? "base64:" + body.base64EncodedString()
        return head + "\n\n" + text
    }

    /// `exchanges` with the values a client makes up at random (UUIDs a provider puts in a
    /// request: trace ids, tracking ids, forged states) replaced by `<client-uuid-N>`, numbered
    /// by first appearance. A UUID a backend sent first stays as it is, wherever it appears
    /// afterwards, so the backend's own (seeded) values are compared exactly.
    package static func normalized(_ exchanges: [Exchange]) -> [Exchange] {
        var client: [String: String] = [:]
        var server: Set<String> = []
        func replace(_ text: String, inRequest: Bool) -> String {
            var result = ""
            var rest = Substring(text)
            while let range = rest.range(of: uuidPattern, options: .regularExpression) {
                result += rest[..<range.lowerBound]
                let value = String(rest[range]).lowercased()
                if let placeholder = client[value] {
                    result += placeholder
                } else if inRequest && !server.contains(value) {
                    let placeholder = "<client-uuid-\(client.count + 1)>"
                    client[value] = placeholder
                    result += placeholder
                } else {
                    server.insert(value)
                    result += rest[range]
                }
                rest = rest[range.upperBound...]
            }
            return result + rest
        }
        return exchanges.map { exchange in
            var copy = exchange
            copy.request = replace(exchange.request, inRequest: true)
            copy.requestContent = replace(exchange.requestContent, inRequest: true)
            copy.responseContent = replace(exchange.responseContent, inRequest: false)
            return copy
        }
    }

    private static let uuidPattern = "[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}"
}
