import Foundation
import MultiAuthCrypto
import MultiAuthDynamic
import MultiAuthSandbox
import Testing

@testable import MultiAuth

/// End-to-end flows of `DynamicProvider` through `AuthClient` against the emulated
/// `DynamicBackend` (Docs/Providers/Dynamic.md), all on a `ManualClock`.
@Suite(.timeLimit(.minutes(10)))
struct DynamicFlowTests {
    @Test func emailHappyPath() async throws {
        let f = try DynamicWorld()
        let step = try await f.client.signIn(with: .dynamic, try .email("  User.Name+OTP@Example.COM "))
        let challenge = try #require(step.challenge)
        #expect(challenge.kind == .oneTimeCode(length: 6, channel: .email, linkAlsoSent: false))
        #expect(challenge.providerState[revealing: "verificationUUID"]?.count == 36)
        // Docs/Cases.md, B33: the code went to the identity key, plus tag kept.
        let message = try #require(f.sandbox.inbox.latest(for: "user.name+otp@example.com", channel: .email))
        let code = try #require(message.code)
        let session = try #require(
            try await f.client.submit(
                ChallengeAnswer(code: " \(code.prefix(3)) \(code.dropFirst(3))\n"), for: challenge
            ).session)
        #expect(session.user.email?.identityKey == "user.name+otp@example.com")
        #expect(session.user.identities.map(\.kind) == ["email"])
        #expect(session.user.identities.allSatisfy { $0.verified })
        #expect(session.credentials.scopes.contains("user:basic"))
        #expect(session.credentials.expiresAt == f.sandbox.clock.wallNow.addingTimeInterval(7200))
        #expect(try await f.store.load(for: .dynamic) == session)
        #expect(f.sandbox.requestCount(pathPrefix: f.path("emailVerifications/create")) == 1)
        #expect(f.sandbox.requestCount(pathPrefix: f.path("emailVerifications/signin")) == 1)
    }

    @Test func smsHappyPath() async throws {
        let f = try DynamicWorld()
        let step = try await f.client.signIn(with: .dynamic, try .phone("020 7946 0958", defaultRegion: "GB"))
        let challenge = try #require(step.challenge)
        #expect(challenge.kind == .oneTimeCode(length: 6, channel: .sms, linkAlsoSent: false))
        #expect(challenge.destination == "+44 •••••• 0958")
        let code = try #require(f.sandbox.inbox.latest(for: "+442079460958", channel: .sms)?.code)
        let session = try #require(try await f.client.submit(ChallengeAnswer(code: code), for: challenge).session)
        #expect(session.user.phone?.e164 == "+442079460958")
        #expect(session.user.identities.map(\.kind) == ["phone"])
        #expect(session.user.identities.first?.value == session.user.attributes["lastVerifiedCredentialId"])
        var dumped = ""
        dump(session, to: &dumped)
        #expect(!dumped.contains("2079460958"))
        #expect(f.sandbox.requestCount(pathPrefix: f.path("smsVerifications/signin")) == 1)
    }

    @Test func wrongCodeThenRightCode() async throws {
        let f = try DynamicWorld()
        let challenge = try #require(try await f.client.signIn(with: .dynamic, try .email("a@example.com")).challenge)
        let code = try #require(f.sandbox.inbox.latest(for: "a@example.com")?.code)
        let wrong = code == "000000" ? "111111" : "000000"
        let error = await #expect(throws: AuthError.self) {
            try await f.client.submit(ChallengeAnswer(code: wrong), for: challenge)
        }
        #expect(error?.code == .invalidCode)
        #expect(error?.providerCode == "wrong_email_verification_token")
        #expect(error?.attemptsRemaining == 2)
        #expect(try await f.store.load(for: .dynamic) == nil)
        let pending = try #require(await f.client.pendingChallenge(for: .dynamic))
        #expect(pending.attemptsRemaining == 2)
        let step = try await f.client.submit(ChallengeAnswer(code: code), for: pending)
        #expect(step.session != nil)
    }

    @Test func threeWrongCodesBurnTheVerification() async throws {
        let f = try DynamicWorld()
        let challenge = try #require(try await f.client.signIn(with: .dynamic, try .phone("+14155550100")).challenge)
        let code = try #require(f.sandbox.inbox.latest(for: "+14155550100", channel: .sms)?.code)
        let wrong = code == "000000" ? "111111" : "000000"
        var codes: [AuthError.Code?] = []
        for _ in 0..<3 {
            let error = await #expect(throws: AuthError.self) {
                try await f.provider.respond(
                    to: challenge, with: ChallengeAnswer(code: wrong), context: f.sandbox.authContext())
            }
            codes.append(error?.code)
        }
        #expect(codes == [.invalidCode, .invalidCode, .attemptsExhausted])
        let late = await #expect(throws: AuthError.self) {
            try await f.provider.respond(
                to: challenge, with: ChallengeAnswer(code: code), context: f.sandbox.authContext())
        }
        #expect(late?.code == .attemptsExhausted)
        #expect(late?.providerCode == "too_many_sms_verification_attempts")
    }

    @Test func expiredChallengeIsRefusedLocallyAndByTheServer() async throws {
        let f = try DynamicWorld()
        let challenge = try #require(
            try await f.client.signIn(with: .dynamic, try .email("late@example.com")).challenge)
        let code = try #require(f.sandbox.inbox.latest(for: "late@example.com")?.code)
        f.sandbox.clock.advance(by: .seconds(601))
        let before = f.sandbox.requestCount
        let local = await #expect(throws: AuthError.self) {
            try await f.client.submit(ChallengeAnswer(code: code), for: challenge)
        }
        #expect(local?.code == .expired)
        #expect(f.sandbox.requestCount == before)
        // Without a local expiry the server's answer is mapped: 422 email_verification_expired.
        var unbounded = challenge
        unbounded.expiresAt = nil
        let remote = await #expect(throws: AuthError.self) {
            try await f.client.submit(ChallengeAnswer(code: code), for: unbounded)
        }
        #expect(remote?.code == .expired)
        #expect(remote?.providerCode == "email_verification_expired")
    }

    @Test func sendLimitGivesRetryAfter() async throws {
        let f = try DynamicWorld()
        var last: Challenge?
        for _ in 0..<3 {
            let step = try await f.client.signIn(with: .dynamic, try .email("busy@example.com"))
            last = step.challenge
            f.sandbox.clock.advance(by: .seconds(60))
        }
        let error = await #expect(throws: AuthError.self) {
            try await f.client.signIn(with: .dynamic, try .email("busy@example.com"))
        }
        #expect(error?.code == .rateLimited)
        #expect(error?.isRetryable == true)
        #expect(error?.retryAfter == .seconds(420))
        // A retry counts against the same budget.
        let resend = await #expect(throws: AuthError.self) { try await f.client.resend(try #require(last)) }
        #expect(resend?.code == .rateLimited)
        f.sandbox.clock.advance(by: .seconds(420))
        let step = try await f.client.signIn(with: .dynamic, try .email("busy@example.com"))
        #expect(step.challenge != nil)
        #expect(f.sandbox.inbox.messages(for: "busy@example.com").count == 4)
    }

    @Test func resendUsesTheReturnedVerificationUUID() async throws {
        let f = try DynamicWorld()
        let challenge = try #require(
            try await f.client.signIn(with: .dynamic, try .email("again@example.com")).challenge)
        let updated = try await f.client.resend(challenge)
        #expect(
            updated.providerState[revealing: "verificationUUID"]
                != challenge.providerState[revealing: "verificationUUID"])
        let code = try #require(f.sandbox.inbox.latest(for: "again@example.com")?.code)
        #expect(try await f.client.submit(ChallengeAnswer(code: code), for: updated).session != nil)
    }

    @Test func refreshCoalescesConcurrentCallers() async throws {
        let f = try DynamicWorld()
        let session = try await f.signIn()
        f.sandbox.clock.advance(by: .seconds(7200 - 30))
        let slow = f.sandbox.faults.add(
            .latency(.seconds(1)), host: DynamicBackend.defaultHost, pathPrefix: f.path("refresh"))
        let client = f.client
        async let results = withThrowingTaskGroup(of: AuthSession?.self) { group in
            for _ in 0..<5 { group.addTask { try await client.validSession(for: .dynamic) } }
            var all: [AuthSession?] = []
            for try await result in group { all.append(result) }
            return all
        }
        await f.sandbox.clock.waitForSleepers(count: 1)
        while await client.refreshCallersInFlight < 5 { await Task.yield() }
        f.sandbox.clock.advance(by: .seconds(1))
        let refreshed = try await results
        f.sandbox.faults.remove(slow)
        #expect(f.sandbox.requestCount(pathPrefix: f.path("refresh")) == 1)
        let tokens = Set(refreshed.map { $0?.credentials.accessToken })
        #expect(tokens.count == 1)
        #expect(tokens.first != session.credentials.accessToken)
        let stored = try #require(try await f.store.load(for: .dynamic))
        #expect(stored.id == session.id)
        #expect(stored.credentials.accessToken == tokens.first!)
        #expect(stored.credentials.expiresAt == f.sandbox.clock.wallNow.addingTimeInterval(7200))
        // The retired token is refused: a second refresh with it would have failed.
        let replay = await #expect(throws: AuthError.self) {
            try await f.provider.refresh(session, context: f.sandbox.authContext())
        }
        #expect(replay?.code == .sessionExpired)
        #expect(replay?.providerCode == "401")
    }

    @Test func signOutRevokesAndIsIdempotent() async throws {
        let f = try DynamicWorld()
        let session = try await f.signIn()
        #expect(f.backend.liveSessionCount == 1)
        let outcome = try await f.client.signOut(.dynamic)
        #expect(outcome.wasSignedIn)
        #expect(outcome.remoteError == nil)
        #expect(f.backend.liveSessionCount == 0)
        #expect(f.sandbox.requestCount(pathPrefix: f.path("revoke")) == 1)
        #expect(try await f.store.load(for: .dynamic) == nil)
        let again = try await f.client.signOut(.dynamic)
        #expect(!again.wasSignedIn)
        #expect(f.sandbox.requestCount(pathPrefix: f.path("revoke")) == 1)
        // Revoking an already revoked session directly is a success too (401 counts as done).
        try await f.provider.signOut(session, context: f.sandbox.authContext())
        // The revoked token no longer refreshes: the session ended on the server's side.
        let error = await #expect(throws: AuthError.self) {
            try await f.provider.refresh(session, context: f.sandbox.authContext())
        }
        #expect(error?.code == .sessionExpired)
    }

    @Test(arguments: [FaultAction.dropConnection, .jsonStatus(503, ["error": "down"])])
    func failingRevokeStillClearsLocally(fault: FaultAction) async throws {
        let f = try DynamicWorld()
        _ = try await f.signIn()
        f.sandbox.faults.add(fault, host: DynamicBackend.defaultHost, pathPrefix: f.path("revoke"))
        let outcome = try await f.client.signOut(.dynamic)
        #expect(outcome.wasSignedIn)
        #expect(outcome.remoteError?.code == (fault == .dropConnection ? .network : .providerUnavailable))
        #expect(try await f.store.load(for: .dynamic) == nil)
        #expect(f.backend.liveSessionCount == 1)
    }

    @Test func anMFAPendingSignInIsAFurtherChallengeNeverASession() async throws {
        let f = try DynamicWorld()
        f.backend.requireMFA(for: "mfa@example.com")
        let challenge = try #require(try await f.client.signIn(with: .dynamic, try .email("mfa@example.com")).challenge)
        let code = try #require(f.sandbox.inbox.latest(for: "mfa@example.com")?.code)
        let step = try await f.client.submit(ChallengeAnswer(code: code), for: challenge)
        let mfa = try #require(step.challenge)
        #expect(mfa.kind == .totp(digits: 6, enrollment: nil))
        #expect(mfa.flowID == challenge.flowID)
        #expect(mfa.providerState[revealing: "mfaBearer"] != nil)
        #expect(!String(describing: mfa).contains("eyJ"))
        #expect(try await f.store.load(for: .dynamic) == nil)
    }

    @Test func challengeResumesInAFreshClient() async throws {
        let f = try DynamicWorld()
        let challenge = try #require(try await f.client.signIn(with: .dynamic, try .phone("+91 98765 43210")).challenge)
        let saved = try JSONEncoder().encode(challenge)
        let revived = try JSONDecoder().decode(Challenge.self, from: saved)
        let fresh = try f.sandbox.makeClient(providers: [f.provider])
        let code = try #require(f.sandbox.inbox.latest(for: "+919876543210", channel: .sms)?.code)
        #expect(
            try await fresh.submit(ChallengeAnswer(code: code), for: revived).session?.user.phone?.e164
                == "+919876543210")
    }

    @Test func sessionExpiryFollowsTheClientClockUnderServerSkew() async throws {
        let f = try DynamicWorld()
        f.sandbox.faults.setServerClockOffset(.seconds(-900), host: DynamicBackend.defaultHost)
        let session = try await f.signIn()
        #expect(session.credentials.expiresAt == f.sandbox.clock.wallNow.addingTimeInterval(7200))
    }

    @Test func malformedCodeMakesNoRequest() async throws {
        let f = try DynamicWorld()
        let challenge = try #require(try await f.client.signIn(with: .dynamic, try .email("b@example.com")).challenge)
        let before = f.sandbox.requestCount
        for bad in ["12345", "12345a", "1234567"] {
            let error = await #expect(throws: AuthError.self) {
                try await f.client.submit(ChallengeAnswer(code: bad), for: challenge)
            }
            #expect(error?.reason == .invalidCodeFormat)
        }
        #expect(f.sandbox.requestCount == before)
    }
}
