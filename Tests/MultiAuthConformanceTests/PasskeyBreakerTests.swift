import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthCrypto
import MultiAuthSandbox
import Testing

/// A gate a scripted request waits on until the test opens it (no sleeping, no cancellation
/// awareness: the "server" goes on verifying after the caller is cancelled).
final class BreakerGate: @unchecked Sendable {
    private let lock = NSLock()
    private var opened = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = lock.withLock {
                if opened { return true }
                waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    func open() {
        let waiting = lock.withLock {
            opened = true
            defer { waiters = [] }
            return waiters
        }
        for waiter in waiting { waiter.resume() }
    }
}

/// Breaker tests of the passkey feature through `AuthClient`, `PasskeyReferenceProvider` and
/// `PasskeyBackend` (Docs/Passkeys.md). A test whose title says "was: …" is a breaker finding
/// (it failed before its fix); the others document properties that held.
@Suite(.timeLimit(.minutes(10)))
struct PasskeyBreakerTests {
    let sandbox: Sandbox
    let backend: PasskeyBackend
    let store: InMemorySessionStore
    let client: AuthClient
    let authenticator: SoftwareAuthenticator
    let email: EmailAddress

    init() throws {
        sandbox = Sandbox(seed: 77)
        backend = PasskeyBackend()
        sandbox.register(backend, host: PasskeyProtocol.defaultHost)
        store = InMemorySessionStore()
        client = try sandbox.makeClient(providers: [PasskeyReferenceProvider()], store: store, autoRefresh: .disabled)
        authenticator = SoftwareAuthenticator(seed: 11)
        email = try EmailAddress("kim@example.test")
    }

    private func register() async throws -> AuthSession {
        let challenge = try #require(try await client.signIn(with: "passkeys", .email(email)).challenge)
        return try #require(try await client.submit(authenticator.answer(challenge), for: challenge).session)
    }

    private func finishes() -> Int {
        sandbox.requestCount(pathPrefix: "/passkeys/authenticate")
            + sandbox.requestCount(pathPrefix: "/passkeys/register")
    }

    private static func ceremony(_ challenge: Challenge) -> PasskeyCeremony? {
        if case .passkey(let ceremony) = challenge.kind { return ceremony }
        return nil
    }

    // MARK: Hostile server answers to PasskeyReferenceProvider

    private static let b64Challenge = Base64URL.encode([UInt8](repeating: 7, count: 32))
    private static let b64User = Base64URL.encode([UInt8](repeating: 3, count: 16))

    private static func registrationStart(
        challenge: String = b64Challenge, user: String = b64User, params: String = #"[{"type":"public-key","alg":-7}]"#,
        expiresIn: String = "300", attempts: String = "3", timeout: String = "300000",
        rp: String = #"{"id":"sandbox.test","name":"S"}"#
    ) -> String {
        #"{"flowId":"f1","expiresIn":"# + expiresIn + #","attempts":"# + attempts + #","registration":{"rp":"# + rp
            + #","user":{"id":""# + user + #"","name":"kim","displayName":"Kim"},"challenge":""# + challenge
            + #"","pubKeyCredParams":"# + params + #","timeout":"# + timeout + "}}"
    }

    private static func assertionStart(challenge: String = b64Challenge, allow: String = "[]", timeout: String = "1000")
        -> String
    {
        #"{"flowId":"f2","expiresIn":300,"attempts":3,"assertion":{"challenge":""# + challenge
            + #"","rpId":"sandbox.test","timeout":"#
            + timeout + #","allowCredentials":"# + allow + "}}"
    }

    /// Starts the provider against one scripted answer; returns the step or the error.
    private static func start(_ response: HTTPResponse, _ request: SignInRequest = .passkey()) async -> Result<
        SignInStep, any Error
    > {
        let transport = ScriptedTransport()
        transport.script("POST /passkeys/start", response)
        let context = AuthContext(transport: transport, time: ManualClock().timeSource, flowID: .random())
        do {
            return .success(try await PasskeyReferenceProvider().start(request, context: context))
        } catch {
            return .failure(error)
        }
    }

    private static func code(_ result: Result<SignInStep, any Error>) -> AuthError.Code? {
        if case .failure(let error) = result { return (error as? AuthError)?.code }
        return nil
    }

