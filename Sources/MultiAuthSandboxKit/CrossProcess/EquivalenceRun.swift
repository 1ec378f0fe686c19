import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthCrypto
import MultiAuthDynamic
import MultiAuthLocking
import MultiAuthOTPless
import MultiAuthPortal
import MultiAuthSandbox
import MultiAuthSandboxServer
import MultiAuthTruecaller

/// The proof that `multiauth serve` answers as the in-process sandbox does: each built-in
/// provider's conformance run, once with its backends in-process and once with them in a
/// ``/MultiAuthSandboxServer/SandboxServer`` reached over HTTP (a `ServerLink` in front, the
/// transport given, normally `URLSessionTransport` to another process), compared
/// (Docs/Emulator.md, "Proving the server equivalent"):
/// - the results: every check has the same status and detail in both runs;
/// - the exchanges: every request the server answered is replayed against fresh in-process
///   backends of the same world (same seed, key, settings, clock reading, in the order the
///   server's log holds them) and every answer must be byte for byte the server's, and the
///   inboxes the same;
/// - for information, how many checks made the very same sequence of exchanges in both runs
///   (timing decides the rest: the OTPLESS status poller, 200 concurrent starts).
///
/// Both runs use the built-in harness unchanged except for where its backends live: the
/// server world's backends (``/MultiAuthSandboxServer/EmulatorWorld/installBackends(into:settings:signingKey:wrap:)``,
/// with the options the harness installs) signing with one key both sides share.
///
/// Test and CLI support (`package`).
package enum EquivalenceRun {
    /// Where the backends of a run live.
    package enum Mode: Sendable {
        /// In this process.
        case inProcess
        /// In a server at this base URL, reached with this transport.
        case server(URL, any HTTPTransport)
    }

    /// One check's outcome and exchanges.
    package struct CheckOutcome: Sendable {
        /// The check id, e.g. `C02`.
        package var id: String
        /// `passed`, `failed` or `skipped`.
        package var status: String
        /// The check's detail.
        package var detail: String
        /// The exchanges, normalized (``/MultiAuthSandboxServer/ExchangeRecorder/normalized(_:)``).
        package var exchanges: [ExchangeRecorder.Exchange]
    }

    /// The comparison of one provider's runs.
    package struct Comparison: Sendable {
        /// The provider id.
        package var provider: String
        /// The in-process outcomes.
        package var inProcess: [CheckOutcome]
        /// The server outcomes.
        package var server: [CheckOutcome]
        /// Exchanges replayed in-process with byte-identical answers.
        package var replayedExchanges = 0
        /// Checks whose whole sequence of exchanges was the in-process run's.
        package var identicalChecks: [String] = []
        /// Every difference found, as sentences.
        package var differences: [String] = []

        /// Whether both runs gave the same results and every answer replays byte for byte.
        package var isEquivalent: Bool { differences.isEmpty }
        /// Counts of passed, failed, skipped in the server run.
        package var counts: (passed: Int, failed: Int, skipped: Int) {
            (
                server.filter { $0.status == "passed" }.count, server.filter { $0.status == "failed" }.count,
                server.filter { $0.status == "skipped" }.count
            )
        }
    }

    /// The providers compared, in display order.
    package static let providers: [AuthProviderID] = [.dynamic, .truecaller, .portal, .otpless]

    /// The world settings matching what `provider`'s built-in harness installs, for `seed`.
    package static func settings(for provider: AuthProviderID, seed: UInt64) -> EmulatorWorld.Settings {
        var settings = EmulatorWorld.Settings(seed: seed)
        if provider == .otpless {
            settings.otplessMerchant = OTPlessMerchant(
                appID: BuiltInConformance.otplessAppID, phoneAuthType: .otpLink, fallbackDelay: .seconds(900))
        }
        return settings
    }

    /// The recorder and replay log of the check running now.
    private struct Current: Sendable {
        var recorder = ExchangeRecorder()
        var replay = ReplayLog()
    }

    /// The checks the harness's own run makes that these runs skip: C17 and C23 of Truecaller
    /// (one-tap) and Dynamic (social login), whose other side is an in-process hook.
    static func inProcessOnlyChecks(_ provider: AuthProviderID) -> Set<String> {
        provider == .truecaller || provider == .dynamic ? ["C17", "C23"] : []
    }

    /// Runs every check of `provider` in `mode`, recording each check's exchanges.
    package static func run(
        _ provider: AuthProviderID, mode: Mode, signingKey: PrivateKey,
        replays: (@Sendable (String, ReplayLog) async -> Void)? = nil
    ) async -> [CheckOutcome] {
        guard let base = BuiltInConformance.kit(for: provider) else { return [] }
        let current = Locked(Current())
        var harness = base.harness
        harness.installBackend = { sandbox in
            let settings = settings(for: provider, seed: sandbox.seed)
            switch mode {
            case .inProcess:
                let recorder = current.withLock { $0.recorder }
                try EmulatorWorld.installBackends(
                    into: sandbox, settings: settings, signingKey: signingKey,
                    wrap: { RecordingBackend($0, recorder: recorder) })
            case .server(let url, let transport):
                let (recorder, replay) = current.withLock { ($0.recorder, $0.replay) }
                ServerLink(server: url, transport: transport, local: sandbox, settings: settings).install(
                    recording: recorder, replay: replay)
            }
        }
        if !inProcessOnlyChecks(provider).isEmpty {
            // The emulated Truecaller app and social consent page are in-process hooks the
            // server's control API does not offer, so neither run checks redirects.
            harness.abilities.remove(.redirect)
            harness.unsupportedReasons[.redirect] =
                "the one-tap app and the social consent page are in-process hooks, not on the server's control API"
        }
        if provider == .portal {
            harness.readCode = { sandbox, request, challenge in
                guard case .totp(let digits, _) = challenge.kind, case .email(let email) = request.identity else {
                    throw ConformanceFailure("Portal's only typed code is the TOTP step, not \(challenge.kind)")
                }
                let installed = sandbox.backend(forHost: PortalBackend.defaultHost)
                let secret =
                    ((installed as? RecordingBackend)?.backend as? PortalBackend)?.totpSecret(for: email.identityKey)
                    ?? (installed as? ForwardingBackend)?.link.totpSecret(for: email.identityKey)
                guard let secret else { throw ConformanceFailure("no TOTP secret is enrolled for \(request)") }
                return try TOTP(secret: secret, digits: digits).code(at: sandbox.clock.wallNow)
            }
        }
        let kit = ProviderConformance(provider: base.makeProvider, harness: harness)
        var outcomes: [CheckOutcome] = []
        for check in ConformanceCheck.allCases {
            let recorder = ExchangeRecorder()
            let replay = ReplayLog()
            current.withLock {
                $0.recorder = recorder
                $0.replay = replay
            }
            let result = await kit.run(check)
            await replays?(result.id, replay)
            outcomes.append(
                CheckOutcome(
                    id: result.id, status: result.status.rawValue, detail: result.detail ?? "",
                    exchanges: ExchangeRecorder.normalized(recorder.exchanges)))
        }
        return outcomes
    }

    /// Runs `provider` in-process and against the server, replays the server's exchanges, and
    /// compares.
    /// - Parameter harnessRun: Also run the harness with its own backends and require the same
    ///   statuses (the adapters' conformance tests do that already; the CLI does it here).
    package static func compare(
        _ provider: AuthProviderID, server url: URL, transport: any HTTPTransport, signingKey: PrivateKey,
        harnessRun: Bool = true
    ) async -> Comparison {
        let local = await run(provider, mode: .inProcess, signingKey: signingKey)
        struct Replays: Sendable {
            var differences: [String] = []
            var exchanges = 0
        }
        let replays = Locked(Replays())
        let remote = await run(provider, mode: .server(url, transport), signingKey: signingKey) { id, log in
            let (differences, exchanges) = await log.replay(signingKey: signingKey)
            replays.withLock {
                $0.differences += differences.map { "\(id): \($0)" }
                $0.exchanges += exchanges
            }
        }
        var comparison = Comparison(provider: provider.rawValue, inProcess: local, server: remote)
        (comparison.replayedExchanges, comparison.differences) = replays.withLock { ($0.exchanges, $0.differences) }
        guard local.count == remote.count else {
            comparison.differences.append("the runs have \(local.count) and \(remote.count) checks")
            return comparison
        }
        // The harness's own backends (not the server world's) give the same results.
        if harnessRun, let kit = BuiltInConformance.kit(for: provider) {
            let plain = await kit.run()
            let skippedHere = inProcessOnlyChecks(provider)
            for (result, outcome) in zip(plain.results, local)
            where result.status.rawValue != outcome.status && !skippedHere.contains(outcome.id) {
                comparison.differences.append(
                    "\(outcome.id): \(outcome.status) with the server world's backends, \(result.status.rawValue) with the harness's own"
                )
            }
        }
        for (mine, theirs) in zip(local, remote) {
            if mine.status != theirs.status || mine.detail != theirs.detail {
                comparison.differences.append(
                    "\(mine.id): in-process \(mine.status) '\(mine.detail)', server \(theirs.status) '\(theirs.detail)'"
                )
            }
            if mine.exchanges == theirs.exchanges { comparison.identicalChecks.append(mine.id) }
        }
        return comparison
    }
}
