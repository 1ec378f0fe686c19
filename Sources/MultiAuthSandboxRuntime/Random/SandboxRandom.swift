import Foundation
import MultiAuthLocking

/// A seeded random source shared by the parts of one ``Sandbox`` (backends draw codes, tokens and
/// ids from it).
///
/// Thread-safe (a ``SeededRandomNumberGenerator`` in a `Locked`). Sequential use is fully
/// deterministic under the seed; when several requests run concurrently the values each one
/// draws depend on the order they reach the lock.
public final class SandboxRandom: Sendable {
    private let generator: Locked<SeededRandomNumberGenerator>

    /// Creates a source seeded with `seed`.
    public init(seed: UInt64) { generator = Locked(SeededRandomNumberGenerator(seed: seed)) }

    /// A uniformly distributed integer in `range`.
    public func int(in range: ClosedRange<Int>) -> Int {
        generator.withLock { generator in Int.random(in: range, using: &generator) }
    }

    /// A uniformly distributed value in `0 ..< 1`.
    public func unitInterval() -> Double {
        generator.withLock { generator in Double.random(in: 0..<1, using: &generator) }
    }

    /// A string of `count` ASCII decimal digits (leading zeros kept), e.g. a one-time code.
    public func digits(_ count: Int) -> String {
        generator.withLock { generator in
            String((0..<count).map { _ in Character(String(UInt32.random(in: 0...9, using: &generator))) })
        }
    }

    /// `byteCount` random bytes as lower-case hex (`2 × byteCount` characters), e.g. a token.
    public func hex(bytes byteCount: Int) -> String {
        generator.withLock { generator in
            (0..<byteCount).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
        }
    }
}
