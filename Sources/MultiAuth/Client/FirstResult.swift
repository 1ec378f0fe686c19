import Foundation
import MultiAuthLocking

/// The first of several offered values, awaited once: the racing side of a bounded wait (a
/// remote revoke against its time bound). Later offers are ignored.
///
/// Concurrency: the result and the waiter live in one `Locked` state; ``value()`` may be awaited
/// by one task, offers come from any. Continuations are resumed after the lock is released.
final class FirstResult<Value: Sendable>: Sendable {
    private struct State {
        var result: Value?
        var waiter: CheckedContinuation<Value, Never>?
    }

    private let state = Locked(State())

    /// Offers `value`; only the first offer counts.
    func offer(_ value: Value) {
        let waiter: CheckedContinuation<Value, Never>? = state.withLock { state in
            guard state.result == nil else { return nil }
            state.result = value
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: value)
    }

    /// The first value offered, once there is one.
    func value() async -> Value {
        await withCheckedContinuation { continuation in
            let ready: Value? = state.withLock { state in
                if let result = state.result { return result }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
