import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthDynamic
import MultiAuthSandbox
import MultiAuthTestKeys

/// A sandbox hosting a ``DynamicBackend``, a provider pointed at it and an `AuthClient`, all on
/// one `ManualClock`.
struct DynamicWorld {
    /// One RSA key for every test backend (key generation is the slow part).
    static let signingKey: PrivateKey = TestKeys.rsaA

    let sandbox: Sandbox
    let backend: DynamicBackend
    let provider: DynamicProvider
    let client: AuthClient
    let store: InMemorySessionStore

    init(seed: UInt64 = 7) throws {
        sandbox = Sandbox(seed: seed)
        backend = DynamicBackend(signingKey: Self.signingKey)
        sandbox.register(backend, host: DynamicBackend.defaultHost)
        provider = DynamicProvider(configuration: try .sandbox())
        store = InMemorySessionStore()
        // No background refresh: `refreshCoalescesConcurrentCallers` advances the clock past the
        // refresh time and drives the refresh itself.
        client = try sandbox.makeClient(providers: [provider], store: store, autoRefresh: .disabled)
    }

    var configuration: DynamicConfiguration { provider.configuration }

    /// The path prefix of an environment endpoint, for `sandbox.requestCount(pathPrefix:)`.
    func path(_ endpoint: String) -> String { configuration.endpoint(endpoint).path }

    func verifier(leeway: Duration = .seconds(60)) -> DynamicTokenVerifier {
        DynamicTokenVerifier(
            configuration: configuration, transport: sandbox.transport, time: sandbox.time, leeway: leeway,
            audience: .expected(backend.audience))
    }

    /// Signs in `email` through the client, reading the code from the inbox.
    func signIn(email: String = "user@example.com") async throws -> AuthSession {
        let challenge = try requireChallengeHelper(try await client.signIn(with: .dynamic, try .email(email)))
        let code = try requireCodeHelper(
            sandbox.inbox.latest(for: try EmailAddress(email).identityKey, channel: .email)?.code)
        guard let session = try await client.submit(ChallengeAnswer(code: code), for: challenge).session else {
            throw AuthError(.generic, "fixture: no session")
        }
        return session
    }
}

func requireChallengeHelper(_ step: SignInStep) throws -> Challenge {
    guard let challenge = step.challenge else { throw AuthError(.generic, "expected a challenge, got \(step)") }
    return challenge
}

func requireCodeHelper(_ code: String?) throws -> String {
    guard let code else { throw AuthError(.generic, "no code in the inbox") }
    return code
}
