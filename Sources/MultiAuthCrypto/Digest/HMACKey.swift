/// An HMAC key (RFC 2104) set up once for many MACs, as HOTP/TOTP verification needs.
///
/// With libcrypto the key's inner and outer hash states (after `K XOR ipad` and `K XOR opad`,
/// RFC 2104 §2) are computed once, when the key is created; each MAC copies them and hashes
/// only the message, so a TOTP window of three steps costs three HMACs, no re-keying and no
/// allocation. Instances are safe to share across tasks and are used without a lock: the
/// precomputed states are never written after `init`, and every MAC works on its own copy
/// (on Apple platforms the CryptoKit key is immutable too). The states are erased when the
/// key is freed.
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

    /// Calls `body` with each counter of `counters` and the MAC of its 8-byte big-endian form
    /// (RFC 4226 §5.2), in ascending order, without allocating; the buffer is valid only
    /// inside each call of `body`.
    func forEachCounterAuthenticationCode(
        _ counters: ClosedRange<UInt64>, _ body: (UInt64, UnsafeRawBufferPointer) -> Void
    ) {
        context.forEachCounterMAC(counters, body)
    }

    /// Calls `body` with the HMAC of the 8-byte big-endian `counter` (RFC 4226 §5.2), without
    /// allocating; the buffer is valid only inside `body`.
    func withAuthenticationCode<R>(forCounter counter: UInt64, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        withUnsafeBytes(of: counter.bigEndian) { input in
            context.withMAC(of: input, body)
        }
    }
}
