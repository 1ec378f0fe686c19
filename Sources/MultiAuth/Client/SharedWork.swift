import Foundation
import MultiAuthLocking

/// One piece of work (a submit, a redirect exchange) that several callers await together.
///
/// Every caller of ``value()`` gets the task's result. A caller that is cancelled stops
/// counting as a waiter; when the last waiter is cancelled, the task is cancelled too (nobody
/// wants its result any more), so a single caller's cancellation behaves as if it ran the work
/// itself.
final class SharedWork<Value: Sendable>: Sendable {
    /// The task doing the work.
    let task: Task<Value, any Error>
    /// How many callers are awaiting ``value()`` and not cancelled.
    private let waiters = Locked(0)

    init(_ task: Task<Value, any Error>) { self.task = task }

    /// The work's result, awaited as one more waiter.
    /// - Throws: the work's error, or `CancellationError`.
    func value() async throws -> Value {
        waiters.withLock { $0 += 1 }
        return try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            let last = waiters.withLock { waiters in
                waiters -= 1
                return waiters == 0
            }
            if last { task.cancel() }
        }
    }
}
