import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthSandboxRuntime
import MultiAuthServer
import Testing

/// Server-side TOTP verification on shared stores (Docs/Server.md, "Attempt limits"), on a `ManualClock`.
@Suite(.timeLimit(.minutes(10)))  // hang guard only
struct TOTPVerifierTests {
    let clock = ManualClock()
    let totp = try! TOTP(secret: Array("12345678901234567890".utf8))

    var now: Int64 { Int64(clock.wallNow.timeIntervalSince1970) }

    func fleet() -> FleetVerifiers { .inProcess(time: clock.timeSource) }

    @Test func aCodeIsAcceptedOnceAndItsStepIsRememberedForTheProtocolsTTL() async throws {
        let store = InMemoryReplayStore(time: clock.timeSource)
        let verifier = try TOTPVerifier(replayStore: store, attemptLimiter: nil, time: clock.timeSource)
        let code = try totp.code(at: now)
        let accepted = try await verifier.verify(code, for: totp, account: "alice")
        #expect(accepted.step == (try totp.timeStep(at: now)))
        #expect(accepted.attemptsRemaining == nil)
        let replay = await #expect(throws: AuthError.self) {
            _ = try await verifier.verify(code, for: totp, account: "alice")
        }
        #expect(replay?.code == .codeAlreadyUsed)
        // Another account's identical code is its own.
        _ = try await verifier.verify(code, for: totp, account: "bob")
        // (2 * window + 1) * period + skew = 3 * 30 s + 30 s.
        let key = try store.keyspace.key(TOTP.replayNamespace, "alice")
        #expect(store.remainingTTL(of: key) == .seconds(120))
        #expect(try totp.replayTTL(window: 2, skew: .seconds(5)) == .seconds(155))
        // The next step's code is accepted; a replay of the older one still is not.
        clock.advance(by: .seconds(30))
        _ = try await verifier.verify(try totp.code(at: now), for: totp, account: "alice")
        let older = await #expect(throws: AuthError.self) {
            _ = try await verifier.verify(code, for: totp, account: "alice")
        }
        #expect(older?.code == .codeAlreadyUsed)
    }

    @Test func concurrentSubmissionsOfOneCodeAcceptExactlyOne() async throws {
        let verifier = try fleet().totp(attemptLimit: .init(attempts: 1_000, window: .seconds(900)))
        for round in 0..<20 {
            let code = try totp.code(at: now)
            let totp = self.totp
            let outcomes = await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<32 {
                    group.addTask { (try? await verifier.verify(code, for: totp, account: "race")) != nil }
                }
                return await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
            }
            #expect(outcomes == 1, "round \(round)")
            clock.advance(by: .seconds(30))
        }
    }

    @Test func attemptsAreLimitedPerAccountAndAMalformedCodeCostsNone() async throws {
        let verifier = try fleet().totp()  // 5 per 15 minutes
        let malformed = await #expect(throws: AuthError.self) {
            _ = try await verifier.verify("12 34", for: totp, account: "carol")
        }
        #expect(malformed?.code == .invalidInput)
        #expect(malformed?.reason == .invalidCodeFormat)
        let wrong = try totp.code(at: now) == "000000" ? "111111" : "000000"
        for remaining in [4, 3, 2, 1, 0] {
            let error = await #expect(throws: AuthError.self) {
                _ = try await verifier.verify(wrong, for: totp, account: "carol")
            }
            #expect(error?.code == .invalidCode)
            #expect(error?.attemptsRemaining == remaining)
        }
        // Over the limit: refused before the code is compared, even the right one.
        let limited = await #expect(throws: AuthError.self) {
            _ = try await verifier.verify(try totp.code(at: now), for: totp, account: "carol")
        }
        #expect(limited?.code == .rateLimited)
        #expect(limited?.retryAfter == .seconds(900))
        // Another account is not affected; after the window the right code is accepted.
        _ = try await verifier.verify(try totp.code(at: now), for: totp, account: "dave")
        clock.advance(by: .seconds(900))
        let accepted = try await verifier.verify(try totp.code(at: now), for: totp, account: "carol")
        #expect(accepted.attemptsRemaining == 4)
    }

    @Test func anUnreachableStoreRefusesWithTheRetryableErrorAndBurnsNothing() async throws {
        let inner = InMemoryReplayStore(time: clock.timeSource)
        let outage = OutageStore(inner: inner, limiter: InMemoryAttemptLimiter(time: clock.timeSource))
        let verifier = try TOTPVerifier(replayStore: outage, attemptLimiter: outage, time: clock.timeSource)
        let code = try totp.code(at: now)
        for _ in 0..<3 {
            let error = await #expect(throws: AuthError.self) {
                _ = try await verifier.verify(code, for: totp, account: "erin")
            }
            #expect(error?.code == .storageUnavailable)
            #expect(error?.isRetryable == true)
            #expect(error?.retryAfter == .milliseconds(250))
            #expect((error?.underlying as? RedactedError)?.typeName.hasSuffix("StoreUnavailableError") == true)
        }
        // A wrong code during the outage is not called wrong either: the limiter could not count it.
        let wrong = await #expect(throws: AuthError.self) {
            _ = try await verifier.verify("000000", for: totp, account: "erin")
        }
        #expect(wrong?.code == .storageUnavailable)
        outage.heal()
        _ = try await verifier.verify(code, for: totp, account: "erin")
        let replay = await #expect(throws: AuthError.self) {
            _ = try await verifier.verify(code, for: totp, account: "erin")
        }
        #expect(replay?.code == .codeAlreadyUsed)
    }

    @Test func theInProcessFallbackIsAnExplicitBoundedOptIn() async throws {
        let store = InMemoryReplayStore(time: clock.timeSource)
        let down = OutageStore(inner: store, limiter: InMemoryAttemptLimiter(time: clock.timeSource))
        // Without the fallback a dead limiter refuses.
        let strict = try TOTPVerifier(replayStore: store, attemptLimiter: down, time: clock.timeSource)
        let refused = await #expect(throws: AuthError.self) {
            _ = try await strict.verify(try totp.code(at: now), for: totp, account: "frank")
        }
        #expect(refused?.code == .storageUnavailable)
        // With it, a fleet of 2 allows 5 / 2 = 2 attempts per server during the outage.
        let fallback = FallbackAttemptLimiter(
            primary: down, fallback: InMemoryAttemptLimiter(time: clock.timeSource, capacity: 1), fleetSize: 2)
        let lenient = try TOTPVerifier(replayStore: store, attemptLimiter: fallback, time: clock.timeSource)
        let wrong = try totp.code(at: now) == "000000" ? "111111" : "000000"
        let first = await #expect(throws: AuthError.self) {
            _ = try await lenient.verify(wrong, for: totp, account: "frank")
        }
        #expect(first?.code == .invalidCode)
        #expect(first?.attemptsRemaining == 1)
        _ = try await lenient.verify(try totp.code(at: now), for: totp, account: "frank")
        let third = await #expect(throws: AuthError.self) {
            _ = try await lenient.verify(wrong, for: totp, account: "frank")
        }
        #expect(third?.code == .rateLimited)
        // The fallback is bounded: capacity 1 means a second account is refused, not counted.
        let full = await #expect(throws: AuthError.self) {
            _ = try await lenient.verify(wrong, for: totp, account: "gina")
        }
        #expect(full?.code == .storageUnavailable)
        #expect(full?.message.contains("capacityExhausted") == true)
    }

    @Test func configurationErrorsAreTypedBeforeAnyStoreCall() throws {
        let store = InMemoryReplayStore(time: clock.timeSource)
        #expect(throws: AuthError.self) {
            _ = try TOTPVerifier(replayStore: store, attemptLimiter: nil, window: 11, time: clock.timeSource)
        }
        #expect(throws: AuthError.self) {
            _ = try TOTPVerifier(
                replayStore: store, attemptLimiter: nil, attemptLimit: .init(attempts: 0, window: .seconds(1)),
                time: clock.timeSource)
        }
        #expect(throws: CryptoError.invalidParameter("window")) { _ = try totp.replayTTL(window: -1) }
    }
}
