import MultiAuth

/// A deterministic random number generator (SplitMix64): the same seed always yields the same
/// sequence, on every platform.
///
/// Not cryptographically secure: it exists so sandboxes, fault plans and emulated backends are
/// reproducible under a seed. Value type; copy it to fork a sequence.
public struct SeededRandomNumberGenerator: RandomNumberGenerator, Sendable {
    private var generator: SplitMix64

    /// Creates a generator whose sequence is fixed by `seed`.
    public init(seed: UInt64) { generator = SplitMix64(seed: seed) }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 { generator.next() }
}
