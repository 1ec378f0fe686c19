import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthDynamic
import MultiAuthSandbox
import MultiAuthTestKeys
import Testing

/// `DynamicTokenVerifier` against tokens the sandbox backend signs (Docs/Providers/Dynamic.md; cases
/// Docs/Cases.md, B13, B15).
@Suite(.timeLimit(.minutes(10)))
struct DynamicTokenVerifierTests {
    @Test func acceptsTheSessionTokensOfASandboxSignIn() async throws {
        let f = try DynamicWorld()
        let session = try await f.signIn()
        let verifier = f.verifier()
        let access = try await verifier.verify(try #require(session.credentials.accessToken).reveal())
        #expect(access.userID == session.user.id)
        #expect(access.environmentID == DynamicBackend.defaultEnvironmentID)
        #expect(access.scopes == ["user:basic"])
        #expect(access.email == "user@example.com")
        #expect(access.sessionID != nil)
        let id = try await verifier.verify("Bearer " + (try #require(session.credentials.idToken).reveal()))
        #expect(id.userID == session.user.id)
        #expect(await verifier.jwksFetchCount == 1)
        #expect(f.sandbox.requestCount(pathPrefix: f.path(".well-known/jwks")) == 1)
    }

    func token(
        _ f: DynamicWorld, scopes: [String] = ["user:basic"], lifetime: Duration = .seconds(7200),
        keyID: String? = nil,
        extra: [String: JSONValue] = [:]
    ) throws -> String {
        try f.backend.mintToken(
            userID: "user-1", sessionID: "s-1", scopes: scopes, issuedAt: f.sandbox.clock.wallNow,
            lifetime: lifetime, keyID: keyID, extra: extra)
    }

    func refusal(_ f: DynamicWorld, _ token: String, leeway: Duration = .seconds(60)) async -> AuthError? {
        await #expect(throws: AuthError.self) { try await f.verifier(leeway: leeway).verify(token) }
    }

    @Test func refusesATamperedToken() async throws {
        let f = try DynamicWorld()
        let parts = try token(f).split(separator: ".").map(String.init)
        var claims = try JSONDecoder().decode([String: JSONValue].self, from: Data(try Base64URL.decode(parts[1])))
        claims["sub"] = .string("admin")
        let forged = parts[0] + "." + Base64URL.encode(try JSONEncoder().encode(claims)) + "." + parts[2]
        #expect(await refusal(f, forged)?.code == .signatureInvalid)
    }

    @Test func refusesAnUnknownKeyID() async throws {
        let f = try DynamicWorld()
        #expect(await refusal(f, try token(f, keyID: "rotated-away"))?.code == .signatureInvalid)
    }

    @Test func refusesATokenSignedByAnotherKeyUnderTheRightKid() async throws {
        let f = try DynamicWorld()
        let impostor = DynamicBackend(signingKey: TestKeys.rsaB)
        let forged = try impostor.mintToken(userID: "user-1", sessionID: "s-1", issuedAt: f.sandbox.clock.wallNow)
        #expect(await refusal(f, forged)?.code == .signatureInvalid)
    }

    @Test func refusesAlgNone() async throws {
        let f = try DynamicWorld()
        let parts = try token(f).split(separator: ".").map(String.init)
        let header = Base64URL.encode(Array(#"{"alg":"none","typ":"JWT","kid":"multiauth-sandbox-dynamic-1"}"#.utf8))
        for forged in [header + "." + parts[1] + ".", header + "." + parts[1] + "." + parts[2]] {
            #expect(await refusal(f, forged)?.code == .signatureInvalid)
        }
        #expect(f.sandbox.requestCount == 0)
    }

    @Test(arguments: [[String](), ["wallet:basic"], ["user:basic:pending"]])
    func refusesATokenWithoutTheUserBasicScope(scopes: [String]) async throws {
        let f = try DynamicWorld()
        let error = await refusal(f, try token(f, scopes: scopes))
        #expect(error?.code == .unauthorized)
        #expect(error?.providerCode == "scope")
    }

    @Test func expiryHonoursTheLeeway() async throws {
        let f = try DynamicWorld()
        let short = try token(f, lifetime: .seconds(300))
        f.sandbox.clock.advance(by: .seconds(359))
        #expect(try await f.verifier().verify(short).userID == "user-1")
        f.sandbox.clock.advance(by: .seconds(1))
        #expect(await refusal(f, short)?.code == .expired)
        #expect(await refusal(f, try token(f, lifetime: .seconds(-30)), leeway: .zero)?.code == .expired)
    }

    @Test func notBeforeHonoursTheLeeway() async throws {
        let f = try DynamicWorld()
        let now = f.sandbox.clock.wallNow.timeIntervalSince1970
        #expect(try await f.verifier().verify(try token(f, extra: ["nbf": .number(now + 30)])).userID == "user-1")
        #expect(await refusal(f, try token(f, extra: ["nbf": .number(now + 90)]))?.code == .unauthorized)
    }

    @Test func refusesAnotherEnvironmentsToken() async throws {
        let f = try DynamicWorld()
        let other = DynamicBackend(signingKey: DynamicWorld.signingKey, environmentID: "other-env")
        let token = try other.mintToken(userID: "user-1", sessionID: "s-1", issuedAt: f.sandbox.clock.wallNow)
        #expect(await refusal(f, token)?.code == .unauthorized)
    }

    @Test(arguments: ["", "   ", "Bearer ", "abc.def", "eyJhY.eyJhY.sig"])
    func malformedTokensAreInvalidInputWithoutAFetch(token: String) async throws {
        let f = try DynamicWorld()
        let error = await refusal(f, token)
        #expect(error?.code == .invalidInput)
        #expect(error?.reason == .invalidToken)
        #expect(f.sandbox.requestCount == 0)
    }

    @Test func unknownKidRefetchesAtMostOncePerInterval() async throws {
        let f = try DynamicWorld()
        let verifier = f.verifier()
        _ = try await verifier.verify(try token(f))
        for _ in 0..<5 {
            _ = await #expect(throws: AuthError.self) {
                try await verifier.verify(try token(f, keyID: "k-\(Int.random(in: 0...9999))"))
            }
        }
        #expect(await verifier.jwksFetchCount == 1)
    }
}
