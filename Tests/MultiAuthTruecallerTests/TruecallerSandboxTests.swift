import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthSandbox
import Testing

@testable import MultiAuthTruecaller

/// The adapter driven through `AuthClient` against the emulated backend in a `Sandbox`.
@Suite(.timeLimit(.minutes(10)))
struct TruecallerSandboxTests {
    let sandbox = Sandbox(seed: 7)
    let backend: TruecallerBackend
    let configuration = TruecallerConfiguration(
        appKey: "sandbox-key", appLink: URL(string: "https://app.example.com/tc")!,
        baseURL: URL(string: "https://\(TruecallerBackend.defaultHost)")!, deviceID: "device-A")
    let phone = try! PhoneNumber("+91 98765 43210")

    init() throws {
        backend = try TruecallerBackend(acceptedAppKeys: ["sandbox-key"])
        sandbox.register(backend, host: TruecallerBackend.defaultHost)
    }

    func client(_ configuration: TruecallerConfiguration? = nil) throws -> AuthClient {
        try sandbox.makeClient(providers: [TruecallerProvider(configuration: configuration ?? self.configuration)])
    }

    func states(_ events: AuthEventStream) async -> [String] {
        var states: [String] = []
        for await event in events {
            if case .verificationStateChanged(let state) = event.kind { states.append(state) }
            if case .signedIn = event.kind { break }
        }
        return states
    }

    @Test func fullOTPFlowWithTheCodeFromTheInboxThenVerifiedBeforeOnTheSameInstallation() async throws {
        let client = try client()
        let events = client.authStates()
        let challenge = try #require(try await client.signIn(with: .truecaller, .phone(phone)).challenge)
        #expect(challenge.expiresAt == sandbox.clock.wallNow.addingTimeInterval(300))
        let message = try #require(sandbox.inbox.latest(for: "+919876543210", channel: .sms))
        let code = try #require(message.code)
        #expect(code.count == 6)
        let session = try #require(
            try await client.submit(
                ChallengeAnswer(code: code, name: try PersonName(firstName: "Asha", lastName: "Rao")), for: challenge
            ).session)
        #expect(await states(events) == ["otpInitiated", "otpReceived", "verificationComplete"])
        #expect(session.user.name?.fullName == "Asha Rao")
        #expect(session.user.phone == phone)

        // Server side: the access token proves the number.
        let accessToken = try #require(session.credentials.accessToken).reveal()
        let detail = try await TruecallerTokenVerifier(
            credential: .appKey("sandbox-key"), baseURL: URL(string: "https://\(TruecallerBackend.defaultHost)")!,
            transport: sandbox.transport
        ).verify(accessToken: accessToken)
        #expect(detail.e164 == "+919876543210")
        #expect(detail.countryCode == "IN")

        // Same installation again: verifiedBefore, no new code.
        let fresh = try self.client()
        let again = try await fresh.signIn(with: .truecaller, .phone(phone))
        #expect(again.session?.user.name?.fullName == "Asha Rao")
        #expect(sandbox.inbox.messages(for: "+919876543210").count == 1)

