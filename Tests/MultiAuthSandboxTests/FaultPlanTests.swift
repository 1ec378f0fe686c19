import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthSandbox
import Testing

@Suite(.timeLimit(.minutes(10)))
struct FaultPlanTests {
    @Test func latencyWaitsForTheManualClock() async throws {
        let sandbox = Sandbox.echo()
        sandbox.faults.add(.latency(.seconds(2)), host: "echo.sandbox.test", pathPrefix: "/slow")
        async let response = sandbox.get("/slow")
        await sandbox.clock.waitForSleepers(count: 1)
        #expect(sandbox.requestLog.first?.outcome == .pending)
        sandbox.clock.advance(by: .seconds(2))
        #expect(try await response.status == 200)
        #expect(sandbox.requestLog.first?.outcome == .response(status: 200))
        // Other paths are not delayed.
        #expect(try await sandbox.get("/fast").status == 200)
    }

    @Test func cancellingDuringLatencyNeverReachesTheBackend() async throws {
        let sandbox = Sandbox.echo()
        sandbox.faults.add(.latency(.seconds(30)))
        // Owned by this test; cancelled while it sleeps on the clock, awaited below.
        let task = Task { try await sandbox.get("/") }
        await sandbox.clock.waitForSleepers(count: 1)
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(sandbox.requestLog.map(\.outcome) == [.cancelled])
        #expect(sandbox.clock.sleeperCount == 0)
    }

    @Test func fireCountCountsFiringsAlsoAfterTheRuleIsUsedUp() async throws {
        let sandbox = Sandbox.echo()
        let once = sandbox.faults.add(.jsonStatus(503), pathPrefix: "/a", repeat: .once)
        let never = sandbox.faults.add(.dropConnection, pathPrefix: "/nowhere")
        let delivery = sandbox.faults.failDelivery(on: .sms, repeat: .times(2))
        #expect(try await sandbox.get("/a").status == 503)
        #expect(try await sandbox.get("/a").status == 200)
        #expect(sandbox.faults.deliveryFails(on: .sms, to: "+15555550100"))
        #expect(sandbox.faults.deliveryFails(on: .sms, to: "+15555550100"))
        #expect(!sandbox.faults.deliveryFails(on: .sms, to: "+15555550100"))
        #expect(sandbox.faults.fireCount(for: once) == 1)
        #expect(sandbox.faults.fireCount(for: never) == 0)
        #expect(sandbox.faults.fireCount(for: delivery) == 2)
        #expect(sandbox.faults.activeRuleCount == 1)
    }

    @Test func forcedStatusCarriesItsBody() async throws {
        let sandbox = Sandbox.echo()
        sandbox.faults.add(.jsonStatus(503, ["code": "maintenance"], headers: ["Retry-After": "7"]), pathPrefix: "/otp")
        let response = try await sandbox.get("/otp/start")
        #expect(response.status == 503)
        #expect(response.retryAfter == .seconds(7))
        #expect(try response.decodeJSON([String: String].self) == ["code": "maintenance"])
    }

    @Test func droppedConnectionThrowsNetwork() async throws {
        let sandbox = Sandbox.echo()
        sandbox.faults.add(.dropConnection, host: "echo.sandbox.test")
        let error = await #expect(throws: AuthError.self) { try await sandbox.get("/") }
        #expect(error?.code == .network)
        #expect(sandbox.requestLog.map(\.outcome) == [.dropped])
    }

    @Test(arguments: [(FaultRepeat.once, 1), (.times(3), 3), (.always, 5)])
    func repeatControlsHowOftenARuleFires(repeat: FaultRepeat, failures: Int) async throws {
        let sandbox = Sandbox.echo()
        sandbox.faults.add(.jsonStatus(500), repeat: `repeat`)
        var statuses: [Int] = []
        for _ in 0..<5 { statuses.append(try await sandbox.get("/").status) }
        #expect(statuses == Array(repeating: 500, count: failures) + Array(repeating: 200, count: 5 - failures))
    }

