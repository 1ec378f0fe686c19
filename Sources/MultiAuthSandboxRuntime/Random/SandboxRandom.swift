import Foundation

/// A seeded random source shared by the parts of one ``Sandbox`` (backends draw codes, tokens and
/// ids from it).
///
/// Thread-safe (a lock around a ``SeededRandomNumberGenerator``). Sequential use is fully
/// deterministic under the seed; when several requests run concurrently the values each one
/// draws depend on the order they reach the lock.
public final class SandboxRandom: @unchecked Sendable {
    private let lock = NSLock()
    private var generator: SeededRandomNumberGenerator

    /// Creates a source seeded with `seed`.
    public init(seed: UInt64) { generator = SeededRandomNumberGenerator(seed: seed) }

    /// A uniformly distributed integer in `range`.
    public func int(in range: ClosedRange<Int>) -> Int {
        lock.withLock { Int.random(in: range, using: &generator) }
    }

    /// A uniformly distributed value in `0 ..< 1`.
    public func unitInterval() -> Double {
        lock.withLock { Double.random(in: 0..<1, using: &generator) }
    }

    /// A string of `count` ASCII decimal digits (leading zeros kept), e.g. a one-time code.
    public func digits(_ count: Int) -> String {
        lock.withLock {
            String((0..<count).map { _ in Character(String(UInt32.random(in: 0...9, using: &generator))) })
        }
    }

    /// `byteCount` random bytes as lower-case hex (`2 × byteCount` characters), e.g. a token.
    public func hex(bytes byteCount: Int) -> String {
        lock.withLock {
            (0..<byteCount).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
        }
    }
}
