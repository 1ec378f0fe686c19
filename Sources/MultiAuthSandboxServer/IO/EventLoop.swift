import Foundation
import MultiAuthLocking

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The server's I/O: one thread running a `poll(2)` loop over the listening socket, a wake-up
/// pipe and every connection (all non-blocking), parsing requests incrementally and handing
/// each complete one to the handler in a task; the task's response comes back through a
/// queue and the pipe.
///
/// Why one poll thread: a slow or hostile client costs a buffer and a slot in the poll set,
/// never a thread, so many idle or trickling connections cannot starve the others (Docs/Emulator.md,
/// "Limits"). Every limit of ``ServerLimits`` is enforced here; timeouts are measured on the
/// `ContinuousClock` (wall-clock time belongs to this layer only; the emulated backends keep
/// their injected clock).
///
/// Connection state is touched only by the loop thread; the handler tasks talk to it through
/// ``complete(_:_:)``, which takes the lock of `state` and writes to the pipe.
// @unchecked: the connection table, ID counter and read buffer are plain vars owned by the loop thread (no lock).
final class EventLoop: @unchecked Sendable {
    typealias Handler = @Sendable (ServerRequest) async -> ServerResponse

    private enum Phase {
        case reading
        case handling(Task<Void, Never>)
        case writing
        case draining(until: ContinuousClock.Instant, discarded: Int)
    }

    private final class Connection {
        let id: UInt64
        let descriptor: Int32
        var parser: RequestParser
        var phase: Phase = .reading
        var output: [UInt8] = []
        var outputOffset = 0
        var closeAfterWrite = false
        var headRequest = false
        var keepAlive = true
        var requestStart: ContinuousClock.Instant?
        var lastActivity: ContinuousClock.Instant
        var writeStart: ContinuousClock.Instant?

        init(id: UInt64, descriptor: Int32, limits: ServerLimits, now: ContinuousClock.Instant) {
            self.id = id
            self.descriptor = descriptor
            self.parser = RequestParser(limits: limits)
            self.lastActivity = now
        }
    }

    private struct Completion {
        let id: UInt64
        let response: ServerResponse
    }

    private let listener: Int32
    private let limits: ServerLimits
    private let handler: Handler
    private let clock = ContinuousClock()
    private let wakeRead: Int32
    private let wakeWrite: Int32

    /// What handler tasks and callers share with the loop thread, only touched inside
    /// `state.withLock`.
    private struct State {
        var completions: [Completion] = []
        var stopRequested = false
        var stopGrace: Duration = .seconds(5)
        var openCount = 0
        var finishWaiters: [CheckedContinuation<Void, Never>] = []
        var finished = false
    }

    private let state = Locked(State())
    /// Signalled once when the loop has ended; each ``waitUntilFinished()`` waits for it and
    /// passes it on.
    private let finishedSignal = DispatchSemaphore(value: 0)

    // Loop-thread state.
    private var connections: [UInt64: Connection] = [:]
    private var nextID: UInt64 = 0
    private var scratch = [UInt8](repeating: 0, count: 64 * 1024)

    /// Creates a loop over `listener` (a listening, non-blocking socket it then owns).
    /// - Throws: ``SandboxServerError`` `.system` when the wake-up pipe cannot be made.
    init(listener: Int32, limits: ServerLimits, handler: @escaping Handler) throws {
        self.listener = listener
        self.limits = limits
        self.handler = handler
        var pair: [Int32] = [0, 0]
        guard pipe(&pair) == 0 else { throw SandboxServerError.system("pipe", errno) }
        wakeRead = pair[0]
        wakeWrite = pair[1]
        try Socket.setNonBlocking(wakeRead)
        try Socket.setNonBlocking(wakeWrite)
    }

