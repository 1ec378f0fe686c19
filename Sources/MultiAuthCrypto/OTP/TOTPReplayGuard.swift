import Foundation
import MultiAuthLocking

/// The last accepted TOTP time step for one secret, so a code is accepted at most once
/// (RFC 6238 §5.2).
///
/// The stored step only moves forward. ``consume(_:)`` checks and updates it under one lock as
/// one atomic operation: of two parallel submissions of the same code exactly one succeeds.
/// Persist ``lastUsedStep`` with the enrolment and pass it back to ``init(lastUsedStep:)``
/// after a restart.
public final class TOTPReplayGuard: Sendable {
    /// The last accepted time step; read and changed only inside `withLock`.
    private let step: Locked<UInt64?>

    /// Creates a guard.
    ///
    /// - Parameter lastUsedStep: the last accepted time step (RFC 6238 §4.2 `T`), or `nil`
    ///   when no code was accepted yet.
    public init(lastUsedStep: UInt64? = nil) {
        step = Locked(lastUsedStep)
    }

    /// The last accepted time step, or `nil` if none.
    public var lastUsedStep: UInt64? {
        step.withLock { $0 }
    }

    /// Records `step` as used if it is newer than the last used step.
    ///
    /// - Parameter step: the time step a code matched (see ``TOTP/verify(_:at:window:lastUsedStep:replayGuard:)-(_,Int64,_,_,_)`` for which step a code belongs to).
    /// - Throws: ``CryptoError/codeAlreadyUsed`` when `step` is not newer; nothing changes.
    public func consume(_ step: UInt64) throws {
        try self.step.withLock { stored in
            if let last = stored, step <= last { throw CryptoError.codeAlreadyUsed }
            stored = step
        }
    }
}
