import Foundation
import MultiAuth

/// Wraps any ``MultiAuth/SessionStore`` and fails on command: the next N loads, saves or
/// removes, or every call while "unavailable". Also records each successful save.
///
/// Failures follow the `SessionStore` contract: a failed load throws
/// `AuthError(.storageUnavailable)`, a failed save or remove throws
/// `AuthError(.storageFailure)`; a failed call never reaches the wrapped store, so nothing
/// stored changes.
///
/// Concurrency: an actor; calls are serialized, the wrapped store is awaited on this actor.
public actor FailingSessionStore: SessionStore {
    /// The operations a failure can be injected into (shared with `InMemorySessionStore`).
    public typealias Operation = InMemorySessionStore.Operation

    /// The wrapped store.
    public nonisolated let base: any SessionStore
    private var pendingFailures: [Operation: Int] = [:]
    private var unavailable = false
    private let onSave: (@Sendable (AuthSession) -> Void)?
    /// How many times each operation was called (failed calls included).
    public private(set) var callCounts: [Operation: Int] = [:]
    /// Every session saved successfully, in order.
    public private(set) var savedSessions: [AuthSession] = []
    private var callWaiters: [(operation: Operation, count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    /// Wraps `base`.
    /// - Parameters:
    ///   - base: The store that holds the sessions (default: a new `InMemorySessionStore`).
    ///   - onSave: Called synchronously after each successful save, before `save` returns
    ///     (e.g. to note the event bus's sequence number at that moment).
    public init(wrapping base: any SessionStore = InMemorySessionStore(), onSave: (@Sendable (AuthSession) -> Void)? = nil) {
        self.base = base
        self.onSave = onSave
    }

    /// Makes the next `count` calls of `operation` fail.
    public func failNext(_ operation: Operation, count: Int = 1) {
        pendingFailures[operation, default: 0] += count
    }

    /// While `true`, every call fails.
    public func setUnavailable(_ isUnavailable: Bool) { unavailable = isUnavailable }

    /// Suspends until `operation` has been called at least `count` times in total (failed
    /// calls included). Resumed by the calls themselves: no sleeping.
    public func waitForCalls(_ operation: Operation, count: Int) async {
        guard callCounts[operation, default: 0] < count else { return }
        await withCheckedContinuation { continuation in callWaiters.append((operation, count, continuation)) }
    }

    private func check(_ operation: Operation) throws {
        callCounts[operation, default: 0] += 1
        let calls = callCounts[operation, default: 0]
        callWaiters.removeAll { waiter in
            guard waiter.operation == operation, calls >= waiter.count else { return false }
            waiter.continuation.resume()
            return true
        }
        var fail = unavailable
        if let remaining = pendingFailures[operation], remaining > 0 {
            pendingFailures[operation] = remaining - 1
            fail = true
        }
        guard fail else { return }
        switch operation {
        case .load: throw AuthError(.storageUnavailable, "the session store is unavailable (injected)")
        case .save, .remove: throw AuthError(.storageFailure, "the session store write failed (injected)")
        }
    }

    /// - Throws: `AuthError` `.storageUnavailable` when a failure was injected, or the wrapped
    ///   store's error.
    public func load(for provider: AuthProviderID) async throws -> AuthSession? {
        try check(.load)
        return try await base.load(for: provider)
    }

    /// - Throws: `AuthError` `.storageFailure` when a failure was injected, or the wrapped
    ///   store's error.
    public func save(_ session: AuthSession) async throws {
        try check(.save)
        try await base.save(session)
        savedSessions.append(session)
        onSave?(session)
    }

    /// - Throws: `AuthError` `.storageFailure` when a failure was injected, or the wrapped
    ///   store's error.
    public func remove(for provider: AuthProviderID) async throws {
        try check(.remove)
        try await base.remove(for: provider)
    }

    /// - Throws: `AuthError` `.storageFailure` when a failure was injected, or the wrapped
    ///   store's error.
    public func removeAll() async throws {
        try check(.remove)
        try await base.removeAll()
    }
}
