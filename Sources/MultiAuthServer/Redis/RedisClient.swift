import Dispatch
import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthLocking

/// A small Redis client (RESP2 over POSIX sockets) for the shared stores: a bounded connection
/// pool, timeouts on every wait, `AUTH`/`SELECT`, reconnection with exponential back-off, and
/// pipelining only where a caller needs two commands in one round trip (a write and its
/// `WAIT`). Docs/Server.md, "Redis".
///
/// Every failure is a ``/MultiAuthCrypto/StoreUnavailableError``: the stores built on the client
/// fail closed. Everything Redis sends is input too: replies are bounded (sizes, nesting),
/// numbers checked, and a connection that sends anything unexpected is closed (Docs/Server.md,
/// "Redis answers are input too").
///
/// **Reconnecting.** After a failed connection attempt the client waits `reconnectBackoff`
/// (doubling per failure, at most `maximumReconnectBackoff`, with jitter) before trying again;
/// meanwhile calls that need a new connection fail at once with `unreachable` and a
/// `retryAfter`, instead of piling up on a dead server. An idle pooled connection is checked
/// (readable means closed or out of step) before reuse. A command is never resent after its
/// bytes may have reached the server: its outcome is unknown, so the caller gets
/// `connectionLost` or `timedOut`.
///
/// Concurrency: `Sendable`. Blocking socket work runs on the client's own dispatch queue, never
/// on the cooperative thread pool; at most `poolSize` commands run at once and further callers
/// wait their turn (cancellable while waiting). One `commandTimeout` bounds a call from its
/// start: the time it waits for a pooled connection counts against it, so a stalled server
/// makes each caller wait one timeout, never one per caller ahead of it in the queue (opening a
/// new connection adds at most `connectTimeout`). A command in flight is not interrupted by
/// cancellation.
public final class RedisClient: Sendable {
    /// The configuration (the password is never printed).
    public let configuration: RedisConfiguration
    package let limits: RESPLimits
    private let queue = DispatchQueue(label: "multiauth.redis", attributes: .concurrent)
    private let clock: ElapsedClock
    /// The pool's state; read and changed only inside `withLock`.
    private let pool = Locked(Pool())

    /// A caller queued for a connection, and the timer that ends its wait.
    private struct Waiter {
        var id: UInt64
        var continuation: CheckedContinuation<RedisConnection?, any Error>
        var timer: Task<Void, Never>?
    }

    /// What ``acquire(timeout:)`` found, acted on once the pool's lock is released.
    private enum Acquisition {
        /// The client was closed.
        case closed
        /// A healthy idle connection, or `nil`: a slot is reserved to open one.
        case leased(RedisConnection?)
        /// Every slot is busy and the queue is full (or the caller was cancelled).
        case refused
        /// The caller waits in the queue.
        case queued
    }

    private struct Pool {
        var idle: [RedisConnection] = []
        /// Connections leased or being opened.
        var leased = 0
        var waiters: [Waiter] = []
        var nextWaiter: UInt64 = 0
        var failures = 0
        var retryAt: Duration?
        var closed = false
        var jitter = UInt64(0x9E37_79B9_7F4A_7C15)
        var connectionsOpened = 0
    }

    /// Creates a client; no connection is made until the first command.
    ///
    /// - Parameter configuration: where to connect and the timeouts.
    public convenience init(configuration: RedisConfiguration) {
        self.init(configuration: configuration, clock: ContinuousClock())
    }

    /// Creates a client whose reconnection back-off runs on `clock` (a test seam).
    package init<C: Clock>(configuration: RedisConfiguration, clock: C, limits: RESPLimits = RESPLimits())
    where C.Duration == Duration {
        var configuration = configuration
        configuration.poolSize = max(1, configuration.poolSize)
        configuration.maximumWaiters = max(0, configuration.maximumWaiters)
        self.configuration = configuration
        self.clock = ElapsedClock(clock)
        self.limits = limits
    }

    deinit {
        for connection in pool.withLock({ $0.idle }) { connection.close() }
    }

