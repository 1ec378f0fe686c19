import Foundation
import MultiAuth
import MultiAuthSandboxRuntime

/// The conformance checks for a provider that offers passkeys (``PasskeyCheck`` P01–P05): the
/// ceremony options' shape, a registration and a sign-in through `AuthClient`, a single-use
/// challenge, refusal of replayed and forged assertions, and a cancelled sheet mapped to
/// `AuthError` `.cancelledByUser` (Docs/Passkeys.md, "Proving a passkey provider").
///
/// Each check gets a fresh world: a new ``/MultiAuthSandboxRuntime/Sandbox`` (seed `harness.seed +
/// check number`), the harness's backend installed in it, a fresh provider, a new in-memory
/// store and client, and a new `SoftwareAuthenticator` (seeded, sign count always 0 like a
/// synced passkey, so only the challenge can refuse a replay) playing the platform at the
/// harness's origin. Nothing sleeps and nothing reaches the network.
///
/// ```swift
/// let report = await PasskeyConformance(provider: { _ in PasskeyReferenceProvider() }, harness: .reference()).run()
/// ```
///
/// Concurrency: the checks run one after another; cancelling the calling task fails the rest
/// with `CancellationError`.
public struct PasskeyConformance: Sendable {
    /// The provider factory.
    public let makeProvider: ProviderConformance.ProviderFactory
    /// The harness.
    public let harness: PasskeyConformanceHarness

    /// Creates a kit for the providers `makeProvider` builds.
    public init(
        provider makeProvider: @escaping ProviderConformance.ProviderFactory, harness: PasskeyConformanceHarness
    ) {
        self.makeProvider = makeProvider
        self.harness = harness
    }

    /// Runs `checks` (default: all, in id order).
    public func run(_ checks: [PasskeyCheck] = PasskeyCheck.allCases) async -> ConformanceReport {
        var results: [ConformanceResult] = []
        let name = (try? makeProvider(Sandbox(seed: harness.seed)))?.id.rawValue ?? "?"
        for check in checks { results.append(await run(check)) }
        return ConformanceReport(provider: name, results: results)
    }

    /// Runs one check.
    public func run(_ check: PasskeyCheck) async -> ConformanceResult {
        let number = UInt64(check.rawValue.dropFirst()) ?? 0
        do {
            try Task.checkCancellation()
            let world = try PasskeyWorld(harness: harness, makeProvider: makeProvider, seed: harness.seed &+ number)
            switch check {
            case .optionsHaveTheCeremonyShape: try await Self.optionsHaveTheCeremonyShape(world)
            case .registrationThenSignIn: try await Self.registrationThenSignIn(world)
            case .challengeIsSingleUse: try await Self.challengeIsSingleUse(world)
            case .forgedAssertionsAreRefused: try await Self.forgedAssertionsAreRefused(world)
            case .cancellationIsCancelledByUser: try await Self.cancellationIsCancelledByUser(world)
            }
            return ConformanceResult(id: check.rawValue, title: check.title, status: .passed)
        } catch let failure as ConformanceFailure {
            return ConformanceResult(
                id: check.rawValue, title: check.title, status: failure.isSkip ? .skipped : .failed,
                detail: failure.detail)
        } catch {
            return ConformanceResult(
                id: check.rawValue, title: check.title, status: .failed, detail: "unexpected error: \(describe(error))")
        }
    }
}

/// The passkey checks; the raw value is the id in reports.
public enum PasskeyCheck: String, CaseIterable, Sendable, Codable, CustomStringConvertible {
    /// P01.
    case optionsHaveTheCeremonyShape = "P01"
    /// P02.
    case registrationThenSignIn = "P02"
    /// P03.
    case challengeIsSingleUse = "P03"
    /// P04.
    case forgedAssertionsAreRefused = "P04"
    /// P05.
    case cancellationIsCancelledByUser = "P05"

    /// What the check proves, one line.
    public var title: String {
        switch self {
        case .optionsHaveTheCeremonyShape:
            "passkey challenges carry ceremony options of the WebAuthn shape and require a passkey answer"
        case .registrationThenSignIn: "register a passkey, then sign in with it: one user, stored, signedIn"
        case .challengeIsSingleUse: "each start has a fresh challenge; a spent flow refuses its own assertion again"
        case .forgedAssertionsAreRefused:
            "a replayed, wrong-origin, wrong-rp-id or tampered assertion is refused; nothing stored"
        case .cancellationIsCancelledByUser: "a cancelled sheet is cancelledByUser, sends nothing, keeps the challenge"
        }
    }

