import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthSandboxRuntime
import Testing

@testable import MultiAuthServer

/// The Redis client against fake servers that answer wrongly, close, stall or are not there:
/// every case is a `StoreUnavailableError` (the stores fail closed), never an answer. No real
/// Redis needed; the back-off runs on a `ManualClock`.
@Suite(.timeLimit(.minutes(10)))  // hang guard only
struct RedisClientTests {
    func client(port: Int, clock: ManualClock = ManualClock(), password: String? = nil) -> RedisClient {
        var configuration = RedisConfiguration(host: "127.0.0.1", port: port, password: password)
        // A stalled server is detected by this timeout; no test below waits for it but
        // `aStalledServerTimesOut`, which needs a real wait (a kernel poll) of 200 ms.
        configuration.commandTimeout = .seconds(5)
        return RedisClient(configuration: configuration, clock: clock)
    }

    func cause(_ body: () async throws -> Void) async -> StoreUnavailableError.Cause? {
        do {
            try await body()
            return nil
        } catch let error as StoreUnavailableError {
            return error.cause
        } catch {
            return StoreUnavailableError.Cause(rawValue: "other: \(error)")
        }
    }

    func key() throws -> StoreKey { try StoreKeyspace.default.key("test", "k") }

    @Test func unexpectedRepliesAreRefusedNotGuessed() async throws {
        let cases: [(String, StoreUnavailableError.Cause)] = [
            (":1\r\n", .malformedReply),  // SET NX answered with an integer
            ("$1\r\n1\r\n", .malformedReply),  // or a bulk string
            ("+OK\r\n+OK\r\n", .malformedReply),  // a reply nobody asked for
            ("-OOM command not allowed\r\n", .serverError),
            ("$100000\r\n", .malformedReply),  // past the bulk bound
            ("_\r\n", .malformedReply),  // a RESP3 null
            ("+OK", .connectionLost),  // closed mid-reply
        ]
        for (reply, expected) in cases {
            let server = try FakeRedisServer(reply: reply)
            defer { server.stop() }
            let store = RedisReplayStore(client: client(port: server.port))
            let got = await cause { _ = try await store.consumeOnce(key: try key(), ttl: .seconds(60)) }
            #expect(got == expected, "reply \(reply.debugDescription)")
        }
    }

    @Test func scriptRepliesAreChecked() async throws {
        for reply in [":2\r\n", ":-1\r\n", "+OK\r\n", "*2\r\n:1\r\n:1\r\n"] {
            let server = try FakeRedisServer(reply: reply)
            defer { server.stop() }
            let store = RedisReplayStore(client: client(port: server.port))
            let got = await cause { _ = try await store.advance(key: try key(), to: 1, ttl: .seconds(60)) }
            #expect(got == .malformedReply, "advance reply \(reply.debugDescription)")
        }
        for reply in [
            "*2\r\n:0\r\n:100\r\n", "*2\r\n:1\r\n:-5\r\n", "*1\r\n:1\r\n", ":1\r\n", "*2\r\n$1\r\n1\r\n:1\r\n",
        ] {
            let server = try FakeRedisServer(reply: reply)
            defer { server.stop() }
            let limiter = RedisAttemptLimiter(client: client(port: server.port))
            let got = await cause { _ = try await limiter.hit(key: try key(), limit: 3, window: .seconds(60)) }
            #expect(got == .malformedReply, "counter reply \(reply.debugDescription)")
        }
        // A retry-after longer than the window (another caller's window) is reported as the window.
        let server = try FakeRedisServer(reply: "*2\r\n:9\r\n:999999999\r\n")
        defer { server.stop() }
        let decision = try await RedisAttemptLimiter(client: client(port: server.port)).hit(
            key: try key(), limit: 3, window: .seconds(60))
        #expect(decision == AttemptDecision(allowed: false, remaining: 0, retryAfter: .seconds(60)))
    }

    @Test func aMissingScriptIsLoadedWithEVAL() async throws {
        // EVALSHA is answered NOSCRIPT; the EVAL on the same connection then succeeds.
        let second = try FakeRedisServer([
            .init(replies: ["-NOSCRIPT No matching script. Please use EVAL.\r\n", ":1\r\n"], close: false)
        ])
        defer { second.stop() }
        let store = RedisReplayStore(client: client(port: second.port))
        #expect(try await store.advance(key: try key(), to: 9, ttl: .seconds(60)))
        #expect(second.accepted == 1)
    }

    @Test func anUnreachableServerFailsFastDuringTheBackOff() async throws {
        let clock = ManualClock()
        let port = try FakeRedisServer.closedPort()
        let client = client(port: port, clock: clock)
        let store = RedisReplayStore(client: client)
        var first: StoreUnavailableError?
        do { _ = try await store.consumeOnce(key: try key(), ttl: .seconds(60)) } catch let error
            as StoreUnavailableError
        {
            first = error
        }
        #expect(first?.cause == .unreachable)
        let pause = try #require(first?.retryAfter)
        #expect(pause > .milliseconds(37) && pause <= .milliseconds(50))  // 50 ms less up to 25 % jitter
        // During the back-off: refused at once with the time left, no connection attempt.
        var during: StoreUnavailableError?
        do { _ = try await store.advance(key: try key(), to: 1, ttl: .seconds(60)) } catch let error
            as StoreUnavailableError
        {
            during = error
        }
        #expect(during?.cause == .unreachable)
        #expect(during?.message.contains("backing off") == true)
        #expect((during?.retryAfter ?? .zero) <= pause)
        // After it: another attempt, and a doubled pause.
        clock.advance(by: .milliseconds(51))
        var second: StoreUnavailableError?
        do { _ = try await store.consumeOnce(key: try key(), ttl: .seconds(60)) } catch let error
            as StoreUnavailableError
        {
            second = error
        }
        #expect(second?.message.contains("backing off") == false)
        #expect((second?.retryAfter ?? .zero) > .milliseconds(75))
        #expect(client.connectionsOpened == 0)
    }