    /// Sends `PING` and checks the `PONG`.
    ///
    /// - Throws: ``/MultiAuthCrypto/StoreUnavailableError``; `CancellationError` while waiting
    ///   for a connection.
    public func ping() async throws {
        let reply = try await send([["PING"]])
        guard reply == [.simpleString("PONG")] else {
            throw StoreUnavailableError(.malformedReply, "Redis did not answer PING with PONG")
        }
    }

    /// Closes the idle connections; every later call throws `closed`. Connections in use close
    /// when their command ends.
    public func close() {
        let idle = pool.withLock { pool in
            pool.closed = true
            defer { pool.idle = [] }
            return pool.idle
        }
        for connection in idle { connection.close() }
        let waiters = pool.withLock { pool in
            defer { pool.waiters = [] }
            return pool.waiters
        }
        for waiter in waiters {
            waiter.timer?.cancel()
            waiter.continuation.resume(throwing: StoreUnavailableError(.closed, "the Redis client was closed"))
        }
    }

    /// Connections opened so far (diagnostics and tests).
    package var connectionsOpened: Int { pool.withLock { $0.connectionsOpened } }
    /// Connections leased or being opened now (tests).
    package var leasedConnections: Int { pool.withLock { $0.leased } }
    /// Callers waiting for a connection now (tests).
    package var waitingCallers: Int { pool.withLock { $0.waiters.count } }

    /// Sends `commands` in one round trip (pipelined when more than one) and returns one reply
    /// each. Error replies are returned, not thrown.
    package func send(_ commands: [[String]]) async throws -> [RESPValue] {
        try await send(bytes: commands.map { $0.map { Array($0.utf8) } })
    }