    /// Starts the loop thread.
    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "MultiAuthSandboxServer I/O"
        thread.start()
    }

    /// The number of open connections (for the inspector and tests).
    var openConnections: Int { state.withLock { $0.openCount } }

    /// Asks the loop to stop: it closes the listener at once, lets requests being handled
    /// finish and their responses be written for up to `grace`, then closes every connection
    /// and ends. Returns at once; ``waitUntilFinished()`` waits.
    func requestStop(grace: Duration) {
        state.withLock { state in
            state.stopRequested = true
            state.stopGrace = grace
        }
        wake()
    }

    /// Waits (blocking the calling thread) until the loop has ended.
    func waitUntilFinished() {
        finishedSignal.wait()
        finishedSignal.signal()
    }

    /// Waits (suspending) until the loop has ended.
    func finished() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state in
                if state.finished { return true }
                state.finishWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// Hands the response to request of connection `id` back to the loop (from any thread).
    private func complete(_ id: UInt64, _ response: ServerResponse) {
        state.withLock { $0.completions.append(Completion(id: id, response: response)) }
        wake()
    }

    private func wake() {
        var byte: UInt8 = 1
        _ = systemWrite(wakeWrite, &byte, 1)
    }

    // MARK: The loop

    private func run() {
        var stopDeadline: ContinuousClock.Instant?
        var listening = true
        while true {
            let (stopping, grace) = state.withLock { ($0.stopRequested, $0.stopGrace) }
            if stopping && stopDeadline == nil {
                stopDeadline = clock.now.advanced(by: grace)
                if listening {
                    close(listener)
                    listening = false
                }
                closeIdleConnections()
            }
            if let stopDeadline, connections.isEmpty || clock.now >= stopDeadline { break }

            let order = Array(connections.values)
            var descriptors = pollDescriptors(for: order, listening: listening)
            let timeout = pollTimeout(stopDeadline: stopDeadline)
            let ready = poll(&descriptors, nfds_t(descriptors.count), timeout)
            if ready < 0 && errno != EINTR { break }

            handleReadiness(descriptors, order: order, listening: listening, stopping: stopping)
            expireDeadlines()
        }
        for connection in Array(connections.values) { closeConnection(connection) }
        if listening { close(listener) }
        close(wakeRead)
        close(wakeWrite)
        let waiters = state.withLock { state in
            state.finished = true
            let list = state.finishWaiters
            state.finishWaiters = []
            return list
        }
        finishedSignal.signal()
        for waiter in waiters { waiter.resume() }
    }

    /// Stopping: idle connections go at once; the others finish their exchange.
    private func closeIdleConnections() {
        for connection in Array(connections.values) {
            if case .reading = connection.phase, !connection.parser.isInsideRequest, connection.output.isEmpty {
                closeConnection(connection)
            } else {
                connection.keepAlive = false
            }
        }
    }

    /// What to poll: the wake pipe, the listener (while listening), then each connection of
    /// `order`, for the events its phase waits for.
    private func pollDescriptors(for order: [Connection], listening: Bool) -> [pollfd] {
        var descriptors: [pollfd] = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
        if listening { descriptors.append(pollfd(fd: listener, events: Int16(POLLIN), revents: 0)) }
        for connection in order {
            var events: Int16 = 0
            switch connection.phase {
            case .reading, .draining: events = Int16(POLLIN)
            case .writing: events = Int16(POLLOUT)
            case .handling: events = 0
            }
            if !connection.output.isEmpty { events |= Int16(POLLOUT) }
            descriptors.append(pollfd(fd: connection.descriptor, events: events, revents: 0))
        }
        return descriptors
    }

    /// Acts on what `poll` reported: wake-ups and completions, new connections, then each
    /// connection of `order` (the order ``pollDescriptors(for:listening:)`` listed them in).
    private func handleReadiness(_ descriptors: [pollfd], order: [Connection], listening: Bool, stopping: Bool) {
        if descriptors[0].revents != 0 { drainWakePipe() }
        applyCompletions()
        var index = 1
        if listening {
            if descriptors[1].revents & Int16(POLLIN) != 0 { acceptConnections(stopping: stopping) }
            index = 2
        }
        for connection in order {
            let revents = descriptors[index].revents
            index += 1
            guard connections[connection.id] != nil, revents != 0 else { continue }
            if revents & Int16(POLLNVAL) != 0 {
                closeConnection(connection)
                continue
            }
            if revents & Int16(POLLOUT) != 0 { flush(connection) }
            guard connections[connection.id] != nil else { continue }
            if revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                switch connection.phase {
                case .reading: read(connection)
                case .draining: drain(connection)
                case .writing, .handling:
                    if revents & Int16(POLLERR) != 0 { closeConnection(connection) }
                }
            }
        }
    }

    private func pollTimeout(stopDeadline: ContinuousClock.Instant?) -> Int32 {
        let now = clock.now
        var nearest = now.advanced(by: .seconds(1))
        if let stopDeadline { nearest = min(nearest, stopDeadline) }
        for connection in connections.values {
            if let deadline = deadline(of: connection) { nearest = min(nearest, deadline) }
        }
        let wait = now.duration(to: nearest)
        if wait <= .zero { return 0 }
        let milliseconds = wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000
        return Int32(clamping: milliseconds + 1)
    }

    private func deadline(of connection: Connection) -> ContinuousClock.Instant? {
        switch connection.phase {
        case .reading:
            if !connection.output.isEmpty, let writeStart = connection.writeStart {
                return writeStart.advanced(by: limits.writeTimeout)
            }
            if let start = connection.requestStart {
                return start.advanced(by: connection.parser.hasHead ? limits.requestTimeout : limits.headerTimeout)
            }
            return connection.lastActivity.advanced(by: limits.idleTimeout)
        case .writing:
            return (connection.writeStart ?? connection.lastActivity).advanced(by: limits.writeTimeout)
        case .draining(let until, _):
            return until
        case .handling:
            return nil
        }
    }

    private func expireDeadlines() {
        let now = clock.now
        for connection in Array(connections.values) {
            guard let deadline = deadline(of: connection), deadline <= now else { continue }
            switch connection.phase {
            case .reading where connection.requestStart != nil && connection.output.isEmpty:
                let reason =
                    connection.parser.hasHead
                    ? "the request body did not arrive within \(limits.requestTimeout)"
                    : "the header section did not arrive within \(limits.headerTimeout)"
                respond(connection, .error(408, reason), close: true)
            default:
                closeConnection(connection)
            }
        }
    }

    private func drainWakePipe() {
        var buffer = [UInt8](repeating: 0, count: 256)
        while systemRead(wakeRead, &buffer, buffer.count) > 0 {}
    }

    private func applyCompletions() {
        let ready = state.withLock { state in
            let list = state.completions
            state.completions = []
            return list
        }
        for completion in ready {
            guard let connection = connections[completion.id], case .handling = connection.phase else { continue }
            if completion.response.isDrop {
                closeConnection(connection)
                continue
            }
            respond(connection, completion.response, close: !connection.keepAlive)
        }
    }

    private func acceptConnections(stopping: Bool) {
        for _ in 0..<256 {
            guard let descriptor = Socket.accept(listener) else { return }
            if stopping || connections.count >= limits.maximumConnections {
                let refusal = ServerResponse.error(
                    503, stopping ? "the server is stopping" : "too many open connections; try again",
                    headers: [("Retry-After", "1")]
                ).bytes(keepAlive: false)
                _ = refusal.withUnsafeBytes { Socket.send(descriptor, $0) }
                close(descriptor)
                continue
            }
            nextID += 1
            let connection = Connection(id: nextID, descriptor: descriptor, limits: limits, now: clock.now)
            connections[connection.id] = connection
            state.withLock { $0.openCount = connections.count }
        }
    }

    private func read(_ connection: Connection) {
        var total = 0
        while total < 256 * 1024 {
            let outcome = scratch.withUnsafeMutableBytes { Socket.receive(connection.descriptor, into: $0) }
            switch outcome {
            case .bytes(let count):
                total += count
                if connection.requestStart == nil { connection.requestStart = clock.now }
                connection.lastActivity = clock.now
                scratch.withUnsafeBytes { connection.parser.append(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
                if count < scratch.count { break }
                continue
            case .wouldBlock:
                break
            case .closed:
                closeConnection(connection)
                return
            }
            break
        }
        process(connection)
    }

    /// Takes events from the connection's parser until it needs more bytes or a request is
    /// being handled.
    private func process(_ connection: Connection) {
        while connections[connection.id] != nil, case .reading = connection.phase {
            switch connection.parser.next() {
            case .needMore:
                if !connection.parser.isInsideRequest { connection.requestStart = nil }
                return
            case .sendContinue:
                queue(connection, Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
            case .invalid(let status, let reason):
                respond(connection, .error(status, reason), close: true)
                return
            case .request(let request):
                connection.requestStart = nil
                connection.headRequest = request.method == "HEAD"
                connection.keepAlive = connection.keepAlive && request.keepAlive
                let id = connection.id
                let handler = self.handler
                // Owned by the connection: cancelled when it closes or the server stops; ends
                // when the handler returns its response.
                let task = Task { [weak self] in
                    let response = await handler(request)
                    self?.complete(id, response)
                }
                connection.phase = .handling(task)
                return
            }
        }
    }

    private func queue(_ connection: Connection, _ bytes: [UInt8]) {
        if connection.output.isEmpty { connection.writeStart = clock.now }
        connection.output += bytes
        flush(connection)
    }

    private func respond(_ connection: Connection, _ response: ServerResponse, close: Bool) {
        connection.closeAfterWrite = close || !connection.keepAlive
        connection.phase = .writing
        queue(connection, response.bytes(keepAlive: !connection.closeAfterWrite, headRequest: connection.headRequest))
    }

    private func flush(_ connection: Connection) {
        while connection.outputOffset < connection.output.count {
            let outcome = connection.output.withUnsafeBytes {
                Socket.send(connection.descriptor, UnsafeRawBufferPointer(rebasing: $0[connection.outputOffset...]))
            }
            switch outcome {
            case .bytes(let count): connection.outputOffset += count
            case .wouldBlock: return
            case .closed:
                closeConnection(connection)
                return
            }
        }
        connection.output.removeAll(keepingCapacity: true)
        connection.outputOffset = 0
        connection.writeStart = nil
        guard case .writing = connection.phase else { return }
        if connection.closeAfterWrite {
            // A lingering close: stop writing, read and drop what the client still sends for a
            // moment, so the kernel does not reset the connection before the client read the
            // response (RFC 9112 §9.6).
            shutdown(connection.descriptor, Int32(SHUT_WR))
            connection.phase = .draining(until: clock.now.advanced(by: .seconds(2)), discarded: 0)
            return
        }
        connection.phase = .reading
        connection.lastActivity = clock.now
        process(connection)
    }

    private func drain(_ connection: Connection) {
        guard case .draining(let until, var discarded) = connection.phase else { return }
        while discarded < 1024 * 1024 {
            let outcome = scratch.withUnsafeMutableBytes { Socket.receive(connection.descriptor, into: $0) }
            switch outcome {
            case .bytes(let count): discarded += count
            case .wouldBlock:
                connection.phase = .draining(until: until, discarded: discarded)
                return
            case .closed:
                closeConnection(connection)
                return
            }
        }
        closeConnection(connection)
    }

    private func closeConnection(_ connection: Connection) {
        guard connections.removeValue(forKey: connection.id) != nil else { return }
        if case .handling(let task) = connection.phase { task.cancel() }
        close(connection.descriptor)
        state.withLock { $0.openCount = connections.count }
    }
}

#if canImport(Darwin)
private let systemRead = Darwin.read
private let systemWrite = Darwin.write
#elseif canImport(Musl)
private let systemRead = Musl.read
private let systemWrite = Musl.write
#else
private let systemRead = Glibc.read
private let systemWrite = Glibc.write
#endif
