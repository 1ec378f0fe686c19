import Foundation
import MultiAuth

/// A scripted transport: answers each request with the next canned response and records the
/// requests it saw.
final class StubTransport: HTTPTransport, @unchecked Sendable {
    private let lock = NSLock()
    private var responses: [HTTPResponse]
    private(set) var requests: [HTTPRequest] = []

    init(_ responses: [HTTPResponse]) { self.responses = responses }

    var sent: [HTTPRequest] {
        lock.lock()
        defer { lock.unlock() }
        return requests
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let response = next(request) else { throw AuthError(.network, "stub: no response left") }
        return response
    }

    private func next(_ request: HTTPRequest) -> HTTPResponse? {
        lock.lock()
        defer { lock.unlock() }
        requests.append(request)
        return responses.isEmpty ? nil : responses.removeFirst()
    }

    static func json(_ status: Int, _ text: String, headers: [String: String] = [:]) -> HTTPResponse {
        var headers = headers
        headers["Content-Type"] = "application/json"
        return HTTPResponse(status: status, headers: headers, body: Data(text.utf8))
    }
}
