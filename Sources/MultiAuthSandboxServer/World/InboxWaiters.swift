import Foundation
import MultiAuth
import MultiAuthLocking
import MultiAuthSandbox

/// The long-polls of the control API (`GET /_multiauth/inbox/{destination}/next`): each waits
/// for the first delivered message to a destination after a given id, in the world it started
/// in, until the client's timeout, a reset or the server's stop.
///
/// The inbox itself has no "after id" wait, so each poll checks the inbox, registers, and is
/// woken by ``poke()`` (called after every request the backends handled) to check again: no
/// polling loop, no real-time sleeping besides the client's bounded timeout.
final class InboxWaiters: Sendable {
    private struct Waiter: Sendable {
        let id: UInt64
        let continuation: CheckedContinuation<Void, Never>
    }

    /// The waiters' mutable fields, only touched inside `state.withLock`.
    private struct State {
        var waiters: [Waiter] = []
        var nextID: UInt64 = 0
        var generation: UInt64 = 0
    }

    private let state = Locked(State())

    /// Waits until `find` returns a message, `timeout` passes, the waiting task is cancelled or
    /// the world is reset (``cancelAll()``).
    /// - Returns: The message, or `nil`.
    func wait(timeout: Duration, find: @escaping @Sendable () -> InboxMessage?) async -> InboxMessage? {
        let start = state.withLock { $0.generation }
        // Owned by this wait: it only wakes the waiters at the timeout; cancelled when the wait ends.
        let timer = Task { [weak self] in
            try? await ContinuousClock().sleep(for: timeout)
            self?.pokeAll()
        }
        defer { timer.cancel() }
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            if let message = find() { return message }
            if Task.isCancelled || ContinuousClock.now >= deadline || state.withLock({ $0.generation }) != start {
                return nil
            }
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let resumeNow = state.withLock { state in
                        // A message may have arrived between `find` and here: check again at once.
                        if find() != nil || state.generation != start { return true }
                        state.nextID += 1
                        state.waiters.append(Waiter(id: state.nextID, continuation: continuation))
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            } onCancel: {
                self.pokeAll()
            }
        }
    }

    /// Wakes every waiter to check its inbox again.
    func poke() { pokeAll() }

    /// Ends every wait in progress (a reset or a stop).
    func cancelAll() {
        state.withLock { $0.generation &+= 1 }
        pokeAll()
    }

    private func pokeAll() {
        let woken = state.withLock { state in
            let list = state.waiters
            state.waiters = []
            return list
        }
        for waiter in woken { waiter.continuation.resume() }
    }
}
