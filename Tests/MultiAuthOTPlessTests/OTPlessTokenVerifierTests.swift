import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthOTPless
import MultiAuthSandbox
import Testing

@Suite(.timeLimit(.minutes(10)))
struct OTPlessTokenVerifierTests {
    func claims(_ world: OTPlessWorld, exp: Double? = nil) -> [String: JSONValue] {
        let now = world.clock.wallNow.timeIntervalSince1970
        return [
            "iss": .string(OTPlessBackend.issuer), "sub": .string("OT_1"), "aud": .string("sandbox-client"),
            "iat": .number(now), "exp": .number(exp ?? now + 600),
        ]
    }

    func verifier(_ world: OTPlessWorld, secret: String = "sandbox-secret", milliseconds: Bool = false)
        -> OTPlessTokenVerifier
    {
        OTPlessTokenVerifier(
            clientID: "sandbox-client", clientSecret: secret, baseURL: OTPlessConfiguration.sandboxBaseURL,
            issuer: OTPlessTokenVerifier.sandboxIssuer, acceptsMillisecondTimestamps: milliseconds,
            transport: world.transport,
            time: world.time)
    }

    /// A JWT signed by the sandbox key whose payload is `payload` verbatim (claims of any type).
    func rawToken(_ world: OTPlessWorld, payload: String) throws -> String {
        let valid = try world.backend.sign(claims: claims(world))
        let parts = valid.split(separator: ".").map(String.init)
        return [parts[0], Base64URL.encode(Array(payload.utf8)), parts[2]].joined(separator: ".")
    }

    @Test func aValidIDTokenVerifiesThroughDiscoveryAndJWKS() async throws {
        let world = try OTPlessWorld()
        let token = try world.backend.sign(claims: claims(world))
        let jwt = try await verifier(world).verifyIDToken(token)
        #expect(jwt.claims.subject == "OT_1")
        #expect(world.requests.contains { $0.url.path == "/.well-known/openid-configuration" })
        #expect(world.requests.contains { $0.url.path == OTPlessBackend.jwksPath })
    }

    /// A 13-digit (millisecond) `exp` is reported, not silently divided by 1000;
    /// reading milliseconds is an explicit opt-in.
    @Test func expiryInMillisecondsIsRefusedUnlessOptedIn() async throws {
        let world = try OTPlessWorld()
        let ms = (world.clock.wallNow.timeIntervalSince1970 + 600) * 1000
        let token = try world.backend.sign(claims: claims(world, exp: ms))
        let refused = await #expect(throws: AuthError.self) { _ = try await verifier(world).verifyIDToken(token) }
        #expect(refused?.code == .unauthorized)
        #expect(
            refused?.message == "the id token's exp has 13 or more digits (milliseconds?); NumericDates are seconds")
        _ = try await verifier(world, milliseconds: true).verifyIDToken(token)
        world.clock.advance(by: .seconds(700))
        let error = await #expect(throws: AuthError.self) {
            _ = try await verifier(world, milliseconds: true).verifyIDToken(token)
        }
        #expect(error?.code == .expired)
    }

    /// An `exp` that is a string means expired now, never "does not expire".
    @Test func aStringExpiryCountsAsExpired() async throws {
        let world = try OTPlessWorld()
        let far = Int(world.clock.wallNow.timeIntervalSince1970) + 86_400
        let token = try rawToken(
            world, payload: #"{"iss":"\#(OTPlessBackend.issuer)","sub":"OT_1","aud":"sandbox-client","exp":"\#(far)"}"#)
        let error = await #expect(throws: AuthError.self) { _ = try await verifier(world).verifyIDToken(token) }
        #expect(error?.code == .expired)
        #expect(error?.message == "the id token's exp is not a number of seconds; it counts as expired")
    }

    @Test func aTamperedIDTokenIsRefused() async throws {
        let world = try OTPlessWorld()
        let token = try world.backend.sign(claims: claims(world))
        var parts = token.split(separator: ".").map(String.init)
        var payload = claims(world)
        payload["sub"] = .string("OT_attacker")
        parts[1] = Base64URL.encode(try JSONEncoder().encode(JSONValue.object(payload)))
        let error = await #expect(throws: AuthError.self) {
            _ = try await verifier(world).verifyIDToken(parts.joined(separator: "."))
        }
        #expect(error?.code == .signatureInvalid)
    }

    @Test func anUnknownKeyIDIsRefused() async throws {
        let world = try OTPlessWorld()
        let token = try world.backend.sign(claims: claims(world), keyID: "rotated-away")
        let error = await #expect(throws: AuthError.self) { _ = try await verifier(world).verifyIDToken(token) }
        #expect(error?.code == .signatureInvalid)
    }

    @Test func aTokenForAnotherAudienceOrIssuerIsRefused() async throws {
        let world = try OTPlessWorld()
        var other = claims(world)
        other["aud"] = .string("someone-else")
        let error = await #expect(throws: AuthError.self) {
            _ = try await verifier(world).verifyIDToken(try world.backend.sign(claims: other))
        }
        #expect(error?.code == .unauthorized)
    }

    @Test func aBlankOrMalformedTokenMakesNoNetworkCall() async throws {
        let world = try OTPlessWorld()
        for token in ["", "   ", "a.b", "not-a-jwt"] {
            let error = await #expect(throws: AuthError.self) { _ = try await verifier(world).verifyIDToken(token) }
            #expect(error?.code == .invalidInput)
        }
        let blank = await #expect(throws: AuthError.self) { _ = try await verifier(world).validate(token: " ") }
        #expect(blank?.code == .invalidInput)
        #expect(world.requestCount == 0)
    }

    @Test func validateTokenNeedsTheRightCredentials() async throws {
        let world = try OTPlessWorld()
        let bad = await #expect(throws: AuthError.self) {
            _ = try await verifier(world, secret: "wrong").validate(token: "abc")
        }
        #expect(bad?.code == .unauthorized)
        #expect(bad?.providerCode == "7002")
        let unknown = await #expect(throws: AuthError.self) { _ = try await verifier(world).validate(token: "abc") }
        #expect(unknown?.code == .unauthorized)
        let request = try #require(world.requests.last)
        #expect(request.header("clientId") == "sandbox-client")
        #expect(request.url.path == "/auth/v1/validate/token")
    }
}
