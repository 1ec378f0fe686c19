import Foundation

/// The one lock box of the package: a value of type `State` that is only ever read or changed
/// while one `NSLock` is held.
///
/// Every type whose fields are shared between threads keeps them in one `State` struct inside a
/// `Locked` instead of pairing its own lock with loose `var`s (Docs/Architecture.md, "Locks").
/// `Mutex` from the Synchronization module would be the standard choice, but it needs iOS 18 /
/// macOS 15 and the package supports iOS 16 / macOS 13.
///
/// Concurrency: `withLock` may be called from any thread or task; calls are serialized. The body
/// must not suspend (it is synchronous), must not call `withLock` on the same box again (an
/// `NSLock` is not recursive: that deadlocks) and should not run unbounded work, since every
/// other caller waits for it.
///
/// `Locked` is `Sendable` when `State` is: the lock is what makes sharing the mutable value safe,
/// which the compiler cannot see, hence the one `@unchecked`.
package final class Locked<State> {
    private let lock = NSLock()
    private var state: State

    /// A box holding `initial`.
    package init(_ initial: State) {
        state = initial
    }

    /// Runs `body` with exclusive access to the state and returns what it returns.
    ///
    /// - Parameter body: reads or changes the state in place; it runs while the lock is held.
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws; changes `body` made before throwing are kept.
    package func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}

extension Locked: @unchecked Sendable where State: Sendable {}

/// Renders without its contents: `dump`, `Mirror`, `String(describing:)` and
/// `String(reflecting:)` of a type whose fields live in a `Locked` never show those fields (they
/// may hold codes or tokens), and rendering never takes the lock.
extension Locked: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `Locked(<hidden>)`.
    package var description: String { "Locked(<hidden>)" }
    /// `Locked(<hidden>)`.
    package var debugDescription: String { description }
    /// A mirror with no children.
    package var customMirror: Mirror { Mirror(self, children: [], displayStyle: .class) }
}
