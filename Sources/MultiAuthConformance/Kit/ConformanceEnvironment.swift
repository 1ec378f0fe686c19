import Foundation
import MultiAuth
import MultiAuthSandboxRuntime

/// One check's world: a fresh sandbox with the backend installed, a fresh provider, a store
/// that fails on command, an `AuthClient` on the sandbox transport and manual clock, and a
/// recorder subscribed to the client's events before anything happens.
final class ConformanceEnvironment: Sendable {
    let harness: ConformanceHarness
    let makeProvider: ProviderConformance.ProviderFactory
    let sandbox: Sandbox
    let provider: any AuthProvider
    let store: FailingSessionStore
    let client: AuthClient
    let recorder: RecordingSubscriber
    let saves: SaveLog

    var providerID: AuthProviderID { provider.id }
    var clock: ManualClock { sandbox.clock }

    init(
        harness: ConformanceHarness, makeProvider: @escaping ProviderConformance.ProviderFactory, seed: UInt64,
        baseStore: (any SessionStore)? = nil
    ) throws {
        self.harness = harness
        self.makeProvider = makeProvider
        sandbox = Sandbox(seed: seed)
        do { try harness.installBackend(sandbox) } catch {
            throw ConformanceFailure("the harness could not install its backend: \(describe(error))")
        }
        do { provider = try makeProvider(sandbox) } catch {
            throw ConformanceFailure("the provider factory failed: \(describe(error))")
        }
        let saves = SaveLog()
        self.saves = saves
        store = FailingSessionStore(wrapping: baseStore ?? InMemorySessionStore()) { session in saves.note(session) }
        // No background refresh: every check drives its refreshes itself, and a scheduler
        // waking on the manual clock would add requests and events a check does not expect.
        client = try AuthClient(
            providers: [provider], store: store, transport: sandbox.transport, time: sandbox.time,
            autoRefresh: .disabled)
        saves.events = client.events
        recorder = RecordingSubscriber(client: client)
    }

    /// A further client on the same sandbox: a fresh provider from the factory (as after a
    /// restart) and `store`.
    func makeClient(store: any SessionStore, freshProvider: Bool) throws -> AuthClient {
        let provider: any AuthProvider
        if freshProvider {
            do { provider = try makeProvider(sandbox) } catch {
                throw ConformanceFailure("the provider factory failed: \(describe(error))")
            }
        } else {
            provider = self.provider
        }
        return try AuthClient(
            providers: [provider], store: store, transport: sandbox.transport, time: sandbox.time,
            autoRefresh: .disabled)
    }

    /// A context for calling the provider directly (outside a client).
    var directContext: AuthContext { AuthContext(transport: sandbox.transport, time: sandbox.time) }

    /// Starts a flow for identity `index` (the harness's redirect request when `redirect`) and
    /// requires a challenge.
    func start(_ index: Int, client: AuthClient? = nil, redirect: Bool = false) async throws -> (
        SignInRequest, Challenge
    ) {
        let request = redirect ? (harness.redirectRequest ?? harness.validRequest)(index) : harness.validRequest(index)
        let step = try await expectSuccess("start for \(request)") {
            try await (client ?? self.client).signIn(with: self.providerID, request)
        }
        guard case .challenge(let challenge) = step else {
            throw ConformanceFailure(
                "start for \(request) returned a session without a challenge; the kit needs a challenge to answer")
        }
        return (request, challenge)
    }

    /// The code for `challenge` of `request`, from the harness (normally read from the inbox).
    func code(for request: SignInRequest, _ challenge: Challenge) throws -> String {
        do { return try harness.readCode(sandbox, request, challenge) } catch let failure as ConformanceFailure {
            throw failure
        } catch {
            throw ConformanceFailure("reading the code for \(request) failed: \(describe(error))")
        }
    }

    /// Answers `challenge` once, rightly: the harness's code for code-like kinds, the genuine
    /// redirect URL for magic-link and OAuth kinds. Errors of the client pass through unchanged.
    func answer(_ challenge: Challenge, for request: SignInRequest, client: AuthClient? = nil) async throws
        -> SignInStep
    {
        let client = client ?? self.client
        switch challenge.kind {
        case .magicLink, .oauthRedirect:
            guard let redirect = harness.redirect else {
                throw ConformanceFailure(
                    "the challenge (\(challenge.kind)) completes through a redirect but the harness gives no redirect fixture"
                )
            }
            let url = try redirect.validURL(sandbox, request, challenge)
            guard let step = try await client.handleRedirect(url, resuming: challenge) else {
                throw ConformanceFailure("no registered provider claims the challenge's redirect URL")
            }
            return step
        default:
            return try await client.submit(ChallengeAnswer(code: try code(for: request, challenge)), for: challenge)
        }
    }

