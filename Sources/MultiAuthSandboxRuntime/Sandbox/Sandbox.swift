import Foundation
import MultiAuth
import MultiAuthLocking

/// Hosts emulated provider backends by host name and serves them through an in-process
/// transport (``transport``) or `URLSession` (``SandboxURLProtocol``), with an ``Inbox`` of
/// delivered codes, a ``FaultPlan`` and a request log.
///
/// Every request goes through the same pipeline, whichever way it arrives:
/// 1. cancellation is checked; a host no backend is registered under is a set-up mistake,
///    not a network failure: `AuthError(.configuration)` naming the host and the registered
///    ones (a provider configured for production, or a typo, is caught at once);
/// 2. the request is logged (host, method, path) and counted;
/// 3. the fault plan decides: latency is slept on ``time``'s clock (``clock``, a
///    ``ManualClock``, unless the sandbox runs in real time; cancelling the caller ends the
///    wait with `CancellationError`), then a drop, forced status or rate limit may answer
///    instead of the backend;
/// 4. the backend gets the request's bytes and a ``SandboxContext`` (server time with the
///    clock offset, inbox, seeded random), and its response bytes go back.
///
/// Requests and responses cross as bytes (`HTTPRequest`/`HTTPResponse` carry `Data`; the
/// backend decodes JSON itself), so a provider is exercised exactly as on the wire.
///
/// Deterministic under ``seed``: codes, tokens and random faults come from seeded generators;
/// time only moves when a test advances ``clock``. A sandbox made with
/// ``init(seed:time:)`` runs on that time source instead (e.g. `TimeSource.system` for a
/// live demo); its ``clock`` is then idle and advancing it changes nothing.
///
/// Thread-safe; a `final class` whose host table and log are in one `Locked` state.
public final class Sandbox: Sendable {
    /// The manual clock every latency sleeps on and every backend reads time from, unless the
    /// sandbox was made with ``init(seed:time:)`` (then it is idle).
    public let clock: ManualClock
    /// The seed of ``random`` and of the fault plan's random faults.
    public let seed: UInt64
    /// Where backends deliver codes and links.
    public let inbox: Inbox
    /// The faults applied to requests and deliveries.
    public let faults: FaultPlan
    /// The seeded random source handed to backends.
    public let random: SandboxRandom
    /// One-time codes fixed per destination (test numbers), handed to backends.
    public let fixedCodes = FixedCodes()

    /// The sandbox's mutable fields, only touched inside `state.withLock`.
    private struct State {
        var backends: [String: any SandboxBackend] = [:]
        var log: [SandboxLogEntry] = []
        var urlProtocolID: String?
    }

    private let state = Locked(State())
    private let externalTime: TimeSource?

    /// Creates an empty sandbox.
    /// - Parameters:
    ///   - seed: Fixes every random value the sandbox and its backends produce.
    ///   - clock: The manual clock (default: a new one starting at Unix time 1 700 000 000).
    public init(seed: UInt64 = 0, clock: ManualClock = ManualClock()) {
        self.seed = seed
        self.clock = clock
        self.inbox = Inbox()
        self.faults = FaultPlan(seed: seed)
        self.random = SandboxRandom(seed: seed)
        self.externalTime = nil
    }

    /// Creates an empty sandbox whose latency and backends run on `time` instead of a
    /// ``ManualClock``: e.g. `TimeSource.system` for an interactive demo in real time. Tests
    /// use ``init(seed:clock:)``, which never sleeps in real time.
    /// - Parameters:
    ///   - seed: Fixes every random value the sandbox and its backends produce.
    ///   - time: The time source for latency sleeps and the backends' clocks.
    public init(seed: UInt64 = 0, time: TimeSource) {
        self.seed = seed
        self.clock = ManualClock()
        self.inbox = Inbox()
        self.faults = FaultPlan(seed: seed)
        self.random = SandboxRandom(seed: seed)
        self.externalTime = time
    }

    deinit {
        if let urlProtocolID = state.withLock({ $0.urlProtocolID }) { SandboxURLProtocol.unregister(id: urlProtocolID) }
    }

    /// The time source to give an `AuthClient` using this sandbox: ``clock`` for sleeping and
    /// its wall clock (no server offset), or the time source of ``init(seed:time:)``.
    public var time: TimeSource { externalTime ?? clock.timeSource }

    /// The in-process transport serving this sandbox's backends.
    public var transport: SandboxTransport { SandboxTransport(sandbox: self) }

    /// Hosts `backend` under `host` (e.g. `"ref.sandbox.test"`), replacing any backend there.
    public func register(_ backend: any SandboxBackend, host: String) {
        state.withLock { $0.backends[host.lowercased()] = backend }
    }

    /// The backend registered under `host`, if any (test support: a harness that wraps or
    /// inspects the backends it installed).
    package func backend(forHost host: String) -> (any SandboxBackend)? {
        state.withLock { $0.backends[host.lowercased()] }
    }

    /// The hosts with a backend, sorted.
    public var hosts: [String] {
        state.withLock { $0.backends.keys.sorted() }
    }

    /// Every request that reached the sandbox, in arrival order.
    public var requestLog: [SandboxLogEntry] {
        state.withLock { $0.log }
    }

    /// The number of requests that reached the sandbox (dropped, faulted and cancelled ones
    /// included): assert `0` for "no network call".
    public var requestCount: Int {
        state.withLock { $0.log.count }
    }

