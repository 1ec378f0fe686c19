import Foundation
import MultiAuth

/// Wraps any ``/MultiAuth/SessionStore`` and fails on command: the next N loads, saves or
/// removes, or every call while "unavailable". Also records each successful save.
///
/// Failures follow the `SessionStore` contract: a failed load throws
/// `AuthError(.storageUnavailable)`, a failed save or remove throws
/// `AuthError(.storageFailure)`; a failed call never reaches the wrapped store, so nothing
/// stored changes. Conditional writes (``replace(_:with:for:)``) go to the wrapped store's own
/// `replace`, so they are exactly as atomic as that store's.
///
/// Concurrency: an actor; calls are serialized, the wrapped store is awaited on this actor.
public actor FailingSessionStore: SessionStore {
    /// The operations a failure can be injected into.
    public enum Operation: Sendable, Hashable {
        /// ``/MultiAuth/SessionStore/load(for:)``
        case load
        /// ``/MultiAuth/SessionStore/save(_:)``
        case save
        /// ``/MultiAuth/SessionStore/remove(for:)`` and ``/MultiAuth/SessionStore/removeAll()``
        case remove
    }

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
    public init(
        wrapping base: any SessionStore = InMemorySessionStore(), onSave: (@Sendable (AuthSession) -> Void)? = nil
    ) {
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
        count(operation)
        var fail = unavailable
        if let remaining = pendingFailures[operation], remaining > 0 {
            pendingFailures[operation] = remaining - 1
            fail = true
        }
        guard fail else { return }
        throw Self.injectedError(operation)
    }

    /// Counts a call of `operation` and resumes the waiters it satisfies.
    private func count(_ operation: Operation) {
        callCounts[operation, default: 0] += 1
        let calls = callCounts[operation, default: 0]
        callWaiters.removeAll { waiter in
            guard waiter.operation == operation, calls >= waiter.count else { return false }
            waiter.continuation.resume()
            return true
        }
    }

    /// Whether the next call of `operation` fails (without consuming the failure).
    private func willFail(_ operation: Operation) -> Bool {
        unavailable || pendingFailures[operation, default: 0] > 0
    }

    private static func injectedError(_ operation: Operation) -> AuthError {
        switch operation {
        case .load: AuthError(.storageUnavailable, "the session store is unavailable (injected)")
        case .save, .remove: AuthError(.storageFailure, "the session store write failed (injected)")
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

    /// Compare-and-set through the wrapped store's own (atomic) ``/MultiAuth/SessionStore/replace(_:with:for:)``.
    ///
    /// Counts as a `load`, plus a `save` (replacement given) or `remove` (`nil`) when it writes.
    /// An injected `load` failure throws before anything is read. An injected write failure
    /// applies only when the comparison succeeds: the store then reads, compares, and throws
    /// without writing (a mismatch still answers `.conflict`). A successful write with a
    /// replacement is recorded like a save (``savedSessions``, `onSave`).
    /// - Throws: `AuthError` `.storageUnavailable` / `.storageFailure` when a failure was
    ///   injected, `.invalidInput` for another provider's session, or the wrapped store's error.
    public func replace(_ expected: AuthSession?, with replacement: AuthSession?, for provider: AuthProviderID)
        async throws -> SessionStoreWriteResult
    {
        if let replacement, replacement.provider != provider {
            throw AuthError(
                .invalidInput, "a conditional write for '\(provider)' was given a session of '\(replacement.provider)'",
                provider: provider)
        }
        try check(.load)
        let write: Operation = replacement == nil ? .remove : .save
        if willFail(write) {
            let current = try await base.load(for: provider)
            guard AuthSession.isSameVersion(current, expected) else { return .conflict(current: current) }
            try check(write)  // throws: the failure is pending
        }
        let result = try await base.replace(expected, with: replacement, for: provider)
        if result == .written {
            count(write)
            if let replacement {
                savedSessions.append(replacement)
                onSave?(replacement)
            }
        }
        return result
    }

    /// - Throws: `AuthError` `.storageFailure` when a failure was injected, or the wrapped
    ///   store's error.
    public func removeAll() async throws {
        try check(.remove)
        try await base.removeAll()
    }
}
