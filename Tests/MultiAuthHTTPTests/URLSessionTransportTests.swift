import Foundation
import MultiAuth
import MultiAuthHTTP
import MultiAuthSandbox
import Testing

/// Runs the real `URLSessionTransport` against a sandbox through `SandboxURLProtocol`.
@Suite(.timeLimit(.minutes(10)))
struct URLSessionTransportTests {
    /// Answers `POST /echo` with the request body and method, and `/status/<n>` with status n.
    struct URLEchoBackend: SandboxBackend {
        func handle(_ request: HTTPRequest, context: SandboxContext) async throws -> HTTPResponse {
            if request.url.path.hasPrefix("/status/"), let status = Int(request.url.lastPathComponent) {
                return try .json(status, ["code": "forced_\(status)"])
            }
            return HTTPResponse(
                status: 200,
                headers: [
                    "Content-Type": "application/json", "X-Method": request.method.rawValue,
                    "X-Sandbox-Header-Seen": request.header(SandboxURLProtocol.sandboxHeader) == nil ? "no" : "yes",
                ],
                body: request.body ?? Data())
        }
    }

    let sandbox: Sandbox
    let transport: URLSessionTransport
    let host: String

    init() {
        host = "echo-\(UUID().uuidString.lowercased()).sandbox.test"
        sandbox = Sandbox(seed: 1)
        sandbox.register(URLEchoBackend(), host: host)
        // A hang guard, not a deadline: the sandbox answers in-process, however busy the machine.
        transport = URLSessionTransport(session: sandbox.makeURLSession(), defaultTimeout: .seconds(600))
    }

    @Test func postBodyRoundTripsAsBytes() async throws {
        let request = try HTTPRequest.json(
            .post, URL(string: "https://\(host)/echo")!, body: ["identity": "+15555550100"])
        let response = try await transport.send(request)
        #expect(response.status == 200)
        #expect(response.header("X-Method") == "POST")
        #expect(response.header("X-Sandbox-Header-Seen") == "no")
        #expect(try response.decodeJSON([String: String].self) == ["identity": "+15555550100"])
        #expect(sandbox.requestLog.map(\.description) == ["#1 POST \(host)/echo → 200"])
    }

    @Test(arguments: [400, 401, 404, 422, 429, 500, 503])
    func everyStatusPassesThrough(status: Int) async throws {
        let response = try await transport.send(
            HTTPRequest(method: .get, url: URL(string: "https://\(host)/status/\(status)")!))
        #expect(response.status == status)
        #expect(try response.decodeJSON([String: String].self) == ["code": "forced_\(status)"])
    }

    @Test func forcedStatusFaultPassesThrough() async throws {
        sandbox.faults.add(.jsonStatus(503, ["code": "maintenance"]), host: host, repeat: .once)
        let response = try await transport.send(HTTPRequest(method: .get, url: URL(string: "https://\(host)/echo")!))
        #expect(response.status == 503)
        #expect(try response.decodeJSON([String: String].self) == ["code": "maintenance"])
    }

    @Test func droppedConnectionIsNetworkErrorAndPostIsNotRetried() async throws {
        sandbox.faults.add(.dropConnection, host: host, pathPrefix: "/otp", repeat: .once)
        let request = try HTTPRequest.json(.post, URL(string: "https://\(host)/otp/start")!, body: ["identity": "x"])
        let error = await #expect(throws: AuthError.self) { try await transport.send(request) }
        #expect(error?.code == .network)
        #expect(sandbox.requestCount(host: host, pathPrefix: "/otp/start") == 1)
        // The one-shot fault is used up; a retry (the caller's decision) now succeeds.
        #expect(try await transport.send(request).status == 200)
        #expect(sandbox.requestCount == 2)
    }

    @Test func unknownHostIsNetworkError() async throws {
        let error = await #expect(throws: AuthError.self) {
            try await transport.send(HTTPRequest(method: .get, url: URL(string: "https://nowhere.sandbox.test/")!))
        }
        #expect(error?.code == .network)
    }

    @Test func headerRoutingLetsTwoSandboxesShareAHost() async throws {
        let shared = "shared.sandbox.test"
        let first = Sandbox(seed: 1)
        let second = Sandbox(seed: 2)
        first.register(URLEchoBackend(), host: shared)
        second.register(URLEchoBackend(), host: shared)
        let transports = [first, second].map { sandbox in
            URLSessionTransport(
                session: sandbox.makeURLSession(), defaultTimeout: .seconds(600),
                defaultHeaders: sandbox.urlProtocolHeaders)
        }
        let request = HTTPRequest(method: .get, url: URL(string: "https://\(shared)/echo")!)
        #expect(try await transports[0].send(request).status == 200)
        #expect(try await transports[1].send(request).status == 200)
        #expect(try await transports[1].send(request).header("X-Sandbox-Header-Seen") == "no")
        #expect(first.requestCount == 1)
        #expect(second.requestCount == 2)
    }
}
