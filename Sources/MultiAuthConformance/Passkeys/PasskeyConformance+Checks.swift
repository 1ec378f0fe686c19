import Foundation
import MultiAuth
import MultiAuthSandboxRuntime

extension PasskeyConformance {
    /// P01: registration and sign-in challenges are `.passkey` ceremonies of the WebAuthn shape
    /// (W3C WebAuthn Level 3 §5.4, §5.5): the right operation, at least 16 challenge bytes
    /// (§13.4.3), the harness's relying party id, a user with a 1–64 byte handle and a name
    /// (registration), ES256 among the algorithms (every platform authenticator supports it),
    /// an expiry, and the `.passkey` requirement.
    static func optionsHaveTheCeremonyShape(_ world: PasskeyWorld) async throws {
        let (registration, create) = try await world.passkeyChallenge(
            try world.harness.registrationRequest(0), "registration start")
        try requireShape(registration, create, operation: .registration, world)
        let user = try unwrap(create.user, "the registration ceremony names no user")
        try require(
            (1...PasskeyResult.maximumUserHandleBytes).contains(user.id.count),
            "the user handle has \(user.id.count) bytes, expected 1–64 (§5.4.3)")
        try require(!user.name.isEmpty, "the registration ceremony's user has no name")
        try require(create.algorithms.contains(-7), "the registration ceremony does not accept ES256 (-7)")
        _ = try await world.registered(1)
        let (signIn, get) = try await world.passkeyChallenge(try world.harness.signInRequest(1), "sign-in start")
        try requireShape(signIn, get, operation: .assertion, world)
    }

    private static func requireShape(
        _ challenge: Challenge, _ ceremony: PasskeyCeremony, operation: PasskeyCeremony.Operation, _ world: PasskeyWorld
    ) throws {
        try require(ceremony.operation == operation, "expected a \(operation.rawValue) ceremony, got \(ceremony)")
        try require(
            ceremony.challenge.count >= 16,
            "the ceremony challenge has \(ceremony.challenge.count) bytes (< 16, §13.4.3)")
        try require(
            ceremony.relyingPartyID == world.harness.relyingPartyID,
            "the ceremony names relying party \(ceremony.relyingPartyID), expected \(world.harness.relyingPartyID)")
        try require(
            challenge.requirements.contains(.passkey), "the challenge does not list Challenge.Requirement.passkey")
        try require(challenge.expiresAt != nil, "the challenge has no expiry")
    }

    private static func unwrap<T>(_ value: T?, _ detail: String) throws -> T {
        guard let value else { throw ConformanceFailure(detail) }
        return value
    }

    /// P02: a registration signs the new account in (stored before returning, `signedIn`
    /// published); after a sign-out, an assertion by the same passkey signs the same user in.
    static func registrationThenSignIn(_ world: PasskeyWorld) async throws {
        let recorder = RecordingSubscriber(client: world.client)
        defer { recorder.cancel() }
        let (challenge, _) = try await world.passkeyChallenge(
            try world.harness.registrationRequest(0), "registration start")
        let answer = try world.authenticator.answer(challenge, origin: world.harness.origin)
        let step = try await expectSuccess("submitting the registration") {
            try await world.client.submit(answer, for: challenge)
        }
        let session = try unwrap(step.session, "the registration returned \(step), expected a session")
        try require(try await world.store.load(for: world.id) == session, "the registration's session is not stored")
        try require(await recorder.waitFor(kind: "signedIn") != nil, "no signedIn event after the registration")
        _ = try await expectSuccess("signing out") { try await world.client.signOut(world.id) }
        let (signIn, _) = try await world.passkeyChallenge(try world.harness.signInRequest(0), "sign-in start")
        let assertion = try world.authenticator.answer(signIn, origin: world.harness.origin)
        let again = try await expectSuccess("submitting the assertion") {
            try await world.client.submit(assertion, for: signIn)
        }
        let second = try unwrap(again.session, "the sign-in returned \(again), expected a session")
        try require(second.user.id == session.user.id, "the passkey signed in another user than it registered")
        try require(try await world.store.load(for: world.id) == second, "the sign-in's session is not stored")
    }