    @Test(
        "hostile start answers are typed errors: garbage, 5xx, missing fields, both or neither options, bad base64url")
    func hostileStartAnswersAreTyped() async throws {
        // "B13" below: Docs/Cases.md B13, a base64url text whose length mod 4 is 1.
        let hundredKB = Base64URL.encode([UInt8](repeating: 1, count: 100_000))
        let cases: [(String, HTTPResponse, AuthError.Code)] = [
            ("garbage JSON", ScriptedTransport.json(200, "{not json"), .malformedResponse),
            ("empty body", HTTPResponse(status: 200, headers: [:], body: Data()), .malformedResponse),
            ("503", ScriptedTransport.json(503, "{}"), .providerUnavailable),
            ("500 garbage", HTTPResponse(status: 500, headers: [:], body: Data("<html>".utf8)), .providerUnavailable),
            ("no flowId", ScriptedTransport.json(200, #"{"expiresIn":1,"attempts":1}"#), .malformedResponse),
            (
                "neither options", ScriptedTransport.json(200, #"{"flowId":"f","expiresIn":1,"attempts":1}"#),
                .malformedResponse
            ),
            (
                "both options",
                ScriptedTransport.json(
                    200,
                    String(Self.registrationStart().dropLast(2)) + #"},"assertion":{"challenge":""# + Self.b64Challenge
                        + #""}}"#), .malformedResponse
            ),
            (
                "100 KB challenge", ScriptedTransport.json(200, Self.registrationStart(challenge: hundredKB)),
                .malformedResponse
            ),
            (
                "padded challenge", ScriptedTransport.json(200, Self.registrationStart(challenge: "AAAA" + "AA==")),
                .malformedResponse
            ),
            (
                "standard alphabet",
                ScriptedTransport.json(200, Self.registrationStart(challenge: "ab+/ab+/ab+/ab+/ab+/ab+/")),
                .malformedResponse
            ),
            (
                "length mod 4 = 1 (B13)", ScriptedTransport.json(200, Self.registrationStart(challenge: "eyJhY")),
                .malformedResponse
            ),
            ("empty challenge", ScriptedTransport.json(200, Self.registrationStart(challenge: "")), .malformedResponse),
            (
                "65-byte user id",
                ScriptedTransport.json(
                    200, Self.registrationStart(user: Base64URL.encode([UInt8](repeating: 1, count: 65)))),
                .malformedResponse
            ),
            ("empty user id", ScriptedTransport.json(200, Self.registrationStart(user: "")), .malformedResponse),
            (
                "timeout as text", ScriptedTransport.json(200, Self.registrationStart(timeout: #""soon""#)),
                .malformedResponse
            ),
            (
                "expiresIn 1e300", ScriptedTransport.json(200, Self.registrationStart(expiresIn: "1e300")),
                .malformedResponse
            ),
            (
                "allow list with invalid base64url",
                ScriptedTransport.json(200, Self.assertionStart(allow: #"[{"type":"public-key","id":"!!"}]"#)),
                .malformedResponse
            ),
        ]
        for (name, response, expected) in cases {
            let result = await Self.start(response)
            #expect(Self.code(result) == expected, "\(name): \(result)")
        }
    }

    @Test("huge or negative expiresIn and timeout do not crash; timeout is clamped to 0…10 minutes")
    func extremeNumbersAreClamped() async throws {
        for (expiresIn, timeout) in [("9223372036854775807", "9223372036854775807"), ("-5", "-1"), ("0", "0")] {
            let result = await Self.start(
                ScriptedTransport.json(200, Self.registrationStart(expiresIn: expiresIn, timeout: timeout)))
            guard case .success(let step) = result, let challenge = step.challenge,
                let ceremony = Self.ceremony(challenge)
            else {
                Issue.record("expiresIn \(expiresIn): \(result)")
                continue
            }
            #expect(ceremony.timeout.map { $0 >= .zero && $0 <= .seconds(600) } ?? true)
            #expect((challenge.expiresAt ?? .distantFuture) >= challenge.issuedAt)
        }
    }

    @Test("negative attempts from the server are clamped to zero (was: passed through)")
    func negativeAttemptsAreNotClamped() async throws {
        let result = await Self.start(ScriptedTransport.json(200, Self.registrationStart(attempts: "-5")))
        let challenge = try #require(try result.get().challenge)
        do {
            #expect((challenge.attemptsRemaining ?? 0) >= 0)
        }
    }

    @Test("an allow list of unknown types only is a malformed response (was: an empty, any-passkey list)")
    func unknownTypeAllowListWidensTheCeremony() async throws {
        let allow = #"[{"type":"future-key","id":"AAECAwQFBgcICQoLDA0ODw"}]"#
        let result = await Self.start(ScriptedTransport.json(200, Self.assertionStart(allow: allow)))
        // §5.1.4.2: descriptors of an unknown type are skipped, and when none is left the
        // authenticator is not asked (NotAllowedError); an empty list means "any discoverable
        // credential" instead, so the ceremony must not silently become one.
        do {
            switch result {
            case .failure(let error): #expect((error as? AuthError)?.code == .malformedResponse)
            case .success(let step):
                let ceremony = try #require(step.challenge.flatMap(Self.ceremony))
                #expect(!ceremony.allowedCredentials.isEmpty, "the ceremony now allows any passkey")
            }
        }
    }

    @Test("pubKeyCredParams: empty means ES256 and RS256, unknown types only is malformed (§5.1.3 step 10; was: [])")
    func unknownTypeAlgorithmsBecomeAny() async throws {
        let params = #"[{"type":"future-key","alg":-7}]"#
        let result = await Self.start(ScriptedTransport.json(200, Self.registrationStart(params: params)))
        // §5.1.3 step 10: an empty pubKeyCredParams means ES256 and RS256; a non-empty one with no
        // supported entry is NotSupportedError. The provider maps both to `algorithms: []`, and
        // PasskeyAuthorizationMapping treats [] as "ES256 is fine".
        do {
            switch result {
            case .failure(let error): #expect((error as? AuthError)?.code == .malformedResponse)
            case .success(let step):
                let ceremony = try #require(step.challenge.flatMap(Self.ceremony))
                #expect(!ceremony.algorithms.isEmpty)
            }
        }
        let empty = await Self.start(ScriptedTransport.json(200, Self.registrationStart(params: "[]")))
        do {
            let ceremony = try #require(try empty.get().challenge.flatMap(Self.ceremony))
            #expect(ceremony.algorithms == [-7, -257])
        }
    }

    @Test("a challenge under 16 bytes is a malformed response (§13.4.3; was: accepted)")
    func shortChallengeIsAccepted() async throws {
        let result = await Self.start(
            ScriptedTransport.json(200, Self.registrationStart(challenge: Base64URL.encode([1]))))
        do {
            #expect(Self.code(result) == .malformedResponse)
        }
    }

    @Test("options without a relying party id are malformed (was: the API host taken as the relying party)")
    func missingRelyingPartyIDFallsBackToTheAPIHost() async throws {
        let result = await Self.start(
            ScriptedTransport.json(200, Self.registrationStart(rp: #"{"name":"S"}"#)))
        do {
            #expect(Self.code(result) == .malformedResponse)
        }
    }

    @Test("a token response naming another account than the flow's is refused, nothing stored (was: stored)")
    func tokenForAnotherUserIsStored() async throws {
        let transport = ScriptedTransport(forwardingTo: sandbox.transport)
        let token = ReferenceProtocol.TokenResponse(
            accessToken: "at_x", refreshToken: "rt_x", expiresIn: 3600, expiresAt: Date(timeIntervalSince1970: 1),
            user: ReferenceProtocol.User(id: "pk-u999", email: try EmailAddress("mallory@example.test"), phone: nil))
        transport.script("POST /passkeys/register", try .json(200, token))
        let hostileStore = InMemorySessionStore()
        let hostile = try AuthClient(
            providers: [PasskeyReferenceProvider()], store: hostileStore, transport: transport, time: sandbox.time,
            autoRefresh: .disabled)
        let challenge = try #require(try await hostile.signIn(with: "passkeys", .email(email)).challenge)
        let outcome = await Result { try await hostile.submit(authenticator.answer(challenge), for: challenge) }
        let stored = try await hostileStore.load(for: "passkeys")
        do {
            #expect(throws: AuthError.self) { _ = try outcome.get() }
            #expect(stored == nil)
        }
    }

    // MARK: Hostile client answers through AuthClient.submit

    @Test("oversized and empty fields are refused locally with invalidToken; no request, no attempt spent")
    func oversizedAndEmptyFieldsAreRefusedLocally() async throws {
        _ = try await register()
        _ = try await client.signOut("passkeys")
        let challenge = try #require(try await client.signIn(with: "passkeys", .email(email)).challenge)
        guard case .assertion(let good) = try authenticator.answer(challenge).passkey else {
            Issue.record("not an assertion")
            return
        }
        let before = sandbox.requestCount
        var variants: [(String, PasskeyAssertion)] = []
        var v = good
        v.credentialID = Data(count: 1_024)
        variants.append(("credential id 1,024", v))
        v = good
        v.credentialID = Data()
        variants.append(("empty credential id", v))
        v = good
        v.clientDataJSON = Data(count: 16 * 1024 + 1)
        variants.append(("client data 16 KiB + 1", v))
        v = good
        v.clientDataJSON = Data()
        variants.append(("empty client data", v))
        v = good
        v.authenticatorData = Data(count: 16 * 1024 + 1)
        variants.append(("authenticator data 16 KiB + 1", v))
        v = good
        v.authenticatorData = Data()
        variants.append(("empty authenticator data", v))
        v = good
        v.signature = Data(count: 1_025)
        variants.append(("signature 1,025", v))
        v = good
        v.signature = Data()
        variants.append(("empty signature", v))
        v = good
        v.userHandle = Data(count: 65)
        variants.append(("user handle 65", v))
        for (name, assertion) in variants {
            let error = await #expect(throws: AuthError.self, "\(name)") {
                try await client.submit(ChallengeAnswer(passkey: .assertion(assertion)), for: challenge)
            }
            let expected: AuthError.Reason = name == "empty credential id" ? .invalidToken : .invalidToken
            #expect(
                error?.code == .invalidInput && (error?.reason == expected || error?.reason == .answerMismatch),
                "\(name): \(String(describing: error))")
        }
        #expect(sandbox.requestCount == before)
        // No attempt spent: the real answer still signs in, on the first try.
        #expect(try await client.submit(ChallengeAnswer(passkey: .assertion(good)), for: challenge).session != nil)
    }

    @Test("an empty user handle is refused locally; no request, no attempt (was: sent)")
    func emptyUserHandleIsNotRefusedLocally() async throws {
        _ = try await register()
        _ = try await client.signOut("passkeys")
        let challenge = try #require(try await client.signIn(with: "passkeys", .email(email)).challenge)
        guard case .assertion(var assertion) = try authenticator.answer(challenge).passkey else {
            Issue.record("not an assertion")
            return
        }
        assertion.userHandle = Data()
        let before = sandbox.requestCount
        let error = await #expect(throws: AuthError.self) {
            try await client.submit(ChallengeAnswer(passkey: .assertion(assertion)), for: challenge)
        }
        // Docs/Passkeys.md: "an empty field … `.invalidInput`, reason `.invalidToken`", nothing sent.
        do {
            #expect(error?.code == .invalidInput && error?.reason == .invalidToken, "\(String(describing: error))")
            #expect(sandbox.requestCount == before)
        }
    }

    @Test("a code challenge answered with a passkey, and a passkey challenge with a typed code, are refused locally")
    func crossKindAnswersAreRefused() async throws {
        let codeChallenge = Challenge(
            flowID: .random(), provider: "passkeys",
            kind: .oneTimeCode(length: 6, channel: .email, linkAlsoSent: false),
            issuedAt: sandbox.time.now, expiresAt: sandbox.time.now.addingTimeInterval(300))
        let before = sandbox.requestCount
        let passkeyAnswer = ChallengeAnswer(
            passkey: .assertion(
                PasskeyAssertion(
                    credentialID: Data([1]), clientDataJSON: Data([1]), authenticatorData: Data([1]),
                    signature: Data([1]), userHandle: nil)))
        let first = await #expect(throws: AuthError.self) { try await client.submit(passkeyAnswer, for: codeChallenge) }
        #expect(first?.code == .invalidInput && first?.reason == .answerMismatch)
        let challenge = try #require(try await client.signIn(with: "passkeys", .email(email)).challenge)
        let started = sandbox.requestCount
        // Docs/Cases.md B34 inputs against a passkey challenge: never normalised into something sent.
        for typed in [" 123456", "123456\n", "123 456", "12345"] {
            let error = await #expect(throws: AuthError.self) {
                try await client.submit(ChallengeAnswer(code: typed), for: challenge)
            }
            #expect(error?.code == .invalidInput && error?.reason == .answerMismatch, "\(typed)")
        }
        #expect(sandbox.requestCount == started && started == before + 1)
        #expect(try await client.submit(authenticator.answer(challenge), for: challenge).session != nil)
    }

    @Test(
        "two different assertions at once for one challenge: one server call, one session, the other challengeNotPending"
    )
    func concurrentDifferentAssertions() async throws {
        let registered = try await register()
        _ = try await client.signOut("passkeys")
        let challenge = try #require(try await client.signIn(with: "passkeys", .passkey()).challenge)
        let a = try authenticator.answer(challenge)
        let b = try authenticator.answer(challenge)
        #expect(a.passkey != b.passkey)
        let before = finishes()
        async let first = Result { try await client.submit(a, for: challenge) }
        async let second = Result { try await client.submit(b, for: challenge) }
        let results = await [first, second]
        let sessions = results.compactMap { try? $0.get().session }
        let errors = results.compactMap { result -> AuthError? in
            if case .failure(let error) = result { return error as? AuthError }
            return nil
        }
        #expect(sessions.count == 1 && sessions.first?.user.id == registered.user.id)
        #expect(errors.map(\.code) == [.challengeNotPending])
        #expect(finishes() == before + 1)
        #expect(try await store.load(for: "passkeys") == sessions.first)
    }

    @Test("a different result for a finished flow is refused, not answered with its session (was: replayed)")
    func tamperedRegistrationReplaysTheSession() async throws {
        let challenge = try #require(try await client.signIn(with: "passkeys", .email(email)).challenge)
        let answer = try authenticator.answer(challenge)
        let session = try #require(try await client.submit(answer, for: challenge).session)
        guard case .registration(var tampered) = answer.passkey else { return }
        tampered.attestationObject = Data([0xA0])  // an empty CBOR map: not an attestation object
        let before = sandbox.requestCount
        let replay = await Result {
            try await client.submit(ChallengeAnswer(passkey: .registration(tampered)), for: challenge)
        }
        #expect(sandbox.requestCount == before)
        // AuthClient.submit: "A finished challenge replays its session for the answer that
        // finished it and refuses any other answer with challengeNotPending". The submission key
        // of a registration leaves out the attestation object (of an assertion: everything but
        // the credential id and signature), so another answer counts as the same.
        do {
            #expect(throws: AuthError.self) { _ = try replay.get() }
        }
        #expect((try? replay.get().session) == nil || (try? replay.get().session) == session)
    }

    @Test("cancelling the submit while the server verifies loses nothing: the session is stored and replays")
    func cancelWhileTheServerVerifies() async throws {
        _ = try await register()
        _ = try await client.signOut("passkeys")
        let gate = BreakerGate()
        let (arrivals, arrived) = AsyncStream.makeStream(of: Void.self)
        let inner = sandbox.transport
        let transport = ScriptedTransport { request in
            if request.url.path == "/passkeys/authenticate" {
                arrived.yield()
                await gate.wait()
            }
            // The server goes on whatever happens to the caller.
            return try await Task { try await inner.send(request) }.value
        }
        let gatedStore = InMemorySessionStore()
        let gated = try AuthClient(
            providers: [PasskeyReferenceProvider()], store: gatedStore, transport: transport, time: sandbox.time,
            autoRefresh: .disabled)
        let challenge = try #require(try await gated.signIn(with: "passkeys", .passkey()).challenge)
        let answer = try authenticator.answer(challenge)
        let task = Task { try await gated.submit(answer, for: challenge) }
        var iterator = arrivals.makeAsyncIterator()
        _ = await iterator.next()
        task.cancel()
        gate.open()
        let result = await task.result
        let stored = try await gatedStore.load(for: "passkeys")
        #expect(stored != nil, "the server issued a session; it must not be lost: \(result)")
        if case .success(let step) = result { #expect(step.session == stored) }
        // The same answer again replays it without a second server call.
        let calls = sandbox.requestCount(pathPrefix: "/passkeys/authenticate")
        let again = try await gated.submit(answer, for: challenge)
        #expect(again.session == stored)
        #expect(sandbox.requestCount(pathPrefix: "/passkeys/authenticate") == calls)
    }

    @Test("a sign-out racing a passkey submit stores nothing and revokes what the server issued")
    func signOutRacesSubmit() async throws {
        _ = try await register()
        _ = try await client.signOut("passkeys")
        let gate = BreakerGate()
        let (arrivals, arrived) = AsyncStream.makeStream(of: Void.self)
        let inner = sandbox.transport
        let transport = ScriptedTransport { request in
            if request.url.path == "/passkeys/authenticate" {
                arrived.yield()
                await gate.wait()
            }
            return try await inner.send(request)
        }
        let gatedStore = InMemorySessionStore()
        let gated = try AuthClient(
            providers: [PasskeyReferenceProvider()], store: gatedStore, transport: transport, time: sandbox.time,
            autoRefresh: .disabled)
        let challenge = try #require(try await gated.signIn(with: "passkeys", .passkey()).challenge)
        let answer = try authenticator.answer(challenge)
        let submit = Task { try await gated.submit(answer, for: challenge) }
        var iterator = arrivals.makeAsyncIterator()
        _ = await iterator.next()
        let logoutsBefore = sandbox.requestCount(pathPrefix: "/logout")
        let signOut = Task { try await gated.signOut("passkeys") }
        _ = try await signOut.value
        gate.open()
        let result = await submit.result
        #expect(throws: AuthError.self) { _ = try result.get() }
        #expect(try await gatedStore.load(for: "passkeys") == nil)
        #expect(sandbox.requestCount(pathPrefix: "/logout") == logoutsBefore + 1)
    }

    @Test("process death: a saved assertion challenge answered in a fresh client; a local refusal there spends nothing")
    func processDeathWithAssertion() async throws {
        _ = try await register()
        _ = try await client.signOut("passkeys")
        let challenge = try #require(try await client.signIn(with: "passkeys", .email(email)).challenge)
        let restored = try JSONDecoder().decode(Challenge.self, from: JSONEncoder().encode(challenge))
        #expect(restored == challenge)
        let freshStore = InMemorySessionStore()
        let fresh = try sandbox.makeClient(
            providers: [PasskeyReferenceProvider()], store: freshStore, autoRefresh: .disabled)
        let before = sandbox.requestCount
        let cancelled = await #expect(throws: AuthError.self) {
            try await fresh.submit(ChallengeAnswer(passkey: .cancelled), for: restored)
        }
        #expect(cancelled?.code == .cancelledByUser)
        #expect(sandbox.requestCount == before)
        let session = try #require(try await fresh.submit(authenticator.answer(restored), for: restored).session)
        #expect(try await freshStore.load(for: "passkeys") == session)
    }

    // MARK: Sandbox backend

    @Test("backend: expired flow (ManualClock), attempts exhaustion, replay on the finished flow")
    func backendFlowRules() async throws {
        _ = try await register()
        let provider = PasskeyReferenceProvider()
        // Expired: straight to the provider, so the client's own expiry check does not answer first.
        let context = sandbox.authContext(flowID: .random())
        let expiring = try #require(try await provider.start(.passkey(), context: context).challenge)
        let late = try authenticator.answer(expiring)
        sandbox.clock.advance(by: .seconds(PasskeyProtocol.challengeTTL))
        let expired = await #expect(throws: AuthError.self) {
            try await provider.respond(to: expiring, with: late, context: sandbox.authContext())
        }
        #expect(expired?.code == .expired)

        // Three failed verifications exhaust the flow; then even the right answer is refused.
        let flow = try #require(try await provider.start(.passkey(), context: sandbox.authContext()).challenge)
        var codes: [AuthError.Code] = []
        for _ in 0..<3 {
            let wrong = try authenticator.answer(flow, origin: "https://evil.example")
            do { _ = try await provider.respond(to: flow, with: wrong, context: sandbox.authContext()) } catch let error
                as AuthError
            {
                codes.append(error.code)
            }
        }
        #expect(codes == [.signatureInvalid, .signatureInvalid, .attemptsExhausted])
        let exhausted = await #expect(throws: AuthError.self) {
            try await provider.respond(to: flow, with: try authenticator.answer(flow), context: sandbox.authContext())
        }
        #expect(exhausted?.code == .attemptsExhausted)

        // Replay on the same, finished flow.
        let once = try #require(try await provider.start(.passkey(), context: sandbox.authContext()).challenge)
        let answer = try authenticator.answer(once)
        _ = try await provider.respond(to: once, with: answer, context: sandbox.authContext())
        let replay = await #expect(throws: AuthError.self) {
            try await provider.respond(to: once, with: answer, context: sandbox.authContext())
        }
        #expect(replay?.code == .codeAlreadyUsed)
    }

    @Test("backend: two finishes of one flow at once verify once")
    func backendTwoFinishesAtOnce() async throws {
        _ = try await register()
        let provider = PasskeyReferenceProvider()
        let flow = try #require(try await provider.start(.passkey(), context: sandbox.authContext()).challenge)
        let a = try authenticator.answer(flow)
        let b = try authenticator.answer(flow)
        async let first = Result { try await provider.respond(to: flow, with: a, context: sandbox.authContext()) }
        async let second = Result { try await provider.respond(to: flow, with: b, context: sandbox.authContext()) }
        let results = await [first, second]
        #expect(results.filter { (try? $0.get()) != nil }.count == 1)
    }

    @Test("backend: a credential registered twice is refused; the sign count must advance")
    func backendCredentialTwiceAndSignCount() async throws {
        _ = try await register()
        // The same authenticator state (a clone) registers the same credential id for another account.
        let other = try EmailAddress("lee@example.test")
        let provider = PasskeyReferenceProvider()
        let flow = try #require(try await provider.start(.email(other), context: sandbox.authContext()).challenge)
        let twin = SoftwareAuthenticator(seed: 11)  // same seed: the same first credential id
        let duplicate = await #expect(throws: AuthError.self) {
            try await provider.respond(to: flow, with: try twin.answer(flow), context: sandbox.authContext())
        }
        #expect(duplicate?.code == .invalidInput && duplicate?.providerCode == "credential_exists")
        #expect(backend.accountCount == 1)

        // An authenticator that never counts (0) stays accepted; once a count was seen, 0 is refused.
        let counterless = SoftwareAuthenticator(seed: 12, signCountStep: 0)
        let third = try EmailAddress("zoe@example.test")
        let signUp = try #require(try await provider.start(.email(third), context: sandbox.authContext()).challenge)
        _ = try await provider.respond(to: signUp, with: try counterless.answer(signUp), context: sandbox.authContext())
        for _ in 0..<2 {
            let signIn = try #require(try await provider.start(.email(third), context: sandbox.authContext()).challenge)
            #expect(
                try await provider.respond(
                    to: signIn, with: try counterless.answer(signIn), context: sandbox.authContext()
                )
                .session != nil)
        }
    }

    @Test("a discoverable sign-in without a user handle is refused (§7.2 step 6; was: accepted)")
    func discoverableSignInWithoutUserHandle() async throws {
        _ = try await register()
        _ = try await client.signOut("passkeys")
        let challenge = try #require(try await client.signIn(with: "passkeys", .passkey()).challenge)
        guard case .assertion(var assertion) = try authenticator.answer(challenge).passkey else { return }
        assertion.userHandle = nil
        let result = await Result {
            try await client.submit(ChallengeAnswer(passkey: .assertion(assertion)), for: challenge)
        }
        // §7.2 step 6: "If the user was not identified before the authentication ceremony was
        // initiated, verify that response.userHandle is present".
        do {
            #expect(throws: AuthError.self) { _ = try result.get() }
        }
    }
}

extension Result where Failure == any Error {
    fileprivate init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