        // Another installation gets a code.
        var other = configuration
        other.deviceID = "device-B"
        let third = try await self.client(other).signIn(with: .truecaller, .phone(phone))
        #expect(third.challenge != nil)
        #expect(sandbox.inbox.messages(for: "+919876543210").count == 2)
    }

    @Test func ttlExpiryOnTheManualClockIsLocalThenTheServerAgrees() async throws {
        let client = try client()
        let challenge = try #require(try await client.signIn(with: .truecaller, .phone(phone)).challenge)
        let code = try #require(sandbox.inbox.latest(for: "+919876543210")?.code)
        sandbox.clock.advance(by: .seconds(300))
        let before = sandbox.requestCount
        let error = await #expect(throws: AuthError.self) {
            _ = try await client.submit(
                ChallengeAnswer(code: code, name: try PersonName(firstName: "Asha")), for: challenge)
        }
        #expect(error?.code == .expired)
        #expect(sandbox.requestCount == before)
        // The provider alone (no AuthClient guard) refuses it too, without a request.
        let provider = TruecallerProvider(configuration: configuration)
        await #expect(throws: AuthError.self) {
            _ = try await provider.respond(
                to: challenge, with: ChallengeAnswer(code: code, name: try PersonName(firstName: "Asha")),
                context: sandbox.authContext())
        }
        #expect(sandbox.requestCount == before)
        // A challenge whose local clock is behind still meets the server's expiry: code 4002.
        var stale = challenge
        stale.expiresAt = nil
        let serverError = await #expect(throws: AuthError.self) {
            _ = try await provider.respond(
                to: stale, with: ChallengeAnswer(code: code, name: try PersonName(firstName: "Asha")),
                context: sandbox.authContext())
        }
        #expect(serverError?.code == .expired)
        #expect(serverError?.providerCode == "4002")
    }

    @Test func wrongCodesCountDownThenTheAttemptLimitIsRateLimitedWithRetryAfter() async throws {
        let client = try client()
        let challenge = try #require(try await client.signIn(with: .truecaller, .phone(phone)).challenge)
        let code = try #require(sandbox.inbox.latest(for: "+919876543210")?.code)
        let wrong = code == "000000" ? "111111" : "000000"
        let name = try PersonName(firstName: "Asha")
        for remaining in [4, 3, 2, 1] {
            let error = await #expect(throws: AuthError.self) {
                _ = try await client.submit(ChallengeAnswer(code: wrong, name: name), for: challenge)
            }
            #expect(error?.code == .invalidCode)
            #expect(error?.attemptsRemaining == remaining)
        }
        let limit = await #expect(throws: AuthError.self) {
            _ = try await client.submit(ChallengeAnswer(code: wrong, name: name), for: challenge)
        }
        #expect(limit?.code == .rateLimited)
        #expect(limit?.retryAfter == .seconds(300))
        #expect(limit?.providerCode == "4290")
        // The number stays locked for a new start until the lockout passes.
        let locked = await #expect(throws: AuthError.self) {
            _ = try await client.signIn(with: .truecaller, .phone(phone))
        }
        #expect(locked?.code == .rateLimited)
        sandbox.clock.advance(by: .seconds(300))
        #expect(try await client.signIn(with: .truecaller, .phone(phone)).challenge != nil)
    }

    @Test func oneTapProfilesFromTheSandboxKeyVerifyAndRotationIsPickedUp() async throws {
        let provider = TruecallerProvider(configuration: configuration)
        let context = sandbox.authContext()
        func response(_ nonce: String) throws -> TruecallerProfileResponse {
            let signed = try backend.oneTapResponse(
                e164: "+919876543210", countryCode: "IN", firstName: "Asha", lastName: "Rao", requestNonce: nonce,
                requestTime: sandbox.clock.wallNow)
            return TruecallerProfileResponse(
                payload: signed.payload.reveal(), signature: signed.signature.reveal(),
                signatureAlgorithm: signed.signatureAlgorithm, requestNonce: signed.requestNonce.reveal())
        }
        let session = try await provider.signIn(
            with: try response("nonce-1"), expectedNonce: "nonce-1", context: context)
        #expect(session.user.phone == phone)
        try backend.rotateSigningKey()
        _ = try await provider.signIn(with: try response("nonce-2"), expectedNonce: "nonce-2", context: context)
        #expect(sandbox.requestCount(pathPrefix: "/v1/key") == 2)
        let mismatch = await #expect(throws: AuthError.self) {
            _ = try await provider.signIn(with: try response("nonce-3"), expectedNonce: "nonce-4", context: context)
        }
        #expect(mismatch?.providerCode == "16")
    }

    @Test func aWrongAppKeyIsInvalidPartnerCredentials() async throws {
        var wrong = configuration
        wrong.appKey = "other"
        let error = await #expect(throws: AuthError.self) {
            _ = try await client(wrong).signIn(with: .truecaller, .phone(phone))
        }
        #expect(error?.code == .configuration)
        #expect(error?.providerCode == "404")
    }

    @Test func serverErrorsAndDroppedConnectionsAreRetryable() async throws {
        let client = try client()
        sandbox.faults.add(.jsonStatus(503), host: TruecallerBackend.defaultHost, pathPrefix: "/v1/otp", repeat: .once)
        sandbox.faults.add(.dropConnection, host: TruecallerBackend.defaultHost, pathPrefix: "/v1/otp", repeat: .once)
        let error = await #expect(throws: AuthError.self) {
            _ = try await client.signIn(with: .truecaller, .phone(phone))
        }
        #expect(error?.code == .providerUnavailable)
        let dropped = await #expect(throws: AuthError.self) {
            _ = try await client.signIn(with: .truecaller, .phone(phone))
        }
        #expect(dropped?.code == .network)
        #expect(try await client.signIn(with: .truecaller, .phone(phone)).challenge != nil)
    }
}
