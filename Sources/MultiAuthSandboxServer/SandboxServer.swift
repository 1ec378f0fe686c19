import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthLocking
import MultiAuthSandbox

/// The four emulated backends as one loopback HTTP/1.1 server, with a control API and an
/// inspector page: what `multiauth serve` runs, and what a Swift test can start in-process
/// (Docs/Emulator.md).
///
/// ```swift
/// let server = try SandboxServer()                 // 127.0.0.1, a free port, seed 0, manual clock
/// let url = try server.start()                     // e.g. http://127.0.0.1:40123
/// let dynamic = try DynamicConfiguration.sandbox(baseURL: url)
/// // … sign in over URLSessionTransport; read codes from server.world.inbox or GET /_multiauth/inbox
/// await server.stop()
/// ```
///
/// Routes:
/// - `/<host>/<path>` (e.g. `/app.dynamic.test/api/v0/sdk/…`) or `<path>` with `Host: <host>`:
///   the emulated backend of that host, through the same ``/MultiAuthSandboxRuntime/Sandbox``
///   pipeline as in-process (request log, fault plan, backend), byte for byte the same answer;
/// - `/_multiauth/…`: the control API (JSON; its OpenAPI document is `/_multiauth/openapi.json`);
/// - `/`: the inspector page.
///
/// Binds `127.0.0.1` unless the configuration names another address: the control API hands
/// out codes and sessions, so it must not be reachable from a network by accident.
///
/// Concurrency: thread-safe. One I/O thread serves every connection (``ServerLimits`` bounds
/// them); each request is handled in its own task. ``stop(grace:)`` stops accepting at once,
/// lets requests in progress finish for up to `grace`, then closes everything.
public final class SandboxServer: Sendable {
    /// Issues a signed-in session for the control API's `POST /_multiauth/sessions` by running
    /// a real sign-in against `world` (the server module knows no adapter, so the caller that
    /// does supplies this; `MultiAuthSandboxKit`'s `EmulatorSessions.issue` is the standard one).
    /// Returns the session's JSON, as `AuthSession` encodes it.
    public typealias SessionIssuer =
        @Sendable (_ request: SessionRequest, _ world: EmulatorWorld) async throws -> Data

    /// What to issue a session for.
    public struct SessionRequest: Sendable, Hashable {
        /// The provider id: `dynamic`, `truecaller`, `portal` or `otpless`.
        public var provider: String
        /// The identity: an E.164 number or an e-mail address.
        public var identity: String
        /// A first name (Truecaller needs one for a new number).
        public var firstName: String?
        /// A last name.
        public var lastName: String?

        /// Creates a request.
        public init(provider: String, identity: String, firstName: String? = nil, lastName: String? = nil) {
            self.provider = provider
            self.identity = identity
            self.firstName = firstName
            self.lastName = lastName
        }
    }

    /// How to run a server.
    public struct Configuration: Sendable {
        /// The address to bind: an IPv4 or IPv6 literal (default `127.0.0.1`, loopback only).
        public var host: String
        /// The port; `0` (the default) lets the system choose a free one.
        public var port: UInt16
        /// The first world's settings (seed, clock, OTPLESS merchant).
        public var settings: EmulatorWorld.Settings
        /// The RSA key the backends sign with; `nil` uses the process's sandbox key (generated
        /// once per process, so never the same in two processes).
        public var signingKey: PrivateKey?
        /// Connection limits and timeouts.
        public var limits: ServerLimits
        /// Issues sessions for `POST /_multiauth/sessions`; `nil` answers that route `501`.
        public var sessionIssuer: SessionIssuer?

        /// Creates a configuration; every default is loopback, a free port, seed 0, a manual clock.
        public init(
            host: String = "127.0.0.1", port: UInt16 = 0, settings: EmulatorWorld.Settings = .init(),
            signingKey: PrivateKey? = nil, limits: ServerLimits = ServerLimits(), sessionIssuer: SessionIssuer? = nil
        ) {
            self.host = host
            self.port = port
            self.settings = settings
            self.signingKey = signingKey
            self.limits = limits
            self.sessionIssuer = sessionIssuer
        }
    }

