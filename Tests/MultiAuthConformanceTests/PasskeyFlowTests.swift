import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthCrypto
import MultiAuthSandbox
import Testing

/// Passkeys offline through `AuthClient`: the passkey reference backend verifies with the
/// server-side `WebAuthnVerifier`, a seeded `SoftwareAuthenticator` plays the platform
/// (Docs/Passkeys.md).
@Suite(.timeLimit(.minutes(10)))
struct PasskeyFlowTests {
    let sandbox: Sandbox
    let backend: PasskeyBackend
    let store: InMemorySessionStore
    let client: AuthClient
    let recorder: RecordingSubscriber
    let authenticator: SoftwareAuthenticator
    let email: EmailAddress

    init() throws {
        sandbox = Sandbox(seed: 31)
        backend = PasskeyBackend()
        sandbox.register(backend, host: PasskeyProtocol.defaultHost)
        store = InMemorySessionStore()
        client = try sandbox.makeClient(providers: [PasskeyReferenceProvider()], store: store)
        recorder = RecordingSubscriber(client: client)
        authenticator = SoftwareAuthenticator(seed: 7)
        email = try EmailAddress("ana@example.test")
    }

    /// Signs up `email` with `authenticator`; returns the session.
    private func register(with authenticator: SoftwareAuthenticator? = nil) async throws -> AuthSession {
        let challenge = try #require(try await client.signIn(with: "passkeys", .email(email)).challenge)
        let answer = try (authenticator ?? self.authenticator).answer(challenge)
        return try #require(try await client.submit(answer, for: challenge).session)
    }

    private func ceremony(_ challenge: Challenge) throws -> PasskeyCeremony {
        guard case .passkey(let ceremony) = challenge.kind else {
            Issue.record("not a passkey challenge: \(challenge.kind)")
            throw AuthError(.invalidInput, "not a passkey challenge")
        }
        return ceremony
    }

    @Test("register a passkey, sign out, sign in with it: one user, a stored session and signedIn each time")
    func registerThenSignIn() async throws {
        let first = try #require(try await client.signIn(with: "passkeys", .email(email)).challenge)
        #expect(first.requirements == [.passkey])
        let registration = try ceremony(first)
        #expect(registration.operation == .registration)
        #expect(registration.challenge.count == PasskeyProtocol.challengeBytes)
        #expect(registration.relyingPartyID == PasskeyProtocol.relyingPartyID)
        #expect(registration.user?.name == "ana@example.test")
        #expect(registration.algorithms.contains(-7))
        let session = try #require(try await client.submit(authenticator.answer(first), for: first).session)
        #expect(session.user.email == email)
        #expect(try await store.load(for: "passkeys") == session)
        #expect(await recorder.waitFor(kind: "signedIn") != nil)
        #expect(backend.accountCount == 1)

        _ = try await client.signOut("passkeys")
        #expect(try await store.load(for: "passkeys") == nil)

        // A discoverable credential: no account name typed, the authenticator picks its passkey.
        let second = try #require(try await client.signIn(with: "passkeys", .passkey()).challenge)
        let assertion = try ceremony(second)
        #expect(assertion.operation == .assertion && assertion.allowedCredentials.isEmpty)
        let again = try #require(try await client.submit(authenticator.answer(second), for: second).session)
        #expect(again.user.id == session.user.id)
        #expect(try await store.load(for: "passkeys") == again)

        // By account: the ceremony names the account's credential.
        _ = try await client.signOut("passkeys")
        let third = try #require(try await client.signIn(with: "passkeys", .email(email)).challenge)
        let byAccount = try ceremony(third)
        #expect(byAccount.operation == .assertion)
        #expect(byAccount.allowedCredentials.map { Array($0.id) } == authenticator.credentialIDs)
        let thirdSession = try #require(try await client.submit(authenticator.answer(third), for: third).session)
        #expect(thirdSession.user.id == session.user.id)
        #expect(backend.credential(authenticator.credentialIDs[0])?.signCount ?? 0 > 0)
    }

