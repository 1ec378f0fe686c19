import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthSandbox

/// What a ``SandboxServer`` serves: one ``/MultiAuthSandboxRuntime/Sandbox`` with the four
/// emulated backends on their reserved `.test` hosts (the hosts the providers' `.sandbox()`
/// configurations name), the per-destination ``Scenarios`` and the settings it was made with.
///
/// A reset (`POST /_multiauth/reset`) replaces the whole world with a new one, so nothing of
/// an earlier test survives: inbox, flows, sessions, faults, scenarios and the request log
/// start empty; the signing key stays (a backend that cached the JWKS keeps working).
///
/// | Backend | Hosts |
/// |---|---|
/// | `DynamicBackend` | `app.dynamic.test` |
/// | `TruecallerBackend` | `api4`, `outline-eu`, `outline-noneu`, `sdk-otp-verification-noneu` `.truecaller.test` |
/// | `PortalBackend` | `api.portal.test` |
/// | `OTPlessBackend` | `user-auth.otpless.test`, `api.otpless.test` |
///
/// Thread-safe: every part is.
public final class EmulatorWorld: Sendable {
    /// How a world is made: seed, clock and the backends' options.
    public struct Settings: Sendable, Hashable {
        /// Which clock the backends read.
        public enum Clock: Sendable, Hashable {
            /// A ``/MultiAuthSandboxRuntime/ManualClock`` starting at this wall-clock time:
            /// time moves only through the control API (`POST /_multiauth/clock/advance`).
            case manual(start: Date)
            /// The system's clock: codes expire in real time.
            case realTime
        }

        /// Fixes every code, token and id the backends draw (default 0).
        public var seed: UInt64
        /// The backends' clock (default: manual, starting at Unix time 1 700 000 000).
        public var clock: Clock
        /// The OTPLESS merchant (default `OTPlessMerchant()`: WhatsApp then SMS, e-mail, OTP).
        public var otplessMerchant: OTPlessMerchant

        /// Creates settings.
        /// - Parameters:
        ///   - seed: The seed.
        ///   - clock: The backends' clock.
        ///   - otplessMerchant: The OTPLESS merchant set-up.
        public init(
            seed: UInt64 = 0, clock: Clock = .manual(start: Date(timeIntervalSince1970: 1_700_000_000)),
            otplessMerchant: OTPlessMerchant = OTPlessMerchant()
        ) {
            self.seed = seed
            self.clock = clock
            self.otplessMerchant = otplessMerchant
        }
    }

    /// The settings this world was made with.
    public let settings: Settings
    /// The sandbox: inbox, fault plan, clock, request log, fixed codes.
    public let sandbox: Sandbox
    /// The emulated Dynamic backend.
    public let dynamicBackend: DynamicBackend
    /// The emulated Truecaller backend.
    public let truecallerBackend: TruecallerBackend
    /// The emulated Portal backend.
    public let portalBackend: PortalBackend
    /// The emulated OTPLESS backend.
    public let otplessBackend: OTPlessBackend
    /// The scenarios set per phone number or e-mail address.
    public let scenarios: Scenarios
    /// The line every request to the backends goes through (``ScenarioGate``).
    let line = HandlingLine()

    /// Makes a world: a sandbox with `settings`' seed and clock and the four backends, each
    /// behind the ``Scenarios`` gate.
    /// - Parameters:
    ///   - settings: Seed, clock, backend options.
    ///   - signingKey: The RSA key the Dynamic, Truecaller and OTPLESS backends sign with.
    /// - Throws: `CryptoError` when the Portal backend cannot be made.
    public init(settings: Settings, signingKey: PrivateKey) throws {
        self.settings = settings
        switch settings.clock {
        case .manual(let start): sandbox = Sandbox(seed: settings.seed, clock: ManualClock(start: start))
        case .realTime: sandbox = Sandbox(seed: settings.seed, time: .system)
        }
        scenarios = Scenarios()
        dynamicBackend = DynamicBackend(signingKey: signingKey)
        truecallerBackend = TruecallerBackend(signingKey: signingKey)
        portalBackend = try PortalBackend(jwtSecret: Self.portalSecret(seed: settings.seed))
        otplessBackend = OTPlessBackend(merchant: settings.otplessMerchant, signingKey: signingKey)
        scenarios.attach(self)
        install(dynamicBackend, on: [DynamicBackend.defaultHost])
        install(truecallerBackend, on: TruecallerBackend.hosts)
        install(portalBackend, on: [PortalBackend.defaultHost])
        install(otplessBackend, on: OTPlessBackend.hosts)
    }

    private func install(_ backend: any SandboxBackend, on hosts: [String]) {
        for host in hosts {
            sandbox.register(ScenarioGate(backend: backend, scenarios: scenarios, line: line), host: host)
        }
    }

    /// Installs the backends a world with `settings` and `signingKey` has into `sandbox`,
    /// without the scenario gate: what an in-process run compares a server against (the same
    /// backends, options and derived secrets as the server's world).
    /// - Throws: `CryptoError` when the Portal backend cannot be made.
    package static func installBackends(
        into sandbox: Sandbox, settings: Settings, signingKey: PrivateKey,
        wrap: (any SandboxBackend) -> any SandboxBackend = { $0 }
    ) throws {
        let dynamic = wrap(DynamicBackend(signingKey: signingKey))
        sandbox.register(dynamic, host: DynamicBackend.defaultHost)
        let truecaller = wrap(TruecallerBackend(signingKey: signingKey))
        for host in TruecallerBackend.hosts { sandbox.register(truecaller, host: host) }
        let portal = wrap(try PortalBackend(jwtSecret: portalSecret(seed: settings.seed)))
        sandbox.register(portal, host: PortalBackend.defaultHost)
        let otpless = wrap(OTPlessBackend(merchant: settings.otplessMerchant, signingKey: signingKey))
        for host in OTPlessBackend.hosts { sandbox.register(otpless, host: host) }
    }

    /// The Portal backend's `userJwt` key for a seed: SHA-256 of a fixed label and the seed,
    /// so a world's answers repeat under its seed (a sandbox value, never a production key).
    static func portalSecret(seed: UInt64) -> [UInt8] {
        MessageDigest.sha256(Array("MultiAuth sandbox Portal userJwt key, seed \(seed)".utf8))
    }

    /// Every host a world serves, sorted.
    public var hosts: [String] { sandbox.hosts }

    /// The backend families and their hosts, in display order.
    public static let families: [(name: String, provider: String, hosts: [String])] = [
        ("Dynamic", "dynamic", [DynamicBackend.defaultHost]),
        ("Truecaller", "truecaller", TruecallerBackend.hosts),
        ("Portal", "portal", [PortalBackend.defaultHost]),
        ("OTPLESS", "otpless", OTPlessBackend.hosts),
    ]
}