    @Test func rulesMatchHostAndPathPrefixAndCanBeRemoved() async throws {
        let sandbox = Sandbox.echo()
        sandbox.register(EchoBackend(), host: "other.sandbox.test")
        let rule = sandbox.faults.add(.jsonStatus(418), host: "echo.sandbox.test", pathPrefix: "/otp/")
        #expect(try await sandbox.get("/otp/verify").status == 418)
        #expect(try await sandbox.get("/otp").status == 200)
        #expect(try await sandbox.get("/otp/verify", host: "other.sandbox.test").status == 200)
        sandbox.faults.remove(rule)
        #expect(try await sandbox.get("/otp/verify").status == 200)
        #expect(sandbox.faults.activeRuleCount == 0)
    }

    @Test func rateLimitAnswers429WithRetryAfterUntilTheWindowSlides() async throws {
        let sandbox = Sandbox.echo()
        sandbox.faults.add(.rateLimit(limit: 2, window: .seconds(60)), pathPrefix: "/otp/start")
        #expect(try await sandbox.get("/otp/start").status == 200)
        sandbox.clock.advance(by: .seconds(10))
        #expect(try await sandbox.get("/otp/start").status == 200)
        let limited = try await sandbox.get("/otp/start")
        #expect(limited.status == 429)
        #expect(limited.retryAfter == .seconds(50))
        let body = try limited.decodeJSON(ReferenceProtocol.ErrorResponse.self)
        #expect(body.code == "rate_limited" && body.retryAfter == 50)
        #expect(try await sandbox.get("/otp/verify").status == 200)
        sandbox.clock.advance(by: .seconds(50))
        #expect(try await sandbox.get("/otp/start").status == 200)
        #expect(try await sandbox.get("/otp/start").status == 429)
    }

    @Test func serverClockOffsetShiftsBackendTimeOnly() async throws {
        let sandbox = Sandbox.echo()
        sandbox.faults.setServerClockOffset(.seconds(-90))
        let response = try await sandbox.get("/")
        let serverTime = try #require(response.header("X-Server-Time").flatMap(TimeInterval.init))
        #expect(serverTime == sandbox.clock.wallNow.timeIntervalSince1970 - 90)
        sandbox.faults.setServerClockOffset(.seconds(30), host: "echo.sandbox.test")
        #expect(sandbox.faults.serverClockOffset(for: "echo.sandbox.test") == .seconds(30))
        #expect(sandbox.faults.serverClockOffset(for: "other") == .seconds(-90))
    }

    @Test func randomFaultsAreDeterministicUnderASeed() async throws {
        func pattern(seed: UInt64) async throws -> [Int] {
            let sandbox = Sandbox.echo(seed: seed)
            sandbox.faults.add(.jsonStatus(503), probability: 0.3)
            var statuses: [Int] = []
            for _ in 0..<64 { statuses.append(try await sandbox.get("/").status) }
            return statuses
        }
        let first = try await pattern(seed: 42)
        #expect(try await pattern(seed: 42) == first)
        #expect(try await pattern(seed: 43) != first)
        let failures = first.filter { $0 == 503 }.count
        #expect(failures > 5 && failures < 40)
    }

    @Test func seededRandomIsReproducible() {
        let a = SandboxRandom(seed: 9)
        let b = SandboxRandom(seed: 9)
        let codes = (0..<5).map { _ in a.digits(6) }
        #expect(codes == (0..<5).map { _ in b.digits(6) })
        #expect(codes.allSatisfy { $0.count == 6 && $0.allSatisfy(\.isNumber) })
        #expect(a.hex(bytes: 4).count == 8)
        var generator = SeededRandomNumberGenerator(seed: 0)
        #expect(generator.next() == 0xE220_A839_7B1D_CDAF)
    }
}