    @Test("a cancelled sheet throws cancelledByUser, sends nothing and leaves the challenge answerable")
    func cancelledKeepsTheChallengeOpen() async throws {
        let challenge = try #require(try await client.signIn(with: "passkeys", .email(email)).challenge)
        let before = sandbox.requestCount
        let error = await #expect(throws: AuthError.self) {
            try await client.submit(ChallengeAnswer(passkey: .cancelled), for: challenge)
        }
        #expect(error?.code == .cancelledByUser)
        #expect(sandbox.requestCount == before)
        #expect(try await store.load(for: "passkeys") == nil)
        let session = try await client.submit(authenticator.answer(challenge), for: challenge).session
        #expect(session?.user.email == email)
    }

    @Test("answers that do not fit the ceremony are refused before any network call")
    func mismatchedAnswersAreRefusedLocally() async throws {
        let challenge = try #require(try await client.signIn(with: "passkeys", .email(email)).challenge)
        let registration = try authenticator.answer(challenge)
        let before = sandbox.requestCount
        var oversized = registration
        if case .registration(var result) = registration.passkey {
            result.attestationObject = Data(count: PasskeyResult.maximumAttestationObjectBytes + 1)
            oversized = ChallengeAnswer(passkey: .registration(result))
        }
        let cases: [(String, ChallengeAnswer, AuthError.Reason)] = [
            ("a code", ChallengeAnswer(code: "123456"), .answerMismatch),
            (
                "an assertion for a registration",
                ChallengeAnswer(
                    passkey: .assertion(
                        PasskeyAssertion(
                            credentialID: Data([1]), clientDataJSON: Data([1]), authenticatorData: Data([1]),
                            signature: Data([1]), userHandle: nil))), .answerMismatch
            ),
            ("an oversized attestation object", oversized, .invalidToken),
        ]
        for (name, answer, reason) in cases {
            let error = await #expect(throws: AuthError.self, "\(name)") {
                try await client.submit(answer, for: challenge)
            }
            #expect(error?.code == .invalidInput && error?.reason == reason, "\(name): \(String(describing: error))")
        }
        #expect(sandbox.requestCount == before)
        // The challenge is still good.
        #expect(try await client.submit(registration, for: challenge).session != nil)

        // An assertion by a credential the ceremony does not allow.
        _ = try await client.signOut("passkeys")
        let signIn = try #require(try await client.signIn(with: "passkeys", .email(email)).challenge)
        let stranger = SoftwareAuthenticator(seed: 99)
        _ = try stranger.makeCredential(
            rpID: PasskeyProtocol.relyingPartyID, origin: PasskeyProtocol.origin,
            challenge: Array(repeating: 1, count: 32),
            userHandle: [9], userName: "eve@example.test")
        let foreign = try stranger.perform(
            PasskeyCeremony(
                operation: .assertion, challenge: try ceremony(signIn).challenge,
                relyingPartyID: PasskeyProtocol.relyingPartyID))
        let requests = sandbox.requestCount
        let error = await #expect(throws: AuthError.self) {
            try await client.submit(ChallengeAnswer(passkey: foreign), for: signIn)
        }
        #expect(error?.code == .invalidInput && error?.reason == .answerMismatch)
        #expect(sandbox.requestCount == requests)
    }

    @Test(
        "a wrong origin, a wrong rp id and a tampered signature are refused with the verifier's reason; nothing stored",
        arguments: ["originMismatch", "relyingPartyMismatch", "signatureInvalid"])
    func forgedAssertionsAreRefused(_ fault: String) async throws {
        let registered = try await register()
        _ = try await client.signOut("passkeys")
        let challenge = try #require(try await client.signIn(with: "passkeys", .passkey()).challenge)
        var answer: ChallengeAnswer
        switch fault {
        case "originMismatch": answer = try authenticator.answer(challenge, origin: "https://evil.example")
        case "relyingPartyMismatch": answer = try authenticator.answer(challenge, relyingPartyID: "evil.example")
        default:
            answer = try authenticator.answer(challenge)
            if case .assertion(var assertion) = answer.passkey {
                assertion.signature[assertion.signature.count - 5] ^= 0x01
                answer = ChallengeAnswer(passkey: .assertion(assertion))
            }
        }
        let error = await #expect(throws: AuthError.self) { try await client.submit(answer, for: challenge) }
        #expect(error?.code == .signatureInvalid)
        #expect(error?.providerCode == fault)
        #expect(try await store.load(for: "passkeys") == nil)
        // The user can still sign in with the real thing.
        let retry = try #require(try await client.signIn(with: "passkeys", .passkey()).challenge)
        let session = try await client.submit(authenticator.answer(retry), for: retry).session
        #expect(session?.user.id == registered.user.id)
    }

    @Test("a registration from a wrong origin creates no account")
    func forgedRegistrationCreatesNothing() async throws {
        let challenge = try #require(try await client.signIn(with: "passkeys", .email(email)).challenge)
        let error = await #expect(throws: AuthError.self) {
            try await client.submit(authenticator.answer(challenge, origin: "https://evil.example"), for: challenge)
        }
        #expect(error?.code == .signatureInvalid && error?.providerCode == "originMismatch")
        #expect(backend.accountCount == 0)
        #expect(try await store.load(for: "passkeys") == nil)
    }

    @Test("a replayed assertion is refused: on another flow (challenge) and on its own spent flow (already used)")
    func replayedAssertionsAreRefused() async throws {
        _ = try await register()
        _ = try await client.signOut("passkeys")
        let first = try #require(try await client.signIn(with: "passkeys", .passkey()).challenge)
        let captured = try authenticator.answer(first)
        _ = try #require(try await client.submit(captured, for: first).session)
        _ = try await client.signOut("passkeys")

        // The same assertion on a new flow: its challenge is not this flow's.
        let second = try #require(try await client.signIn(with: "passkeys", .passkey()).challenge)
        let error = await #expect(throws: AuthError.self) { try await client.submit(captured, for: second) }
        #expect(error?.code == .signatureInvalid && error?.providerCode == "challengeMismatch")

        // The same assertion on its own, spent flow, from another app instance (the saved challenge).
        let otherStore = InMemorySessionStore()
        let other = try sandbox.makeClient(providers: [PasskeyReferenceProvider()], store: otherStore)
        let saved = try JSONDecoder().decode(Challenge.self, from: JSONEncoder().encode(first))
        let replay = await #expect(throws: AuthError.self) { try await other.submit(captured, for: saved) }
        #expect(replay?.code == .codeAlreadyUsed)
        #expect(try await otherStore.load(for: "passkeys") == nil)
        #expect(try await store.load(for: "passkeys") == nil)
    }

    @Test("a cloned authenticator's sign count going backwards is refused and counted")
    func clonedAuthenticatorIsRefused() async throws {
        let registered = try await register()
        let clone = authenticator.clone()
        for _ in 0..<2 {
            _ = try await client.signOut("passkeys")
            let challenge = try #require(try await client.signIn(with: "passkeys", .passkey()).challenge)
            #expect(try await client.submit(authenticator.answer(challenge), for: challenge).session != nil)
        }
        _ = try await client.signOut("passkeys")
        let challenge = try #require(try await client.signIn(with: "passkeys", .passkey()).challenge)
        let error = await #expect(throws: AuthError.self) {
            try await client.submit(clone.answer(challenge), for: challenge)
        }
        #expect(error?.code == .signatureInvalid && error?.providerCode == "cloned_authenticator")
        #expect(backend.signCountRegressions == 1)
        #expect(try await store.load(for: "passkeys") == nil)
        #expect(registered.user.email == email)
    }

    @Test("a saved passkey challenge completes in a fresh client (process death between start and answer)")
    func savedChallengeCompletesLater() async throws {
        let challenge = try #require(try await client.signIn(with: "passkeys", .email(email)).challenge)
        let data = try JSONEncoder().encode(challenge)
        let restored = try JSONDecoder().decode(Challenge.self, from: data)
        #expect(restored == challenge)
        let fresh = try sandbox.makeClient(providers: [PasskeyReferenceProvider()], store: store)
        let session = try #require(try await fresh.submit(authenticator.answer(restored), for: restored).session)
        #expect(try await store.load(for: "passkeys") == session)
    }

    @Test("two submits of one assertion at once make one server call and return one session")
    func concurrentSubmitsShareOneCall() async throws {
        _ = try await register()
        _ = try await client.signOut("passkeys")
        let challenge = try #require(try await client.signIn(with: "passkeys", .passkey()).challenge)
        let answer = try authenticator.answer(challenge)
        let before = sandbox.requestCount
        async let a = client.submit(answer, for: challenge)
        async let b = client.submit(answer, for: challenge)
        let (first, second) = try await (a, b)
        #expect(first.session == second.session && first.session != nil)
        #expect(sandbox.requestCount == before + 1)
    }

    @Test("phone and OAuth identities are refused before any network call")
    func unsupportedIdentities() async throws {
        for request in [SignInRequest.phone(try PhoneNumber("+12025550123")), .oauth(.google)] {
            let error = await #expect(throws: AuthError.self) { try await client.signIn(with: "passkeys", request) }
            #expect(error?.code == .unsupported)
        }
        #expect(sandbox.requestCount == 0)
    }
}