    @Test func aWrongPasswordIsAuthenticationFailedAndNeverPrinted() async throws {
        let server = try FakeRedisServer(reply: "-WRONGPASS invalid username-password pair or user is disabled.\r\n")
        defer { server.stop() }
        let client = client(port: server.port, password: "hunter2-secret")
        var error: StoreUnavailableError?
        do { try await client.ping() } catch let failure as StoreUnavailableError { error = failure }
        #expect(error?.cause == .authenticationFailed)
        #expect(error?.message.contains("WRONGPASS") == true)
        #expect(!String(describing: error as Any).contains("hunter2"))
        #expect(!String(describing: client.configuration).contains("hunter2"))
    }

    @Test func aStalledServerTimesOut() async throws {
        // The fake reads the command and never answers; the client gives up after its timeout.
        // This is the one real wait in the suite (200 ms of kernel poll): a timeout cannot be
        // observed otherwise, and load can only make it later, never make the test fail.
        let server = try FakeRedisServer(reply: "", close: false)
        defer { server.stop() }
        var configuration = RedisConfiguration(host: "127.0.0.1", port: server.port)
        configuration.commandTimeout = .milliseconds(200)
        let store = RedisReplayStore(client: RedisClient(configuration: configuration))
        let got = await cause { _ = try await store.consumeOnce(key: try key(), ttl: .seconds(60)) }
        #expect(got == .timedOut)
    }

    @Test func aClosedClientRefuses() async throws {
        let port = try FakeRedisServer.closedPort()
        let client = client(port: port)
        client.close()
        let got = await cause { try await client.ping() }
        #expect(got == .closed)
    }
}

/// The pool's bounds: a full queue of waiting callers is refused at once, and a waiting caller
/// can be cancelled. A fake server holds the only connection (it never answers); the test
/// waits for the pool's state by yielding, and ends the held command by stopping the server.
@Suite(.timeLimit(.minutes(10)))  // hang guard only
struct RedisPoolTests {
    func heldClient(waiters: Int) throws -> (RedisClient, FakeRedisServer) {
        let server = try FakeRedisServer([.init(replies: [], close: false)])
        var configuration = RedisConfiguration(host: "127.0.0.1", port: server.port)
        configuration.poolSize = 1
        configuration.maximumWaiters = waiters
        configuration.commandTimeout = .seconds(600)  // ended by stopping the server, never waited for
        return (RedisClient(configuration: configuration), server)
    }

    @Test func aFullWaitingQueueIsOverloaded() async throws {
        let (client, server) = try heldClient(waiters: 0)
        let held = Task { try await client.ping() }
        while client.leasedConnections < 1 { await Task.yield() }
        var error: StoreUnavailableError?
        do { try await client.ping() } catch let failure as StoreUnavailableError { error = failure }
        #expect(error?.cause == .overloaded)
        server.stop()
        let outcome = await held.result
        #expect((try? outcome.get()) == nil)  // the held command failed when the server went away
    }

    @Test func aQueuedCallerWaitsOneTimeoutNotOnePerCallerAheadOfIt() async throws {
        // One connection, held by a server that never answers, and three callers queued
        // behind it. Their wait is bounded by their own `commandTimeout` (on the client's
        // clock): when it passes they fail with `timedOut` while the held command is still in
        // flight, and none of them goes on to open a connection and wait a timeout of its own.
        let server = try FakeRedisServer([.init(replies: [], close: false)])
        defer { server.stop() }
        var configuration = RedisConfiguration(host: "127.0.0.1", port: server.port)
        configuration.poolSize = 1
        configuration.maximumWaiters = 4
        configuration.commandTimeout = .seconds(600)  // on the manual clock; the socket never waits it out
        let clock = ManualClock()
        let client = RedisClient(configuration: configuration, clock: clock)
        let held = Task { try await client.ping() }
        while client.leasedConnections < 1 { await Task.yield() }
        let queued = (0..<3).map { _ in Task { try await client.ping() } }
        while client.waitingCallers < 3 { await Task.yield() }
        await clock.waitForSleepers(count: 3)
        clock.advance(by: .seconds(599))
        #expect(client.waitingCallers == 3)  // not before the timeout
        clock.advance(by: .seconds(1))
        for caller in queued {
            var error: StoreUnavailableError?
            do { try await caller.value } catch let failure as StoreUnavailableError { error = failure }
            #expect(error?.cause == .timedOut)
        }
        #expect(client.waitingCallers == 0)
        #expect(client.leasedConnections == 1)  // the held command is still in flight
        #expect(server.accepted == 1)
        server.stop()
        _ = await held.result
    }

    @Test func aWaitingCallerCanBeCancelled() async throws {
        let (client, server) = try heldClient(waiters: 4)
        defer { server.stop() }
        let held = Task { try await client.ping() }
        while client.leasedConnections < 1 { await Task.yield() }
        let waiting = Task { try await client.ping() }
        while client.waitingCallers < 1 { await Task.yield() }
        waiting.cancel()
        let result = await waiting.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(client.waitingCallers == 0)
        server.stop()
        _ = await held.result
    }
}