    /// `P01 title`.
    public var description: String { "\(rawValue) \(title)" }
}

/// How ``PasskeyConformance`` drives a passkey provider's backend.
public struct PasskeyConformanceHarness: Sendable {
    /// Installs the provider's (emulated) backend in a check's sandbox.
    public var installBackend: @Sendable (Sandbox) -> Void
    /// The request that registers a passkey for account `index` (a new account each index).
    public var registrationRequest: @Sendable (_ index: Int) throws -> SignInRequest
    /// The request that signs in with a passkey of account `index`.
    public var signInRequest: @Sendable (_ index: Int) throws -> SignInRequest
    /// The origin the authenticator reports (an origin the backend accepts).
    public var origin: String
    /// The relying party id the provider's ceremonies must name.
    public var relyingPartyID: String
    /// The base seed.
    public var seed: UInt64

    /// Creates a harness.
    public init(
        installBackend: @escaping @Sendable (Sandbox) -> Void,
        registrationRequest: @escaping @Sendable (_ index: Int) throws -> SignInRequest,
        signInRequest: @escaping @Sendable (_ index: Int) throws -> SignInRequest, origin: String,
        relyingPartyID: String, seed: UInt64 = 0x5EED_0031
    ) {
        self.installBackend = installBackend
        self.registrationRequest = registrationRequest
        self.signInRequest = signInRequest
        self.origin = origin
        self.relyingPartyID = relyingPartyID
        self.seed = seed
    }

    /// The harness of `PasskeyReferenceProvider` over ``PasskeyBackend``:
    /// sign-up by e-mail, sign-in with a discoverable credential.
    public static func reference() -> PasskeyConformanceHarness {
        PasskeyConformanceHarness(
            installBackend: { $0.register(PasskeyBackend(), host: PasskeyProtocol.defaultHost) },
            registrationRequest: { .email(try EmailAddress("passkey-user-\($0)@example.test")) },
            signInRequest: { _ in .passkey() }, origin: PasskeyProtocol.origin,
            relyingPartyID: PasskeyProtocol.relyingPartyID)
    }
}

/// One check's world.
struct PasskeyWorld {
    let sandbox: Sandbox
    let provider: any AuthProvider
    let store: InMemorySessionStore
    let client: AuthClient
    let authenticator: SoftwareAuthenticator
    let harness: PasskeyConformanceHarness

    init(harness: PasskeyConformanceHarness, makeProvider: ProviderConformance.ProviderFactory, seed: UInt64) throws {
        sandbox = Sandbox(seed: seed)
        harness.installBackend(sandbox)
        provider = try makeProvider(sandbox)
        store = InMemorySessionStore()
        client = try sandbox.makeClient(providers: [provider], store: store, autoRefresh: .disabled)
        // Sign count 0 on every assertion, as synced passkeys report it (W3C WebAuthn Level 3
        // §6.1.1): a replay must be refused by the single-use challenge, not by the counter.
        authenticator = SoftwareAuthenticator(seed: seed, signCountStep: 0)
        self.harness = harness
    }

    var id: AuthProviderID { provider.id }

    /// Starts `request`; the passkey challenge it must return.
    func passkeyChallenge(_ request: SignInRequest, _ label: String) async throws -> (Challenge, PasskeyCeremony) {
        let step = try await expectSuccess(label) { try await client.signIn(with: id, request) }
        guard case .challenge(let challenge) = step, case .passkey(let ceremony) = challenge.kind else {
            throw ConformanceFailure("\(label) returned \(step), expected a challenge of kind passkey")
        }
        return (challenge, ceremony)
    }

    /// Registers account `index` and signs out; the registered session.
    func registered(_ index: Int = 0) async throws -> AuthSession {
        let (challenge, _) = try await passkeyChallenge(try harness.registrationRequest(index), "registration start")
        let answer = try authenticator.answer(challenge, origin: harness.origin)
        let step = try await expectSuccess("submitting the registration") {
            try await client.submit(answer, for: challenge)
        }
        guard let session = step.session else {
            throw ConformanceFailure("the registration returned \(step), expected a session")
        }
        _ = try await expectSuccess("signing out after the registration") { try await client.signOut(id) }
        return session
    }
}
