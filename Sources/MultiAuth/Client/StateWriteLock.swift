import Foundation
import MultiAuthLocking

/// Orders one client's session-state changes per provider (rule L13, Docs/Architecture.md,
/// "Session lifecycle"): a store write that changes a provider's session and the state event
/// that announces it are one step, so the events come out in the order of the writes. Without
/// it a refresh could write A′, a sign-in then write and announce B, and the refresh's
/// `sessionRefreshed(A′)` arrive last: the app would show A′ while the store holds B.
///
/// A FIFO async lock per provider. Holders do only store writes and in-memory bookkeeping,
/// never a provider call or a remote revoke, so a wait is bounded by the store's own calls.
/// Waiting is not cancellable: a cancelled caller still gets its turn and leaves at once.
final class StateWriteLock: Sendable {
    /// A test waiting until a provider's queue is `count` long (``waitUntilQueued(_:count:)``).
    private struct QueueWatcher {
        let provider: AuthProviderID
        let count: Int
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var held: Set<AuthProviderID> = []
        var waiters: [AuthProviderID: [CheckedContinuation<Void, Never>]] = [:]
        var disabled = false
        var queueWatchers: [QueueWatcher] = []
    }

    private let state = Locked(State())

    /// Switches the lock off (the `unorderedStateWrites` mutation check).
    func setDisabled(_ off: Bool) { state.withLock { $0.disabled = off } }

    /// Waits for `provider`'s turn (first come, first served).
    func acquire(_ provider: AuthProviderID) async {
        let acquired: Bool = state.withLock { state in
            if state.disabled || !state.held.contains(provider) {
                if !state.disabled { state.held.insert(provider) }
                return true
            }
            return false
        }
        if acquired { return }
        await withCheckedContinuation { continuation in
            let now: Bool = state.withLock { state in
                if !state.held.contains(provider) {
                    state.held.insert(provider)
                    return true
                }
                state.waiters[provider, default: []].append(continuation)
                return false
            }
            if now { continuation.resume() } else { resumeQueueWatchers() }
        }
    }

    /// Test seam: returns once `count` callers wait for `provider`'s turn (a turn is held and
    /// they queue behind it), so a test knows a sign-out reached its write step.
    func waitUntilQueued(_ provider: AuthProviderID, count: Int) async {
        await withCheckedContinuation { continuation in
            let now: Bool = state.withLock { state in
                if state.waiters[provider, default: []].count >= count { return true }
                state.queueWatchers.append(
                    QueueWatcher(provider: provider, count: count, continuation: continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }

    private func resumeQueueWatchers() {
        let ready: [CheckedContinuation<Void, Never>] = state.withLock { state in
            var ready: [CheckedContinuation<Void, Never>] = []
            let waiters = state.waiters
            state.queueWatchers.removeAll { watcher in
                guard waiters[watcher.provider, default: []].count >= watcher.count else { return false }
                ready.append(watcher.continuation)
                return true
            }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    /// Ends the turn: the next waiter (if any) takes it over, still held.
    func release(_ provider: AuthProviderID) {
        let next: CheckedContinuation<Void, Never>? = state.withLock { state in
            if state.disabled && !state.held.contains(provider) { return nil }
            guard var queue = state.waiters[provider], !queue.isEmpty else {
                state.held.remove(provider)
                return nil
            }
            let next = queue.removeFirst()
            state.waiters[provider] = queue.isEmpty ? nil : queue
            return next
        }
        next?.resume()
    }
}

extension StateWriteLock {
    /// One held turn of a provider, ended once (``end()`` is idempotent), so a step can end its
    /// turn early (before a remote call) and a `defer` can end it on every other path.
    final class Turn: Sendable {
        private let owner: StateWriteLock
        private let provider: AuthProviderID
        /// Whether ``end()`` was called.
        private let ended = Locked(false)

        init(_ owner: StateWriteLock, _ provider: AuthProviderID) {
            self.owner = owner
            self.provider = provider
        }

        /// Ends the turn (the first call only).
        func end() {
            let first: Bool = ended.withLock { ended in
                defer { ended = true }
                return !ended
            }
            if first { owner.release(provider) }
        }
    }

    /// Waits for `provider`'s turn and returns it.
    func turn(_ provider: AuthProviderID) async -> Turn {
        await acquire(provider)
        return Turn(self, provider)
    }
}
