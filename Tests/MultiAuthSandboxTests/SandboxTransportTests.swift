import Foundation
import MultiAuth
import MultiAuthSandbox
import Testing

@Suite(.timeLimit(.minutes(10)))
struct SandboxTransportTests {
    @Test func routesByHostAndPassesBytes() async throws {
        let sandbox = Sandbox.echo()
        let request = try HTTPRequest.json(
            .post, URL(string: "https://ECHO.sandbox.test/otp/start?x=1")!, body: ["identity": "a@b.co"])
        let response = try await sandbox.transport.send(request)
        #expect(response.status == 200)
        #expect(response.header("x-method") == "POST")
        #expect(response.header("X-Host") == "echo.sandbox.test")
        #expect(try response.decodeJSON([String: String].self) == ["identity": "a@b.co"])
        #expect(sandbox.requestLog.map(\.description) == ["#1 POST echo.sandbox.test/otp/start → 200"])
        #expect(sandbox.requestCount == 1)
        #expect(sandbox.requestCount(host: "echo.sandbox.test", pathPrefix: "/otp") == 1)
        #expect(sandbox.requestCount(pathPrefix: "/token") == 0)
    }

    /// A host without a backend is a set-up mistake (a production configuration, a typo), not a
    /// dropped connection: `.configuration`, naming the host and the registered ones.
    @Test func unknownHostIsAConfigurationErrorNamingTheHosts() async throws {
        let sandbox = Sandbox.echo()
        let error = await #expect(throws: AuthError.self) { try await sandbox.get("/", host: "nowhere.sandbox.test") }
        #expect(error?.code == .configuration)
        #expect(error?.message.contains("'nowhere.sandbox.test'") == true)
        #expect(error?.message.contains("registered hosts: echo.sandbox.test") == true)
        #expect(sandbox.requestLog.first?.outcome == .dropped)
        #expect(sandbox.requestCount == 1)
        let empty = Sandbox()
        let none = await #expect(throws: AuthError.self) {
            try await empty.transport.send(HTTPRequest(method: .get, url: URL(string: "https://api.example.com/")!))
        }
        #expect(none?.message.contains("registered hosts: none") == true)
    }

    /// A sandbox on an external time source reads server time from it and sleeps latency on it.
    @Test func externalTimeSourceDrivesBackendsAndLatency() async throws {
        let clock = ManualClock(start: Date(timeIntervalSince1970: 1_800_000_000))
        let sandbox = Sandbox(seed: 1, time: clock.timeSource)
        #expect(sandbox.context(for: "any.test").time.now == Date(timeIntervalSince1970: 1_800_000_000))
        #expect(sandbox.time.now == clock.wallNow)
        sandbox.clock.advance(by: .seconds(60))
        #expect(sandbox.time.now == Date(timeIntervalSince1970: 1_800_000_000))
    }

    @Test func backendErrorsBecome500AndNetworkErrorsDrop() async throws {
        let sandbox = Sandbox.echo()
        #expect(try await sandbox.get("/throw").status == 500)
        let error = await #expect(throws: AuthError.self) { try await sandbox.get("/drop") }
        #expect(error?.code == .network)
        #expect(sandbox.requestLog.map(\.outcome) == [.response(status: 500), .dropped])
    }

    @Test func cancelledCallerMakesNoRequest() async throws {
        let sandbox = Sandbox.echo()
        // Owned by this test; cancels itself before sending, awaited at once.
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await sandbox.get("/")
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(sandbox.requestCount == 0)
    }

    @Test func resetLogRestartsTheCount() async throws {
        let sandbox = Sandbox.echo()
        _ = try await sandbox.get("/a")
        _ = try await sandbox.get("/b")
        sandbox.resetLog()
        #expect(sandbox.requestCount == 0)
        _ = try await sandbox.get("/c")
        #expect(sandbox.requestLog.map(\.path) == ["/c"])
        #expect(sandbox.hosts == ["echo.sandbox.test"])
    }
}