    /// The configuration the server was made with.
    public let configuration: Configuration
    /// The key every world of this server signs with.
    public let signingKey: PrivateKey

    /// The server's mutable fields, only touched inside `state.withLock`.
    private struct State {
        var currentWorld: EmulatorWorld
        var loop: EventLoop?
        var boundPort: UInt16?
        var started = false
    }

    private let state: Locked<State>
    private let waiters = InboxWaiters()

    /// Creates a server and its first world (nothing is bound until ``start()``).
    /// - Throws: `CryptoError` when the sandbox key cannot be generated or the world not made.
    public init(configuration: Configuration = Configuration()) throws {
        self.configuration = configuration
        signingKey = try configuration.signingKey ?? SandboxSigningKeys.rsa()
        state = Locked(
            State(currentWorld: try EmulatorWorld(settings: configuration.settings, signingKey: signingKey)))
    }

    /// The world now served (a reset replaces it).
    public var world: EmulatorWorld { state.withLock { $0.currentWorld } }

    /// The port the server listens on, once started.
    public var port: UInt16? { state.withLock { $0.boundPort } }

    /// `http://<host>:<port>` once started (an IPv6 host in brackets).
    public var baseURL: URL? {
        guard let port else { return nil }
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        return URL(string: "http://\(host):\(port)")
    }

    /// The number of open client connections.
    public var openConnections: Int { state.withLock { $0.loop }?.openConnections ?? 0 }

    /// Binds the address and starts serving.
    /// - Returns: ``baseURL``.
    /// - Throws: ``SandboxServerError`` `.addressInUse` (the port is taken), `.invalidAddress`,
    ///   `.permissionDenied`, `.alreadyStarted`, `.system`.
    @discardableResult
    public func start() throws -> URL {
        try state.withLock { state in
            guard !state.started else { throw SandboxServerError.alreadyStarted }
            state.started = true
        }
        Socket.raiseOpenFileLimit(to: configuration.limits.maximumConnections + 256)
        let (descriptor, port) = try Socket.listen(host: configuration.host, port: configuration.port)
        let router = Router(server: self)
        let loop = try EventLoop(listener: descriptor, limits: configuration.limits) { request in
            await router.handle(request)
        }
        state.withLock { state in
            state.loop = loop
            state.boundPort = port
        }
        loop.start()
        return baseURL!
    }

    /// Stops serving: no new connections, requests in progress get up to `grace` to finish,
    /// then every connection is closed. Returns when the I/O thread has ended; calling it again
    /// (or before ``start()``) returns at once.
    public func stop(grace: Duration = .seconds(5)) async {
        guard let loop = state.withLock({ $0.loop }) else { return }
        waiters.cancelAll()
        loop.requestStop(grace: grace)
        await loop.finished()
    }

    /// ``stop(grace:)`` for a caller that is not async (a signal handler's queue): blocks the
    /// calling thread until the I/O thread has ended.
    public func stopAndWait(grace: Duration = .seconds(5)) {
        guard let loop = state.withLock({ $0.loop }) else { return }
        waiters.cancelAll()
        loop.requestStop(grace: grace)
        loop.waitUntilFinished()
    }

    /// Replaces the world with a new one made with `settings` (the signing key stays):
    /// inbox, flows, sessions, faults, scenarios, fixed codes and request log start empty.
    /// Long-polls waiting on the old inbox end with no message.
    /// - Returns: The new world.
    /// - Throws: `CryptoError` when the world cannot be made (the old one stays).
    @discardableResult
    public func reset(_ settings: EmulatorWorld.Settings) throws -> EmulatorWorld {
        let fresh = try EmulatorWorld(settings: settings, signingKey: signingKey)
        state.withLock { $0.currentWorld = fresh }
        waiters.cancelAll()
        return fresh
    }

    /// The base URL an app uses for `host` on this server: `<baseURL>/<host>`, e.g.
    /// `http://127.0.0.1:40123/app.dynamic.test`; `nil` before ``start()``.
    public func url(forHost host: String) -> URL? {
        baseURL?.appending(path: host)
    }

    /// The long-polls in progress (cancelled on reset and stop).
    var inboxWaiters: InboxWaiters { waiters }
}
