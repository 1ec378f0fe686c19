import Foundation
import MultiAuth
import MultiAuthSandbox
import Testing

@testable import MultiAuthTruecaller

/// A hostile `tokenTtl` (Docs/Security.md, "Numbers from the wire"): `"inf"`, `"1e999"` or
/// `1e300` made a challenge that never expired, and the infinite ones could not be encoded
/// (the documented process-death recipe failed). Now a TTL is finite, positive and at most 10
/// years, or the answer is a `malformedResponse`.
@Suite(.timeLimit(.minutes(10)))
struct TruecallerHostileNumberTests {
    let provider = TruecallerProvider(configuration: TruecallerWorld.configuration)

    static func create(ttl: String) -> ScriptedTransport {
        ScriptedTransport { _ in
            ScriptedTransport.json(
                200, #"{"status":2,"message":"sent","method":"sms","verificationToken":"vt-1","tokenTtl":\#(ttl)}"#)
        }
    }

    @Test(arguments: [#""inf""#, #""Infinity""#, #""1e999""#, #""NaN""#, "1e300", #""1e300""#, "0", "-5", #""-5""#])
    func anAbsurdTokenTtlIsAMalformedResponse(ttl: String) async throws {
        let error = await #expect(throws: AuthError.self) {
            try await provider.start(
                .phone(TruecallerWorld.phone), context: TruecallerWorld.context(Self.create(ttl: ttl)))
        }
        #expect(error?.code == .malformedResponse, "\(ttl): \(String(describing: error))")
    }

    @Test(arguments: ["300", #""300""#, #""1.5e2""#])
    func aPlausibleTokenTtlMakesAnEncodableChallenge(ttl: String) async throws {
        let clock = ManualClock()
        let step = try await provider.start(
            .phone(TruecallerWorld.phone), context: TruecallerWorld.context(Self.create(ttl: ttl), clock: clock))
        let challenge = try #require(step.challenge)
        let lifetime = try #require(challenge.expiresAt).timeIntervalSince(challenge.issuedAt)
        #expect(lifetime == 300 || lifetime == 150)
        let decoded = try JSONDecoder.multiAuth.decode(
            Challenge.self, from: try JSONEncoder.multiAuth.encode(challenge))
        #expect(decoded == challenge)
    }
}
