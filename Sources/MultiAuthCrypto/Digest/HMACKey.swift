/// An HMAC key (RFC 2104) set up once for many MACs, as HOTP/TOTP verification needs.
///
/// The libcrypto context is created and keyed once; each MAC only re-initialises it, so a
/// TOTP window of three steps costs three HMACs and no allocations. Instances are safe to
/// share across tasks: a lock serialises use of the context (on Apple platforms the key is
/// immutable and needs no lock).
public final class HMACKey: Sendable {
    /// The hash function of this key.
    public let algorithm: DigestAlgorithm
    let context: MACContext

    /// Sets up `key` for HMAC with `algorithm`.
    ///
    /// - Parameters:
    ///   - key: the key bytes; 1 byte or more.
    ///   - algorithm: the hash function.
    /// - Throws: ``CryptoError/invalidKey`` for an empty key;
    ///   ``CryptoError/libraryFailure(_:)`` if libcrypto cannot create the context.
    public init(_ key: some Sequence<UInt8>, algorithm: DigestAlgorithm) throws {
        let bytes = Array(key)
        guard !bytes.isEmpty else { throw CryptoError.invalidKey }
        self.algorithm = algorithm
        self.context = try MACContext(key: bytes, algorithm: algorithm)
    }

    /// Computes the HMAC of `message`.
    ///
    /// - Returns: the MAC, ``DigestAlgorithm/byteCount`` bytes long.
    public func authenticationCode(for message: some Sequence<UInt8>) -> [UInt8] {
        let bytes = Array(message)
        return bytes.withUnsafeBytes { input in
            context.withMAC(of: input) { Array($0) }
        }
    }

    /// Calls `body` with the HMAC of the 8-byte big-endian `counter` (RFC 4226 §5.2), without
    /// allocating; the buffer is valid only inside `body`.
    /// Calls `body` with each counter of `counters` and the MAC of its 8-byte big-endian form
    /// (RFC 4226 §5.2), in ascending order, under one lock.
    func forEachCounterAuthenticationCode(
        _ counters: ClosedRange<UInt64>, _ body: (UInt64, UnsafeRawBufferPointer) -> Void
    ) {
        context.forEachCounterMAC(counters, body)
    }

    func withAuthenticationCode<R>(forCounter counter: UInt64, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        withUnsafeBytes(of: counter.bigEndian) { input in
            context.withMAC(of: input, body)
        }
    }
}
