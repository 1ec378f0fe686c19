import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthCrypto
import MultiAuthSandbox
import MultiAuthSandboxServer

/// The proof that `multiauth serve` answers as the in-process sandbox does: each built-in
/// provider's conformance run, once with its backends in-process and once with them in a
/// ``/MultiAuthSandboxServer/SandboxServer`` reached over HTTP (a `ServerLink` in front, the
/// transport given, normally `URLSessionTransport` to another process), with every exchange
/// recorded, then compared: the same results, and byte for byte the same exchanges
/// (Docs/Emulator.md, "Proving the server equivalent").
///
/// Both runs use the built-in harness unchanged except for where its backends live: the
/// server world's backends (``/MultiAuthSandboxServer/EmulatorWorld/installBackends(into:settings:signingKey:wrap:)``,
/// with the options the harness installs) signing with one key both sides share. The
/// in-process run is made twice: a check whose two in-process runs record different exchanges
/// (concurrent flows draw seeded values in arrival order) is compared as the set of
/// request lines and statuses instead of byte for byte, and counted as such.
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
        /// Checks whose exchanges were compared byte for byte, and how many exchanges they hold.
        package var identicalChecks: [String] = []
        /// Exchanges compared byte for byte.
        package var identicalExchanges = 0
        /// Checks compared as sets of request lines and statuses (not reproducible in-process).
        package var setChecks: [String] = []
        /// Every difference found, as sentences.
        package var differences: [String] = []

        /// Whether both runs gave the same results and exchanges.
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

    private final class Box: @unchecked Sendable {
        let lock = NSLock()
        var recorder = ExchangeRecorder()
        var current: ExchangeRecorder { lock.withLock { recorder } }
    }

    /// Runs every check of `provider` in `mode`, recording each check's exchanges.
    package static func run(_ provider: AuthProviderID, mode: Mode, signingKey: PrivateKey) async -> [CheckOutcome] {
        guard let base = BuiltInConformance.kit(for: provider) else { return [] }
        let box = Box()
        var harness = base.harness
        harness.installBackend = { sandbox in
            let settings = settings(for: provider, seed: sandbox.seed)
            switch mode {
            case .inProcess:
                let recorder = box.current
                try EmulatorWorld.installBackends(
                    into: sandbox, settings: settings, signingKey: signingKey,
                    wrap: { RecordingBackend($0, recorder: recorder) })
            case .server(let url, let transport):
                ServerLink(server: url, transport: transport, local: sandbox, settings: settings).install(
                    recording: box.current)
            }
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
            box.lock.withLock { box.recorder = recorder }
            let result = await kit.run(check)
            outcomes.append(
                CheckOutcome(
                    id: result.id, status: result.status.rawValue, detail: result.detail ?? "",
                    exchanges: ExchangeRecorder.normalized(recorder.exchanges)))
        }
        return outcomes
    }

    /// Runs `provider` in-process twice and against the server once, and compares.
    package static func compare(
        _ provider: AuthProviderID, server url: URL, transport: any HTTPTransport, signingKey: PrivateKey
    ) async -> Comparison {
        let first = await run(provider, mode: .inProcess, signingKey: signingKey)
        let second = await run(provider, mode: .inProcess, signingKey: signingKey)
        let remote = await run(provider, mode: .server(url, transport), signingKey: signingKey)
        var comparison = Comparison(provider: provider.rawValue, inProcess: first, server: remote)
        guard first.count == remote.count, first.count == second.count else {
            comparison.differences.append("the runs have \(first.count), \(second.count) and \(remote.count) checks")
            return comparison
        }
        // The harness's own backends (not the server world's) give the same results.
        if let kit = BuiltInConformance.kit(for: provider) {
            let plain = await kit.run()
            for (result, outcome) in zip(plain.results, first) where result.status.rawValue != outcome.status {
                comparison.differences.append(
                    "\(outcome.id): \(outcome.status) with the server world's backends, \(result.status.rawValue) with the harness's own"
                )
            }
        }
        for ((local, again), server) in zip(zip(first, second), remote) {
            if local.status != server.status || local.detail != server.detail {
                comparison.differences.append(
                    "\(local.id): in-process \(local.status) '\(local.detail)', server \(server.status) '\(server.detail)'"
                )
            }
            if local.exchanges == again.exchanges {
                if local.exchanges == server.exchanges {
                    comparison.identicalChecks.append(local.id)
                    comparison.identicalExchanges += local.exchanges.count
                } else {
                    comparison.differences.append(firstDifference(local.id, local.exchanges, server.exchanges))
                }
            } else {
                comparison.setChecks.append(local.id)
                let shape: (ExchangeRecorder.Exchange) -> String = {
                    "\($0.request.split(separator: "?").first ?? "") → \($0.status)"
                }
                let normalizedShape: (ExchangeRecorder.Exchange) -> String = { exchange in
                    shape(exchange).replacingOccurrences(
                        of:
                            "[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}|<client-uuid-[0-9]+>|/[0-9a-f]{32,}",
                        with: "<id>", options: .regularExpression)
                }
                // Sets, not counts: across processes the timing decides how many requests a
                // client makes (200 concurrent OTPLESS starts each fetch the device state when
                // no answer is cached yet; in-process the first answer is cached before the
                // second start asks), never which requests exist or what they get.
                let a = Array(Set(local.exchanges.map(normalizedShape))).sorted()
                let b = Array(Set(server.exchanges.map(normalizedShape))).sorted()
                if a != b {
                    var only = (local: [String: Int](), server: [String: Int]())
                    for line in a { only.local[line, default: 0] += 1 }
                    for line in b { only.server[line, default: 0] += 1 }
                    let lines = Set(only.local.keys).union(only.server.keys).sorted().filter {
                        only.local[$0, default: 0] != only.server[$0, default: 0]
                    }.prefix(4).map { "\($0) ×\(only.local[$0, default: 0]) vs ×\(only.server[$0, default: 0])" }
                    comparison.differences.append(
                        "\(local.id): \(a.count) exchanges in-process, \(b.count) against the server: \(lines.joined(separator: "; "))"
                    )
                }
            }
        }
        return comparison
    }

    private static func firstDifference(
        _ id: String, _ local: [ExchangeRecorder.Exchange], _ server: [ExchangeRecorder.Exchange]
    ) -> String {
        guard local.count == server.count else {
            return "\(id): \(local.count) exchanges in-process, \(server.count) against the server"
        }
        for (index, (a, b)) in zip(local, server).enumerated() where a != b {
            let lines = (
                a.text.split(separator: "\n", omittingEmptySubsequences: false),
                b.text.split(separator: "\n", omittingEmptySubsequences: false)
            )
            let line = zip(lines.0, lines.1).enumerated().first { $0.element.0 != $0.element.1 }
            let where_ =
                line.map { "line \($0.offset + 1): '\($0.element.0.prefix(160))' vs '\($0.element.1.prefix(160))'" }
                ?? "lengths differ"
            return "\(id): exchange \(index + 1) (\(a.request.prefix(120))) differs, \(where_)"
        }
        return "\(id): exchanges differ"
    }
}