    /// The number of logged requests to `host` (any host when `nil`) whose path starts with
    /// `pathPrefix`.
    public func requestCount(host: String? = nil, pathPrefix: String = "") -> Int {
        state.withLock {
            $0.log.filter { (host == nil || $0.host == host?.lowercased()) && $0.path.hasPrefix(pathPrefix) }.count
        }
    }

    /// Empties the request log (the count restarts at 0). Call it while no request is in
    /// flight: a request that finishes afterwards would record its outcome on the new log.
    public func resetLog() {
        state.withLock { $0.log.removeAll() }
    }

    /// Serves one request through the pipeline described on ``Sandbox``.
    /// - Returns: The backend's or the fault plan's response.
    /// - Throws: `AuthError` `.configuration` (no backend is registered under the host: the
    ///   message names the host and the registered ones), `.network` (dropped connection), or
    ///   `CancellationError`.
    public func serve(_ request: HTTPRequest) async throws -> HTTPResponse {
        try Task.checkCancellation()
        let host = request.url.host?.lowercased() ?? ""
        let path = request.url.path.isEmpty ? "/" : request.url.path
        let time = self.time
        let now = time.now
        let (index, backend) = logRequest(
            host: host, method: request.method.rawValue, path: path, redactedPath: request.redactedPath, at: now)
        // Errors name the request by its redacted rendering (no secret path segment, query,
        // header or body): they travel into AuthError messages and SignOutOutcome.
        guard let backend else {
            finish(index, .dropped)
            throw Self.unknownHost(host, registered: hosts)
        }
        let decision = faults.evaluate(host: host, path: path, now: now)
        if decision.latency > .zero {
            do { try await time.sleep(for: decision.latency) } catch {
                finish(index, .cancelled)
                throw CancellationError()
            }
        }
        switch decision.outcome {
        case .drop:
            finish(index, .dropped)
            throw AuthError(.network, "\(request): connection dropped (sandbox fault)")
        case .respond(let response):
            finish(index, .response(status: response.status))
            return response
        case .pass:
            break
        }
        // Only bytes cross: the backend gets a fresh copy of the request body.
        let copy = HTTPRequest(
            method: request.method, url: request.url, headers: request.headers, body: request.body.map { Data($0) },
            timeout: request.timeout)
        let response: HTTPResponse
        do {
            response = try await backend.handle(copy, context: context(for: host))
        } catch is CancellationError {
            finish(index, .cancelled)
            throw CancellationError()
        } catch let error as AuthError where error.code == .network {
            finish(index, .dropped)
            throw AuthError(.network, "\(request): connection dropped (backend)")
        } catch {
            let failure = HTTPResponse(
                status: 500, headers: ["Content-Type": "application/json"],
                body: Data(#"{"code":"internal_error"}"#.utf8))
            finish(index, .response(status: 500))
            return failure
        }
        finish(index, .response(status: response.status))
        if decision.responseLatency > .zero {
            // The backend has served the request; only its answer is late (or lost if cancelled).
            do { try await time.sleep(for: decision.responseLatency) } catch { throw CancellationError() }
        }
        return HTTPResponse(status: response.status, headers: response.headers, body: Data(response.body))
    }

    /// The context handed to the backend of `host`: server time shifted by the host's offset.
    public func context(for host: String) -> SandboxContext {
        let base = self.time
        let offset = faults.serverClockOffset(for: host).timeInterval
        let time = TimeSource(clock: base.clock, now: { base.now.addingTimeInterval(offset) })
        return SandboxContext(
            host: host, time: time, inbox: inbox, random: random, faults: faults, fixedCodes: fixedCodes)
    }

    /// The error for a request to `host` when no backend is registered under it: a set-up
    /// mistake (a production host name, a typo, a backend not installed), so `.configuration`
    /// with both the host and the registered ones in the message.
    static func unknownHost(_ host: String, registered: [String]) -> AuthError {
        let known = registered.isEmpty ? "none" : registered.joined(separator: ", ")
        return AuthError(
            .configuration,
            "no sandbox backend is registered for host '\(host)'; registered hosts: \(known). "
                + "Point the provider at a sandbox configuration (e.g. its .sandbox() configuration) or register a backend for this host"
        )
    }

    private func logRequest(host: String, method: String, path: String, redactedPath: String, at now: Date)
        -> (Int, (any SandboxBackend)?)
    {
        state.withLock { state in
            let entry = SandboxLogEntry(
                index: state.log.count + 1, host: host, method: method, path: path, receivedAt: now, outcome: .pending,
                redactedPath: redactedPath)
            state.log.append(entry)
            return (entry.index, state.backends[host])
        }
    }

    private func finish(_ index: Int, _ outcome: SandboxLogEntry.Outcome) {
        state.withLock { state in
            if index >= 1, index <= state.log.count { state.log[index - 1].outcome = outcome }
        }
    }

    /// The id under which ``SandboxURLProtocol`` finds this sandbox (registered on first use).
    var urlProtocolRegistration: String {
        let (id, isNew) = state.withLock { state in
            if let urlProtocolID = state.urlProtocolID { return (urlProtocolID, false) }
            let id = UUID().uuidString
            state.urlProtocolID = id
            return (id, true)
        }
        if isNew { SandboxURLProtocol.register(self, id: id) }
        return id
    }
}
