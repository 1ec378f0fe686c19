import Foundation

extension NSLock {
    /// Runs `body` holding the lock (`NSLocking.withLock` is not available on every Apple
    /// platform this package supports).
    @inline(__always)
    func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}
