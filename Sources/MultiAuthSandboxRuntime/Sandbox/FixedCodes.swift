import Foundation
import MultiAuthLocking

/// One-time codes fixed per destination, like an identity provider's test numbers: a backend
/// that asks ``SandboxContext/oneTimeCode(digits:for:)`` for a code to send to a destination
/// listed here gets the fixed code instead of a random one (Docs/Emulator.md, "Scenarios").
///
/// A fixed code is used only when its length is the length the backend asks for (a 6-digit
/// code for a 4-digit flow is ignored, the flow gets a random code). Destinations are E.164
/// numbers or e-mail identity keys, as the ``Inbox`` keys them.
///
/// Thread-safe (the table is in a `Locked`). Its renderings show no code (a `Locked` hides its contents).
public final class FixedCodes: Sendable {
    private let codes = Locked([String: String]())

    /// Creates an empty table.
    public init() {}

    /// Fixes `code` for `destination`, replacing an earlier one.
    /// - Parameters:
    ///   - code: 4 to 10 ASCII digits.
    ///   - destination: E.164 number or e-mail identity key.
    /// - Returns: `false` (and nothing changes) when `code` is not 4 to 10 ASCII digits.
    @discardableResult
    public func set(_ code: String, for destination: String) -> Bool {
        guard (4...10).contains(code.utf8.count), code.utf8.allSatisfy({ (48...57).contains($0) }) else { return false }
        codes.withLock { $0[destination] = code }
        return true
    }

    /// Removes the fixed code of `destination`, if any.
    public func remove(for destination: String) {
        codes.withLock { _ = $0.removeValue(forKey: destination) }
    }

    /// Removes every fixed code.
    public func removeAll() {
        codes.withLock { $0.removeAll() }
    }

    /// The fixed code of `destination`, if any.
    public func code(for destination: String) -> String? {
        codes.withLock { $0[destination] }
    }

    /// Every fixed code by destination.
    public var all: [String: String] {
        codes.withLock { $0 }
    }
}
