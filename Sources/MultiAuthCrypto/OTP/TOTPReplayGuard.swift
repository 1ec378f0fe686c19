import Foundation

/// The last accepted TOTP time step for one secret, so a code is accepted at most once
/// (RFC 6238 §5.2).
///
/// The stored step only moves forward. ``consume(_:)`` checks and updates it under a lock as
/// one atomic operation: of two parallel submissions of the same code exactly one succeeds.
/// Persist ``lastUsedStep`` with the enrolment and pass it back to ``init(lastUsedStep:)``
/// after a restart.
public final class TOTPReplayGuard: Sendable {
    // `nonisolated(unsafe)` storage guarded by `lock`; every access below holds it.
    private nonisolated(unsafe) var step: UInt64?
    private let lock = NSLock()

    /// Creates a guard.
    ///
    /// - Parameter lastUsedStep: the last accepted time step (RFC 6238 §4.2 `T`), or `nil`
    ///   when no code was accepted yet.
    public init(lastUsedStep: UInt64? = nil) {
        step = lastUsedStep
    }

    /// The last accepted time step, or `nil` if none.
    public var lastUsedStep: UInt64? {
        lock.lock()
        defer { lock.unlock() }
        return step
    }

    /// Records `step` as used if it is newer than the last used step.
    ///
    /// - Parameter step: the time step a code matched (see ``TOTP/verify(_:at:window:lastUsedStep:replayGuard:)-(_,Int64,_,_,_)`` for which step a code belongs to).
    /// - Throws: ``CryptoError/codeAlreadyUsed`` when `step` is not newer; nothing changes.
    public func consume(_ step: UInt64) throws {
        lock.lock()
        defer { lock.unlock() }
        if let last = self.step, step <= last { throw CryptoError.codeAlreadyUsed }
        self.step = step
    }
}
