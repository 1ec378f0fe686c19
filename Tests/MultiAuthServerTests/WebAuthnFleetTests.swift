import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthCrypto
import MultiAuthSandbox
import MultiAuthSandboxRuntime
import MultiAuthServer
import Testing

/// Passkey challenges are single-use across a fleet: two servers built with `FleetVerifiers` on
/// one replay store (in memory, and a real Redis when `MULTIAUTH_REDIS_URL` is set) accept a
/// registration or an assertion once; the other server refuses the same one with
/// `challengeReused`, and a refused forgery burns nothing (Docs/Passkeys.md, "The replay store").
@Suite(.timeLimit(.minutes(10)))  // hang guard only
struct WebAuthnFleetTests {
    static let relyingParty = WebAuthnRelyingParty(id: "example.com", origins: ["https://example.com"])
    let clock = ManualClock()

    func exercise(_ serverA: WebAuthnVerifier, _ serverB: WebAuthnVerifier) async throws {
        // Sign count 0 (a synced passkey): only the challenge can refuse a replay. Challenges are
        // random, as a relying party makes them, so a rerun on the same Redis starts clean.
        let authenticator = SoftwareAuthenticator(seed: 11, signCountStep: 0)
        let registrationChallenge = (0..<32).map { _ in UInt8.random(in: 0...255) }
        let registration = try authenticator.makeCredential(
            rpID: "example.com", origin: "https://example.com", challenge: registrationChallenge,
            userHandle: [1, 2, 3], userName: "kim@example.com")
        let credential = try await serverA.verifyRegistration(
            clientDataJSON: registration.clientDataJSON, attestationObject: registration.attestationObject,
            expectedChallenge: registrationChallenge, userVerification: .preferred)
        let reRegistered = await #expect(throws: WebAuthnError.self) {
            _ = try await serverB.verifyRegistration(
                clientDataJSON: registration.clientDataJSON, attestationObject: registration.attestationObject,
                expectedChallenge: registrationChallenge, userVerification: .preferred)
        }
        #expect(reRegistered?.code == .challengeReused)

        let challenge = (0..<32).map { _ in UInt8.random(in: 0...255) }
        let assertion = try authenticator.getAssertion(
            rpID: "example.com", origin: "https://example.com", challenge: challenge)
        func verify(_ server: WebAuthnVerifier, signature: [UInt8]) async throws -> WebAuthnAssertionResult {
            try await server.verifyAssertion(
                credentialID: assertion.credentialID, clientDataJSON: assertion.clientDataJSON,
                authenticatorData: assertion.authenticatorData, signature: signature,
                userHandle: assertion.userHandle, expectedChallenge: challenge, credential: credential,
                userVerification: .preferred)
        }
        // A forgery on server B is refused and does not burn the challenge.
        var forged = assertion.signature
        forged[forged.count / 2] ^= 0x10
        let forgery = await #expect(throws: WebAuthnError.self) { _ = try await verify(serverB, signature: forged) }
        #expect(forgery?.code == .signatureInvalid)
        // The real assertion: accepted once, by whichever server gets it first.
        _ = try await verify(serverA, signature: assertion.signature)
        for server in [serverA, serverB] {
            let replay = await #expect(throws: WebAuthnError.self) {
                _ = try await verify(server, signature: assertion.signature)
            }
            #expect(replay?.code == .challengeReused)
        }
    }

    @Test func twoServersOnOneInMemoryStoreAcceptEachPasskeyChallengeOnce() async throws {
        let store = InMemoryReplayStore(time: clock.timeSource)
        let serverA = FleetVerifiers(replayStore: store, attemptLimiter: nil, time: clock.timeSource)
        let serverB = FleetVerifiers(replayStore: store, attemptLimiter: nil, time: clock.timeSource)
        try await exercise(
            serverA.webAuthn(relyingParty: Self.relyingParty), serverB.webAuthn(relyingParty: Self.relyingParty))
    }

    @Test(.enabled(if: RedisTestEnvironment.url != nil, RedisTestEnvironment.urlMissing))
    func twoServersOnOneRedisAcceptEachPasskeyChallengeOnce() async throws {
        let url = try #require(RedisTestEnvironment.url)
        let clientA = RedisClient(configuration: try RedisConfiguration(url: url))
        let clientB = RedisClient(configuration: try RedisConfiguration(url: url))
        defer {
            clientA.close()
            clientB.close()
        }
        let serverA = FleetVerifiers(redis: clientA, time: clock.timeSource)
        let serverB = FleetVerifiers(redis: clientB, time: clock.timeSource)
        try await exercise(
            serverA.webAuthn(relyingParty: Self.relyingParty), serverB.webAuthn(relyingParty: Self.relyingParty))
    }
}
