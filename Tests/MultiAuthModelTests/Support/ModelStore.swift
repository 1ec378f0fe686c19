import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthSandbox

/// The reference model of the session store, and the store the clients under test share.
///
/// Every operation of every view is serialized (an async FIFO lock held across the wrapped
/// store's call), so each one sees and changes the store atomically from the model's point of
/// view. Before each operation the wrapped store must hold exactly what the model says (the
/// last legitimately written session); each write is judged as it happens:
/// - a session whose refresh token came from a sign-in (the backend's lineage) is a
///   legitimate write;
/// - a session whose refresh token came from rotating token `P` is legitimate only if the
///   store holds the session with refresh token `P` at that moment: otherwise a stale refresh
///   result landed;
/// - a removal is legitimate while a user sign-out is in progress, or when the server no
///   longer accepts the removed session's refresh token (a revocation); removing a session the
///   server still accepts, outside a sign-out, is a violation.
///
/// The views route to one or more wrapped stores (two `FileSessionStore` instances on one
/// directory, like an app and its extension), so the wrapped stores must agree with each other.
///
/// Store faults: a write armed to fail throws before it reaches the wrapped store (a failed write
/// changes nothing); a slow save sleeps on the clock before it queues. Every write is also
/// judged against what the provider answered: a session the provider rewrote to name another
/// user or provider (``ModelHooks``) is never written, and a removal outside a sign-out of a
/// session whose refresh token was rotated into one a client received and the server still
/// accepts logs the user out by mistake (rule L9: the client holds the newer session).
actor ModelStore {
    /// One write, for the final checks.
    struct Write {
        let seq: Int
        let session: AuthSession?
        /// What the store held before.
        let before: AuthSession?
        /// The client whose view wrote it, and its event sequence number at that moment.
        let client: Int
        let eventSequence: UInt64
    }

    /// The error an armed store fault throws.
    struct Fault: Error, CustomStringConvertible {
        let write: StoreWrite
        var description: String { "store fault: \(write) failed" }
    }

    let provider: AuthProviderID
    private let stores: [any SessionStore]
    private let backend: ReferenceBackend
    private var busy = false
    private var queue: [CheckedContinuation<Void, Never>] = []
    private var model: AuthSession?
    private var history: [(seq: Int, session: AuthSession?)] = [(0, nil)]
    /// The number of writes so far (the model's clock).
    private(set) var seq = 0
    private(set) var violations: [String] = []
    /// Observations that are not violations (limitations worth counting).
    private(set) var notes: [String] = []
    private var signOutsInFlight = 0
    private var clientSignOutsBegun: [Int: Int] = [:]
    /// The last write, when it was a `save`, and the client that made it.
    private var lastSave: (client: Int, session: AuthSession)?
    /// Removals of a live session, outside a sign-out, that look like an F7 withdrawal: the
    /// same client removed the session its own save wrote just before, after a sign-out of
    /// that client began. Legitimate only if that client never announced the session (checked
    /// at the end against its events).
    private(set) var withdrawals: [(client: Int, session: AuthSession, violation: String)] = []
    /// Removals of a session whose refresh token the server no longer accepts: the only ones a
    /// revocation may make.
    private(set) var revocationRemovals = 0
    /// The same, per client that made the removal (each publishes its own `sessionExpired`).
    private(set) var revocationRemovalsByClient: [Int: Int] = [:]
    private let hooks: ModelHooks
    private let time: TimeSource
    private var failures: [Int: [StoreWrite: Int]] = [:]
    private var slowSaves: Set<Int> = []
    private var events: [AuthEventSource] = []
    /// Every write, in order.
    private(set) var writes: [Write] = []
    /// How many armed store faults fired.
    private(set) var faultsFired = 0
    /// What fired, for the coverage counts.
    private(set) var faultLog: [String] = []

    init(
        provider: AuthProviderID, stores: [any SessionStore], backend: ReferenceBackend, hooks: ModelHooks,
        time: TimeSource
    ) {
        self.provider = provider
        self.stores = stores
        self.backend = backend
        self.hooks = hooks
        self.time = time
    }

    /// The store a client uses: view `index` routes to wrapped store `index % count`.
    nonisolated func view(_ index: Int) -> View { View(model: self, index: index % stores.count, client: index) }

    /// The clients' event sources, so each write notes the writer's event sequence number.
    func attach(_ events: [AuthEventSource]) { self.events = events }

    /// Makes the next `count` writes of kind `write` by client `client` throw.
    func failNext(_ write: StoreWrite, client: Int, count: Int) {
        failures[client, default: [:]][write, default: 0] += count
    }

    /// Makes the next `save` by client `client` slow.
    func slowNextSave(client: Int) { slowSaves.insert(client) }

    fileprivate func takeSlowSave(_ client: Int) -> Bool { slowSaves.remove(client) != nil }

    private func takeFault(_ write: StoreWrite, client: Int) throws {
        guard let left = failures[client]?[write], left > 0 else { return }
        failures[client]?[write] = left - 1
        faultsFired += 1
        faultLog.append("store fault \(write)")
        throw Fault(write: write)
    }

    /// What the model says is stored.
    var expected: AuthSession? { model }

    func beginSignOut(client: Int) {
        signOutsInFlight += 1
        clientSignOutsBegun[client, default: 0] += 1
    }
    func endSignOut(client: Int) {
        signOutsInFlight -= 1
    }

    /// Whether `session` (same version) was stored at some moment between model clock values
    /// `start` and `end` (inclusive of what was stored at `start`).
    func wasStored(_ session: AuthSession, from start: Int, to end: Int) -> Bool {
        let before = history.last { $0.seq <= start }
        let during = history.filter { $0.seq > start && $0.seq <= end }
        return ([before].compactMap { $0 } + during).contains { AuthSession.isSameVersion($0.session, session) }
    }

    /// Whether a session with refresh token `token` was stored at some moment between model
    /// clock values `start` and `end`.
    func wasStored(refreshToken token: String, from start: Int, to end: Int) -> Bool {
        let before = history.last { $0.seq <= start }
        let during = history.filter { $0.seq > start && $0.seq <= end }
        return ([before].compactMap { $0 } + during).contains {
            $0.session?.credentials.refreshToken?.reveal() == token
        }
    }

    /// Whether the store held a session with refresh token `token` at every moment from model
    /// clock `start` to now.
    func heldThroughout(refreshToken token: String, from start: Int) -> Bool {
        let before = history.last { $0.seq <= start }
        let during = history.filter { $0.seq > start }
        return ([before].compactMap { $0 } + during).allSatisfy {
            $0.session?.credentials.refreshToken?.reveal() == token
        }
    }

    /// Whether `session` was ever written.
    func wasWritten(_ session: AuthSession) -> Bool {
        history.contains { AuthSession.isSameVersion($0.session, session) }
    }

    func note(_ violation: String) { violations.append(violation) }

    // MARK: Serialized operations

    private func acquire() async {
        guard busy else {
            busy = true
            return
        }
        await withCheckedContinuation { queue.append($0) }
    }

    private func release() {
        if queue.isEmpty { busy = false } else { queue.removeFirst().resume() }
    }

    private func check(_ actual: AuthSession?, _ operation: String) {
        if !AuthSession.isSameVersion(actual, model) {
            violations.append("before \(operation) the store holds \(Self.name(actual)), the model \(Self.name(model))")
            model = actual
        }
    }

    static func name(_ session: AuthSession?) -> String {
        session.map { "\($0.user.id)/\($0.credentials.refreshToken?.reveal().suffix(6) ?? "-")" } ?? "nothing"
    }

    /// The clients that received, in a genuine refresh answer, a refresh token that descends
    /// from `token` and is still accepted by the server.
    private func clientsHoldingLiveDescendant(of token: String) -> Set<Int> {
        var holders: Set<Int> = []
        for (client, received) in hooks.receivedRefreshTokens where backend.isLive(refreshToken: received) {
            var current = received
            while case .refresh(let parent)? = backend.origin(ofRefreshToken: current) {
                if parent.reveal() == token {
                    holders.insert(client)
                    break
                }
                current = parent.reveal()
            }
        }
        return holders
    }

    private func record(_ written: AuthSession?, replacing before: AuthSession?, _ operation: String, client: Int) {
        seq += 1
        if let written, hooks.isForeign(written) {
            violations.append(
                "\(operation) by client \(client): wrote \(Self.name(written)), an answer naming another user or provider (L7, L8)"
            )
        }
        if let written {
            switch (written.credentials.refreshToken?.reveal()).flatMap({ backend.origin(ofRefreshToken: $0) }) {
            case .signIn?: break
            case .refresh(let parent)?:
                if before?.credentials.refreshToken != parent {
                    violations.append(
                        "\(operation): a refresh result of ..\(parent.reveal().suffix(6)) landed over \(Self.name(before)) (stale write)"
                    )
                }
            case nil:
                violations.append("\(operation): wrote tokens the server never issued")
            }
        } else if let before {
            let live = (before.credentials.refreshToken?.reveal()).map { backend.isLive(refreshToken: $0) } ?? false
            let withdrawn =
                (lastSave.map { $0.client == client && AuthSession.isSameVersion($0.session, before) } ?? false)
                && clientSignOutsBegun[client, default: 0] > 0
            if withdrawn && live && signOutsInFlight == 0 {
                faultLog.append("F7 withdrawal after the sign-out")
                // F7: a sign-out of this client abandoned the flow while it signed in; the client
                // takes back the session it just saved (and revokes it).
                withdrawals.append(
                    (
                        client, before,
                        "\(operation) by client \(client): removed \(Self.name(before)), whose refresh token the server still accepts, outside a sign-out, after announcing it"
                    ))
            } else if live && signOutsInFlight == 0 {
                violations.append(
                    "\(operation): removed \(Self.name(before)), whose refresh token the server still accepts")
            } else if signOutsInFlight == 0, let token = before.credentials.refreshToken?.reveal() {
                let holders = clientsHoldingLiveDescendant(of: token)
                if holders.contains(client) {
                    violations.append(
                        "\(operation) by client \(client): removed \(Self.name(before)), whose refresh token this client already rotated into one the server still accepts (logged out by mistake, L9)"
                    )
                } else if !holders.isEmpty {
                    // Not a rule violation: L9 keeps the unsaved session in the memory of the
                    // client that received it; another client on the store cannot know it.
                    notes.append(
                        "\(operation) by client \(client): removed \(Self.name(before)), whose refresh token client \(holders.sorted()) already rotated into one the server still accepts (logged out across clients)"
                    )
                }
            }
            // A removal of a session the server no longer accepts may be a revocation (or a user
            // sign-out racing it; each removal publishes one event either way).
            if !live {
                revocationRemovals += 1
                revocationRemovalsByClient[client, default: 0] += 1
            }
        }
        lastSave = nil
        writes.append(
            Write(
                seq: seq, session: written, before: before, client: client,
                eventSequence: client < events.count ? events[client].currentSequence : 0))
        model = written
        history.append((seq, written))
    }

    /// Refuses a session the model's provider did not issue under this store's key.
    private func checkProvider(_ session: AuthSession?, _ operation: String, client: Int) -> Bool {
        guard let session, session.provider != provider else { return true }
        violations.append(
            "\(operation) by client \(client): wrote a session of provider \(session.provider) (L7, L8); not written")
        return false
    }

    func load(_ index: Int) async throws -> AuthSession? {
        await acquire()
        defer { release() }
        let current = try await stores[index].load(for: provider)
        check(current, "load")
        return current
    }

    func save(_ index: Int, _ session: AuthSession, client: Int) async throws {
        await acquire()
        defer { release() }
        let before = try await stores[index].load(for: provider)
        check(before, "save")
        try takeFault(.save, client: client)
        guard checkProvider(session, "save", client: client) else { return }
        try await stores[index].save(session)
        record(session, replacing: before, "save", client: client)
        lastSave = (client, session)
    }

    func remove(_ index: Int, client: Int) async throws {
        await acquire()
        defer { release() }
        let before = try await stores[index].load(for: provider)
        check(before, "remove")
        try takeFault(.conditionalRemove, client: client)
        try await stores[index].remove(for: provider)
        if before != nil { record(nil, replacing: before, "remove", client: client) }
    }

    func replace(_ index: Int, _ expected: AuthSession?, _ replacement: AuthSession?, client: Int) async throws
        -> SessionStoreWriteResult
    {
        await acquire()
        defer { release() }
        let before = try await stores[index].load(for: provider)
        check(before, "replace")
        try takeFault(replacement == nil ? .conditionalRemove : .conditionalSave, client: client)
        guard checkProvider(replacement, "conditional save", client: client) else { return .conflict(current: before) }
        let result = try await stores[index].replace(expected, with: replacement, for: provider)
        if case .written = result {
            record(
                replacement, replacing: before, replacement == nil ? "conditional remove" : "conditional save",
                client: client)
        }
        return result
    }

    /// One client's session store: every call goes through the model.
    struct View: SessionStore {
        let model: ModelStore
        let index: Int
        let client: Int

        func load(for provider: AuthProviderID) async throws -> AuthSession? { try await model.load(index) }
        func save(_ session: AuthSession) async throws {
            if await model.takeSlowSave(client) {
                // A slow keychain: the save reaches the store two seconds later on the clock (a
                // cancelled caller's save still goes through, as a keychain write would).
                try? await model.time.sleep(for: .seconds(2))
            }
            try await model.save(index, session, client: client)
        }
        func remove(for provider: AuthProviderID) async throws { try await model.remove(index, client: client) }
        func removeAll() async throws { try await model.remove(index, client: client) }
        func replace(_ expected: AuthSession?, with replacement: AuthSession?, for provider: AuthProviderID)
            async throws
            -> SessionStoreWriteResult
        {
            try await model.replace(index, expected, replacement, client: client)
        }
    }
}