    /// ``send(_:)`` with binary arguments.
    ///
    /// On a pooled connection the commands are written by the calling task (a non-blocking
    /// write of a few hundred bytes, which the kernel takes at once), so the hand-off to the I/O
    /// queue overlaps the server's work; only the wait for the replies blocks, on the queue. A
    /// new connection is opened, written and read on the queue.
    package func send(bytes commands: [[[UInt8]]]) async throws -> [RESPValue] {
        // One deadline for the whole call: waiting for a connection counts against it.
        let deadline = RedisSocket.deadline(after: configuration.commandTimeout)
        let leased = try await acquire(timeout: configuration.commandTimeout)
        if let leased {
            do {
                try leased.write(commands, deadline: deadline)
            } catch {
                release(leased, reusable: false)
                throw error
            }
        }
        return try await withCheckedThrowingContinuation { continuation in
            queue.async { [self] in
                var connection = leased
                var readDeadline = deadline  // one timeout for the whole call
                do {
                    if connection == nil {
                        // Opening the connection is bounded by `connectTimeout` on its own and
                        // does not eat into the command's time.
                        let opening = RedisSocket.monotonicNanoseconds()
                        connection = try self.connect()
                        readDeadline = deadline &+ (RedisSocket.monotonicNanoseconds() &- opening)
                        try connection!.write(commands, deadline: readDeadline)
                    }
                    let replies = try connection!.readReplies(commands.count, deadline: readDeadline)
                    release(connection, reusable: true)
                    continuation.resume(returning: replies)
                } catch {
                    release(connection, reusable: false)
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    // MARK: Pool

    /// A healthy idle connection, or `nil` meaning "a slot is reserved: open a connection".
    ///
    /// A caller that has to queue waits at most `timeout` (on the client's clock), then fails
    /// with `timedOut`.
    private func acquire(timeout: Duration) async throws -> RedisConnection? {
        let id: UInt64 = pool.withLock { pool in
            pool.nextWaiter += 1
            return pool.nextWaiter
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<RedisConnection?, any Error>) in
                let (outcome, stale) = pool.withLock { pool -> (Acquisition, [RedisConnection]) in
                    if pool.closed { return (.closed, []) }
                    var stale: [RedisConnection] = []
                    while let connection = pool.idle.popLast() {
                        if connection.isReusable {
                            pool.leased += 1
                            return (.leased(connection), stale)
                        }
                        stale.append(connection)
                    }
                    if pool.leased < configuration.poolSize {
                        pool.leased += 1
                        return (.leased(nil), stale)
                    }
                    guard pool.waiters.count < configuration.maximumWaiters, !Task.isCancelled else {
                        return (.refused, stale)
                    }
                    // The wait ends at `timeout` on the client's clock unless a slot comes first.
                    let timer = Task { [self, clock] in
                        guard (try? await clock.sleep(timeout)) != nil else { return }  // cancelled: served
                        timeOutWaiter(id)
                    }
                    pool.waiters.append(Waiter(id: id, continuation: continuation, timer: timer))
                    return (.queued, stale)
                }
                for old in stale { old.close() }
                switch outcome {
                case .closed:
                    continuation.resume(throwing: StoreUnavailableError(.closed, "the Redis client was closed"))
                case .leased(let connection):
                    continuation.resume(returning: connection)
                case .refused:
                    continuation.resume(
                        throwing: Task.isCancelled
                            ? CancellationError()
                            : StoreUnavailableError(
                                .overloaded,
                                "all \(configuration.poolSize) Redis connections are busy and \(configuration.maximumWaiters) callers wait"
                            ))
                case .queued:
                    break
                }
            }
        } onCancel: {
            removeWaiter(id)?.resume(throwing: CancellationError())
        }
    }

    /// Takes waiter `id` out of the queue (and stops its timer), if it is still there.
    private func removeWaiter(_ id: UInt64) -> CheckedContinuation<RedisConnection?, any Error>? {
        let waiter = pool.withLock { pool -> Waiter? in
            guard let index = pool.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return pool.waiters.remove(at: index)
        }
        waiter?.timer?.cancel()
        return waiter?.continuation
    }

    private func timeOutWaiter(_ id: UInt64) {
        removeWaiter(id)?.resume(
            throwing: StoreUnavailableError(
                .timedOut,
                "no Redis connection became free within \(configuration.commandTimeout): all \(configuration.poolSize) are busy"
            ))
    }

    /// Returns a leased slot: a reusable connection goes to the next waiter or the idle list;
    /// otherwise it is closed and the slot passes on (the waiter opens a new connection).
    private func release(_ connection: RedisConnection?, reusable: Bool) {
        let keep = reusable && connection?.isReusable == true
        if !keep { connection?.close() }
        // The next waiter, which takes the slot over; else whether the client was closed.
        let (next, closed) = pool.withLock { pool -> (Waiter?, Bool) in
            if !pool.waiters.isEmpty, !pool.closed {
                return (pool.waiters.removeFirst(), false)
            }
            pool.leased -= 1
            if keep, let connection, !pool.closed {
                pool.idle.append(connection)
                return (nil, false)
            }
            return (nil, pool.closed)
        }
        if let next {
            next.timer?.cancel()
            next.continuation.resume(returning: keep ? connection : nil)
            return
        }
        if closed { connection?.close() }
    }

    /// Opens a connection, honouring and updating the back-off.
    private func connect() throws -> RedisConnection {
        let now = clock.elapsed()
        if let wait: Duration = pool.withLock({ pool in
            guard let retryAt = pool.retryAt, now < retryAt else { return nil }
            return retryAt - now
        }) {
            throw StoreUnavailableError(
                .unreachable, "Redis at \(configuration.host):\(configuration.port) is not reachable; backing off",
                retryAfter: wait)
        }
        do {
            let connection = try RedisConnection.open(configuration, limits: limits)
            pool.withLock { pool in
                pool.failures = 0
                pool.retryAt = nil
                pool.connectionsOpened += 1
            }
            return connection
        } catch let error as StoreUnavailableError {
            let pause: Duration = pool.withLock { pool in
                pool.failures += 1
                var pause = configuration.reconnectBackoff
                for _ in 1..<min(pool.failures, 30) where pause < configuration.maximumReconnectBackoff {
                    pause = pause * 2
                }
                pause = min(pause, configuration.maximumReconnectBackoff)
                // Up to 25 % less, so a fleet of servers does not reconnect in lockstep.
                pool.jitter = pool.jitter &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let fraction = Double(pool.jitter >> 11) / Double(1 << 53)
                pause = pause * (1 - 0.25 * fraction)
                pool.retryAt = clock.elapsed() + pause
                return pause
            }
            throw StoreUnavailableError(error.cause, error.message, retryAfter: pause)
        }
    }
}
