import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthDynamic
import MultiAuthOTPless
import MultiAuthPortal
import MultiAuthSandbox
import MultiAuthTruecaller

/// A ready sandbox in one call: every built-in provider's emulated backend registered on its
/// reserved `.test` hosts, the matching provider configurations, and an `AuthClient` factory.
///
/// The configurations are the providers' own `.sandbox()` ones, so an app switches to
/// production by replacing them with `.production(…)` and the transport with
/// `URLSessionTransport`; nothing else changes:
/// ```swift
/// let world = try StandardSandbox()                       // ManualClock; .realTime for a live demo
/// let client = try world.makeClient()
/// let challenge = try await client.signIn(with: .dynamic, .email("ada@example.com")).challenge!
/// let code = world.inbox.latest(for: "ada@example.com", channel: .email)!.code!
/// let session = try await client.submit(ChallengeAnswer(code: code), for: challenge).session!
/// ```
///
/// | Provider | Configuration | Hosts |
/// |---|---|---|
/// | Dynamic | `DynamicConfiguration.sandbox()` | `app.dynamic.test` |
/// | Truecaller | `TruecallerConfiguration.sandbox()` | `api4`, `outline-eu`, `outline-noneu`, `sdk-otp-verification-noneu` `.truecaller.test` |
/// | Portal | `PortalConfiguration.sandbox()` | `api.portal.test` |
/// | OTPLESS | `OTPlessConfiguration` on the backend's hosts | `OTPlessBackend.hosts` |
///
/// Any other host is refused by the sandbox as `AuthError(.configuration)` naming the host, so
/// a production configuration left in a sandbox set-up fails at once.
///
/// The configurations are `var`s: adjust one before ``makeClient(store:)`` (e.g. OTPLESS's
/// preferred channels). Concurrency: a `Sendable` value; the backends and the sandbox are
/// thread-safe.
public struct StandardSandbox: Sendable {
    /// Which clock the sandbox and its clients run on.
    public enum Time: Sendable {
        /// A ``/MultiAuthSandboxRuntime/ManualClock``: time moves only when advanced (tests, scripted demos).
        case manual(ManualClock)
        /// The system's clocks (`TimeSource.system`): expiries and latency pass in real time, for
        /// an interactive demo.
        case realTime
    }

    /// The app id of the OTPLESS sandbox merchant.
    public static let otplessAppID = OTPlessConfiguration.sandboxAppID

    /// The sandbox: transport, inbox, fault plan and request log.
    public let sandbox: Sandbox
    /// The emulated Dynamic backend.
    public let dynamicBackend: DynamicBackend
    /// The emulated Truecaller backend.
    public let truecallerBackend: TruecallerBackend
    /// The emulated Portal backend.
    public let portalBackend: PortalBackend
    /// The emulated OTPLESS backend.
    public let otplessBackend: OTPlessBackend
    /// `DynamicConfiguration.sandbox()`.
    public var dynamic: DynamicConfiguration
    /// `TruecallerConfiguration.sandbox()`.
    public var truecaller: TruecallerConfiguration
    /// `PortalConfiguration.sandbox()`.
    public var portal: PortalConfiguration
    /// The OTPLESS configuration pointing at the backend's hosts.
    public var otpless: OTPlessConfiguration

    /// Creates the sandbox, its four backends and their configurations.
    /// - Parameters:
    ///   - seed: Fixes every code, token and random fault (default 0).
    ///   - time: ``Time/manual(_:)`` (default: a new ``/MultiAuthSandboxRuntime/ManualClock``) or
    ///     ``Time/realTime``.
    ///   - signingKey: The RSA key the Dynamic, Truecaller and OTPLESS backends sign with;
    ///     `nil` uses one generated once per process (key generation is the slow part).
    ///   - otplessMerchant: The OTPLESS merchant set-up (default: app id ``otplessAppID``).
    /// - Throws: `CryptoError` when a key cannot be generated; `AuthError` `.configuration`
    ///   from a configuration (not with the defaults).
    public init(
        seed: UInt64 = 0, time: Time = .manual(ManualClock()), signingKey: PrivateKey? = nil,
        otplessMerchant: OTPlessMerchant = OTPlessMerchant(appID: StandardSandbox.otplessAppID)
    ) throws {
        switch time {
        case .manual(let clock): sandbox = Sandbox(seed: seed, clock: clock)
        case .realTime: sandbox = Sandbox(seed: seed, time: .system)
        }
        // The sandbox's process-wide RSA-2048 key unless one is given (generated once per process).
        let key = try signingKey ?? SandboxSigningKeys.rsa()
        dynamicBackend = DynamicBackend(signingKey: key)
        sandbox.register(dynamicBackend, host: DynamicBackend.defaultHost)
        truecallerBackend = TruecallerBackend(signingKey: key)
        truecallerBackend.install(in: sandbox)
        portalBackend = try PortalBackend()
        sandbox.register(portalBackend, host: PortalBackend.defaultHost)
        otplessBackend = OTPlessBackend(merchant: otplessMerchant, signingKey: key)
        otplessBackend.install(in: sandbox)

        dynamic = try .sandbox()
        truecaller = try .sandbox()
        portal = try .sandbox()
        otpless = .sandbox(appID: otplessMerchant.appID)
    }

    /// Where the backends deliver codes and links (the sandbox's ``/MultiAuthSandboxRuntime/Inbox``).
    public var inbox: Inbox { sandbox.inbox }
    /// The sandbox's manual clock (idle in ``Time/realTime``).
    public var clock: ManualClock { sandbox.clock }
    /// The time source clients of this sandbox use.
    public var time: TimeSource { sandbox.time }
    /// The in-process transport serving the four backends.
    public var transport: SandboxTransport { sandbox.transport }

    /// One provider per backend, built from the sandbox configurations: Dynamic, Truecaller
    /// (one-tap asks the emulated Truecaller app, ``/MultiAuthSandbox/TruecallerBackend/app``,
    /// whether it is installed), Portal, OTPLESS.
    /// - Throws: `AuthError` `.configuration` from the OTPLESS provider (not with the defaults).
    public func providers() throws -> [any AuthProvider] {
        let app = truecallerBackend.app
        return [
            DynamicProvider(configuration: dynamic),
            TruecallerProvider(configuration: truecaller, app: TruecallerApp { app.isInstalled }),
            PortalProvider(configuration: portal), try OTPlessProvider(configuration: otpless),
        ]
    }

    /// An `AuthClient` over ``providers()``, this sandbox's transport and time.
    /// - Parameter store: The session store (default: a new in-memory store).
    /// - Returns: A ready client.
    /// - Throws: `AuthError` `.configuration` (not with the defaults).
    public func makeClient(store: any SessionStore = InMemorySessionStore()) throws -> AuthClient {
        try AuthClient(providers: try providers(), store: store, transport: sandbox.transport, time: sandbox.time)
    }
}