    /// Answers `challenge` and every further challenge (a TOTP second step, say) until a
    /// session; any error fails naming `label`.
    func complete(
        _ challenge: Challenge, for request: SignInRequest, client: AuthClient? = nil,
        label: String = "answering the challenge"
    )
        async throws -> AuthSession
    {
        var current = challenge
        for _ in 0..<4 {
            let step = try await expectSuccess(label) { try await answer(current, for: request, client: client) }
            switch step {
            case .signedIn(let session): return session
            case .challenge(let next): current = next
            }
        }
        throw ConformanceFailure("\(label): still no session after 4 challenges")
    }

    /// Submits `code` to `challenge`, then completes any further challenge.
    func submit(_ code: String, for challenge: Challenge, request: SignInRequest, label: String) async throws
        -> AuthSession
    {
        let step = try await expectSuccess(label) {
            try await client.submit(ChallengeAnswer(code: code), for: challenge)
        }
        switch step {
        case .signedIn(let session): return session
        case .challenge(let next): return try await complete(next, for: request, label: label)
        }
    }

    /// The whole happy path for identity `index`.
    func signIn(_ index: Int) async throws -> AuthSession {
        let (request, challenge) = try await start(index)
        return try await complete(challenge, for: request)
    }

    /// Requires the harness to list `.codeEntry` (checks that type codes of their own).
    func requireCodeEntry(_ purpose: String) throws {
        try requireAbility(.codeEntry, "codeEntry", neededTo: purpose)
    }

    /// Requires the harness to list `ability` (named `name` in reports); otherwise skips the
    /// check with the harness's reason for its absence, if it gives one.
    func requireAbility(_ ability: ConformanceHarness.Abilities, _ name: String, neededTo purpose: String? = nil) throws
    {
        guard !harness.abilities.contains(ability) else { return }
        let needed = purpose.map { ", needed to \($0)" } ?? ""
        if let reason = harness.unsupportedReasons.first(where: { $0.key.contains(ability) })?.value {
            throw ConformanceFailure.skip("\(name) unsupported\(needed): \(reason)")
        }
        throw ConformanceFailure.skip("the harness does not list \(name)\(needed)")
    }

    /// Requires the harness to list `.refresh` and the provider to be a `RefreshableProvider`.
    func requireRefreshable() throws {
        _ = try requireProvider(.refresh, "refresh", as: (any RefreshableProvider).self, "RefreshableProvider")
    }

    /// Requires the harness to list `.resend` and the provider to be a `ResendableProvider`.
    func requireResendable() throws {
        _ = try requireProvider(.resend, "resend", as: (any ResendableProvider).self, "ResendableProvider")
    }

    /// Requires the harness to list `.redirect` and give a redirect fixture, and the provider to
    /// be a `RedirectHandlingProvider`; returns both.
    func requireRedirects() throws -> (
        provider: any RedirectHandlingProvider, fixture: ConformanceHarness.RedirectFixture
    ) {
        let provider = try requireProvider(
            .redirect, "redirect", as: (any RedirectHandlingProvider).self, "RedirectHandlingProvider")
        guard let fixture = harness.redirect else {
            throw ConformanceFailure("the harness lists redirect but gives no redirect fixture")
        }
        return (provider, fixture)
    }

    /// Requires the harness to list `ability` (named `name`) and the provider to conform to the
    /// protocol (named `protocolName`) that the ability needs; returns the provider as one.
    private func requireProvider<Provider>(
        _ ability: ConformanceHarness.Abilities, _ name: String, as _: Provider.Type, _ protocolName: String
    ) throws -> Provider {
        try requireAbility(ability, name)
        guard let typed = provider as? Provider else {
            throw ConformanceFailure("the harness lists \(name) but the provider is not a \(protocolName)")
        }
        return typed
    }

    /// Every event published on the client's bus so far (waits for the recorder to catch up).
    func allEvents() async -> [AuthEvent] {
        await recorder.waitFor(count: Int(client.events.currentSequence))
    }

    /// The stored session of the provider, as a check observes it.
    func storedSession() async throws -> AuthSession? {
        try await expectSuccess("loading the store") { try await self.store.base.load(for: self.providerID) }
    }

    /// Advances the manual clock so that its wall clock reads `date` (never backwards).
    func advance(to date: Date) {
        let seconds = date.timeIntervalSince(clock.wallNow)
        if seconds > 0 { clock.advance(by: .interval(seconds)) }
    }

    /// Lets tasks that are about to react to a cancellation do so, without real time: yields
    /// until no task sleeps on the clock (or a bounded number of times).
    func settleCancellation() async {
        for _ in 0..<2_000 where clock.sleeperCount > 0 { await Task.yield() }
    }
}
