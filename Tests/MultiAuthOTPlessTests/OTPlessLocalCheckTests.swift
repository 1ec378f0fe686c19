import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthOTPless
import Testing

@Suite(.timeLimit(.minutes(10)))
struct OTPlessLocalCheckTests {
    @Test(arguments: ["5", "8", "0", "six", ""])
    func otpLengthOtherThanFourOrSixIsRefusedLocally(_ length: String) async throws {
        let world = try OTPlessWorld()
        let provider = try world.provider()
        let error = await #expect(throws: AuthError.self) {
            _ = try await provider.start(.phone(phone, options: ["otpLength": length]), context: world.context())
        }
        #expect(error?.code == .invalidInput)
        #expect(error?.providerCode == "7116")
        #expect(world.requestCount == 0)
    }

    /// Only the form of `expiry` is checked locally; no providerCode, because the server did
    /// not say so (its range is unknown).
    @Test(arguments: ["-5", "60.5", "soon", "0", "", "1e3", "99999999999999999999"])
    func anExpiryThatIsNotWholeSecondsIsRefusedLocally(_ expiry: String) async throws {
        let world = try OTPlessWorld()
        let provider = try world.provider()
        let error = await #expect(throws: AuthError.self) {
            _ = try await provider.start(.email(email, options: ["expiry": expiry]), context: world.context())
        }
        #expect(error?.code == .invalidInput)
        #expect(error?.providerCode == nil)
        #expect(world.requestCount == 0)
    }

    /// The 30…900 s range is a guess (Docs/Providers/OTPless.md, "Verified against"): an expiry
    /// outside it reaches the server, which decides. The sandbox keeps the guess and answers
    /// `7113`, the server's own code, so the refusal comes from the wire.
    @Test(arguments: ["29", "901"])
    func anExpiryOutsideTheGuessedRangeIsSentAndTheServerDecides(_ expiry: String) async throws {
        let world = try OTPlessWorld()
        let provider = try world.provider()
        let error = await #expect(throws: AuthError.self) {
            _ = try await provider.start(.email(email, options: ["expiry": expiry]), context: world.context())
        }
        #expect(error?.code == .invalidInput)
        #expect(error?.providerCode == "7113")
        let intent = try #require(world.requests(containing: "/transaction/intent/").first?.body)
        let body = try #require(try JSONDecoder().decode(JSONValue.self, from: intent).objectValue)
        #expect(body["expiry"] == .string(expiry))
    }

    @Test func aChannelTheMerchantDidNotEnableIsRefusedLocally() async throws {
        let world = try OTPlessWorld()
        let provider = try world.provider { $0.enabledChannels = [.sms, .email] }
        for request in [SignInRequest.phone(phone, channel: .whatsapp), .oauth(.google)] {
            let error = await #expect(throws: AuthError.self) {
                _ = try await provider.start(request, context: world.context())
            }
            #expect(error?.code == .configuration)
            #expect(error?.providerCode == "4003")
        }
        #expect(world.requestCount == 0)
    }

    @Test func aChannelMissingFromTheFetchedMerchantConfigIsRefusedBeforeTheIntent() async throws {
        let world = try OTPlessWorld(merchant: .init(phoneChannels: [.sms]))
        let provider = try world.provider()
        let error = await #expect(throws: AuthError.self) {
            _ = try await provider.start(.phone(phone, channel: .whatsapp), context: world.context())
        }
        #expect(error?.code == .configuration)
        #expect(error?.providerCode == "4003")
        #expect(world.requests(containing: "intent").isEmpty)
    }

    @Test func aChannelThatCannotReachTheIdentityIsUnsupported() async throws {
        let world = try OTPlessWorld()
        let provider = try world.provider()
        let error = await #expect(throws: AuthError.self) {
            _ = try await provider.start(.email(email, channel: .sms), context: world.context())
        }
        #expect(error?.code == .unsupported)
        #expect(world.requestCount == 0)
    }

    @Test func invalidIdentitiesNeverReachTheProvider() {
        #expect(throws: AuthError.self) { _ = try SignInRequest.phone("12345") }
        #expect(throws: AuthError.self) { _ = try SignInRequest.email("user@@example.com") }
    }

    @Test func fourDigitCodesAreRequestedAndExpected() async throws {
        let world = try OTPlessWorld()
        let provider = try world.provider()
        let challenge = try #require(
            try await provider.start(
                .phone(phone, options: ["otpLength": "4", "expiry": "60"]), context: world.context()
            ).challenge)
        #expect(challenge.expectedCodeLength == 4)
        #expect(challenge.expiresAt == world.clock.wallNow.addingTimeInterval(60))
        #expect(world.latest(phone.e164)?.code?.count == 4)
    }

    @Test func anExpiredChallengeIsRefusedWithoutANetworkCall() async throws {
        let world = try OTPlessWorld()
        let provider = try world.provider()
        let challenge = try #require(
            try await provider.start(.phone(phone, channel: .sms), context: world.context()).challenge)
        provider.stopAllPolling()
        world.clock.advance(by: .seconds(300))
        let before = world.requestCount
        let error = await #expect(throws: AuthError.self) {
            _ = try await provider.respond(
                to: challenge, with: ChallengeAnswer(code: "123456"), context: world.context())
        }
        #expect(error?.code == .expired)
        #expect(world.requestCount == before)
    }

    @Test func aBadAppIDIsAConfigurationError() {
        #expect(throws: AuthError.self) { _ = try OTPlessProvider(appID: "", packageName: "com.acme.app") }
        #expect(throws: AuthError.self) { _ = try OTPlessProvider(appID: "app/../x", packageName: "com.acme.app") }
    }
}