    /// P03: two starts issue different challenges; after a flow signed in, its own assertion
    /// submitted again from another client (the saved challenge, a second app instance) is
    /// refused with an `AuthError` and stores nothing.
    static func challengeIsSingleUse(_ world: PasskeyWorld) async throws {
        _ = try await world.registered(0)
        let (first, a) = try await world.passkeyChallenge(try world.harness.signInRequest(0), "first sign-in start")
        let (_, b) = try await world.passkeyChallenge(try world.harness.signInRequest(0), "second sign-in start")
        try require(a.challenge != b.challenge, "two starts issued the same ceremony challenge")
        let assertion = try world.authenticator.answer(first, origin: world.harness.origin)
        _ = try await expectSuccess("the first sign-in") { try await world.client.submit(assertion, for: first) }
        let otherStore = InMemorySessionStore()
        let other = try world.sandbox.makeClient(providers: [world.provider], store: otherStore, autoRefresh: .disabled)
        let saved = try JSONDecoder().decode(Challenge.self, from: JSONEncoder().encode(first))
        let refusal = try await expectAuthError("the spent flow's assertion, again") {
            try await other.submit(assertion, for: saved)
        }
        try require(
            try await otherStore.load(for: world.id) == nil, "the replayed assertion stored a session (\(refusal.code))"
        )
    }

    /// P04: an assertion replayed on a new flow, signed for another origin or relying party id,
    /// or with a changed signature byte, is refused with an `AuthError`; nothing is stored, and
    /// the real assertion still signs in afterwards.
    static func forgedAssertionsAreRefused(_ world: PasskeyWorld) async throws {
        _ = try await world.registered(0)
        let (first, _) = try await world.passkeyChallenge(try world.harness.signInRequest(0), "sign-in start")
        let captured = try world.authenticator.answer(first, origin: world.harness.origin)
        _ = try await expectSuccess("the first sign-in") { try await world.client.submit(captured, for: first) }
        _ = try await expectSuccess("signing out") { try await world.client.signOut(world.id) }
        let forgeries: [(String, (Challenge) throws -> ChallengeAnswer)] = [
            ("an assertion of another flow", { _ in captured }),
            (
                "an assertion for another origin",
                {
                    try world.authenticator.answer($0, origin: "https://attacker.invalid")
                }
            ),
            (
                "an assertion for another relying party id",
                {
                    try world.authenticator.answer($0, origin: world.harness.origin, relyingPartyID: "attacker.invalid")
                }
            ),
            (
                "an assertion with a changed signature byte",
                {
                    let real = try world.authenticator.answer($0, origin: world.harness.origin)
                    guard case .assertion(var assertion) = real.passkey, !assertion.signature.isEmpty else {
                        return real
                    }
                    assertion.signature[assertion.signature.count / 2] ^= 0x40
                    return ChallengeAnswer(passkey: .assertion(assertion))
                }
            ),
        ]
        for (name, forge) in forgeries {
            let (challenge, _) = try await world.passkeyChallenge(try world.harness.signInRequest(0), "sign-in start")
            let forged = try forge(challenge)
            _ = try await expectAuthError(name) { try await world.client.submit(forged, for: challenge) }
            try require(try await world.store.load(for: world.id) == nil, "\(name) stored a session")
        }
        let (challenge, _) = try await world.passkeyChallenge(try world.harness.signInRequest(0), "sign-in start")
        let real = try world.authenticator.answer(challenge, origin: world.harness.origin)
        _ = try await expectSuccess("the real assertion after the forgeries") {
            try await world.client.submit(real, for: challenge)
        }
    }

    /// P05: the provider, asked directly with a cancelled result, throws `.cancelledByUser`
    /// without a network call; through `AuthClient` the same, and the challenge then completes.
    static func cancellationIsCancelledByUser(_ world: PasskeyWorld) async throws {
        let (challenge, _) = try await world.passkeyChallenge(
            try world.harness.registrationRequest(0), "registration start")
        let before = world.sandbox.requestCount
        let direct = try await expectAuthError("the provider's respond with a cancelled result") {
            try await world.provider.respond(
                to: challenge, with: ChallengeAnswer(passkey: .cancelled), context: world.sandbox.authContext())
        }
        try require(direct.code == .cancelledByUser, "the provider mapped a cancelled sheet to \(direct.code)")
        let viaClient = try await expectAuthError("submitting a cancelled result") {
            try await world.client.submit(ChallengeAnswer(passkey: .cancelled), for: challenge)
        }
        try require(viaClient.code == .cancelledByUser, "the client mapped a cancelled sheet to \(viaClient.code)")
        try require(
            world.sandbox.requestCount == before,
            "a cancelled sheet made \(world.sandbox.requestCount - before) network call(s)")
        let answer = try world.authenticator.answer(challenge, origin: world.harness.origin)
        _ = try await expectSuccess("the registration after a cancelled sheet") {
            try await world.client.submit(answer, for: challenge)
        }
    }
}
