import Foundation
import MultiAuth
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
actor ModelStore {
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
    private var signOutsInFlight = 0
    /// Removals of a session whose refresh token the server no longer accepts: the only ones a
    /// revocation may make.
    private(set) var revocationRemovals = 0

    init(provider: AuthProviderID, stores: [any SessionStore], backend: ReferenceBackend) {
        self.provider = provider
        self.stores = stores
        self.backend = backend
    }

    /// The store a client uses: view `index` routes to wrapped store `index % count`.
    nonisolated func view(_ index: Int) -> View { View(model: self, index: index % stores.count) }

    /// What the model says is stored.
    var expected: AuthSession? { model }

    func beginSignOut() { signOutsInFlight += 1 }
    func endSignOut() { signOutsInFlight -= 1 }

    /// Whether `session` (same version) was stored at some moment between model clock values
    /// `start` and `end` (inclusive of what was stored at `start`).
    func wasStored(_ session: AuthSession, from start: Int, to end: Int) -> Bool {
        let before = history.last { $0.seq <= start }
        let during = history.filter { $0.seq > start && $0.seq <= end }
        return ([before].compactMap { $0 } + during).contains { AuthSession.isSameVersion($0.session, session) }
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
        session.map { "\($0.user.id)/\($0.credentials.refreshToken?.suffix(6) ?? "-")" } ?? "nothing"
    }

    private func record(_ written: AuthSession?, replacing before: AuthSession?, _ operation: String) {
        seq += 1
        if let written {
            switch written.credentials.refreshToken.flatMap({ backend.origin(ofRefreshToken: $0) }) {
            case .signIn?: break
            case .refresh(let parent)?:
                if before?.credentials.refreshToken != parent {
                    violations.append(
                        "\(operation): a refresh result of ..\(parent.suffix(6)) landed over \(Self.name(before)) (stale write)"
                    )
                }
            case nil:
                violations.append("\(operation): wrote tokens the server never issued")
            }
        } else if let before {
            let live = before.credentials.refreshToken.map { backend.isLive(refreshToken: $0) } ?? false
            if live && signOutsInFlight == 0 {
                violations.append(
                    "\(operation): removed \(Self.name(before)), whose refresh token the server still accepts")
            }
            // A removal of a session the server no longer accepts may be a revocation (or a user
            // sign-out racing it; each removal publishes one event either way).
            if !live { revocationRemovals += 1 }
        }
        model = written
        history.append((seq, written))
    }

    func load(_ index: Int) async throws -> AuthSession? {
        await acquire()
        defer { release() }
        let current = try await stores[index].load(for: provider)
        check(current, "load")
        return current
    }

    func save(_ index: Int, _ session: AuthSession) async throws {
        await acquire()
        defer { release() }
        let before = try await stores[index].load(for: provider)
        check(before, "save")
        try await stores[index].save(session)
        record(session, replacing: before, "save")
    }

    func remove(_ index: Int) async throws {
        await acquire()
        defer { release() }
        let before = try await stores[index].load(for: provider)
        check(before, "remove")
        try await stores[index].remove(for: provider)
        if before != nil { record(nil, replacing: before, "remove") }
    }

    func replace(_ index: Int, _ expected: AuthSession?, _ replacement: AuthSession?) async throws
        -> SessionStoreWriteResult
    {
        await acquire()
        defer { release() }
        let before = try await stores[index].load(for: provider)
        check(before, "replace")
        let result = try await stores[index].replace(expected, with: replacement, for: provider)
        if case .written = result {
            record(replacement, replacing: before, replacement == nil ? "conditional remove" : "conditional save")
        }
        return result
    }

    /// One client's session store: every call goes through the model.
    struct View: SessionStore {
        let model: ModelStore
        let index: Int

        func load(for provider: AuthProviderID) async throws -> AuthSession? { try await model.load(index) }
        func save(_ session: AuthSession) async throws { try await model.save(index, session) }
        func remove(for provider: AuthProviderID) async throws { try await model.remove(index) }
        func removeAll() async throws { try await model.remove(index) }
        func replace(_ expected: AuthSession?, with replacement: AuthSession?, for provider: AuthProviderID)
            async throws
            -> SessionStoreWriteResult
        {
            try await model.replace(index, expected, replacement)
        }
    }
}
