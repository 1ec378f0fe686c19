/// How ``StoreKey``s are spelled in a shared store: a prefix for the application, and an
/// optional secret that keys the hash (Docs/Server.md, "Keys").
///
/// Every server of a fleet must use the same keyspace (prefix and secret): a server with
/// another one computes other keys, and a code or nonce it accepts is not seen by the others.
///
/// Without a secret a key is `SHA-256(namespace ‖ 0x00 ‖ identifier)`: enough for identifiers
/// nobody can guess (nonces, `jti`s, link tokens). With a secret it is
/// `HMAC-SHA-256(secret, namespace ‖ 0x00 ‖ identifier)`, which keeps low-entropy identifiers
/// (a phone number, an e-mail address, an account id) unrecoverable from a dump of the store:
/// use one whenever keys are derived from such identifiers (TOTP accounts, attempt limits).
///
/// Concurrency: an immutable `Sendable` value; the HMAC key is safe to share.
public struct StoreKeyspace: Sendable {
    /// The first component of every key, e.g. `multiauth`; 1 to 64 characters of
    /// `A–Z a–z 0–9 . _ -`.
    public let prefix: String
    private let secret: HMACKey?

    /// `multiauth` keys hashed with SHA-256 (no secret).
    public static let `default` = StoreKeyspace(validatedPrefix: "multiauth", secret: nil)

    /// Creates a keyspace.
    ///
    /// - Parameters:
    ///   - prefix: the first key component; 1 to 64 characters of `A–Z a–z 0–9 . _ -`.
    ///   - secret: the HMAC key for keyed hashing, 16 bytes or more, shared by every server of
    ///     the fleet and kept like a password; `nil` for plain SHA-256.
    /// - Throws: ``CryptoError/invalidParameter(_:)`` (`"prefix"`, `"secret"`).
    public init(prefix: String = "multiauth", secret: [UInt8]? = nil) throws {
        guard Self.isValidComponent(prefix) else { throw CryptoError.invalidParameter("prefix") }
        if let secret, secret.count < 16 { throw CryptoError.invalidParameter("secret") }
        self.init(validatedPrefix: prefix, secret: try secret.map { try HMACKey($0, algorithm: .sha256) })
    }

    private init(validatedPrefix: String, secret: HMACKey?) {
        self.prefix = validatedPrefix
        self.secret = secret
    }

    /// Whether keys are hashed with a secret (HMAC-SHA-256) rather than plain SHA-256.
    public var isKeyed: Bool { secret != nil }

    /// The key for `identifier` in `namespace`.
    ///
    /// - Parameters:
    ///   - namespace: what the identifier is, e.g. `totp` or `truecaller.nonce`; 1 to 64
    ///     characters of `A–Z a–z 0–9 . _ -`.
    ///   - identifier: the bytes identifying the item (a nonce, an account id); never stored.
    /// - Returns: the key, `prefix:namespace:` and 64 lowercase hex digits.
    /// - Throws: ``CryptoError/invalidParameter(_:)`` (`"namespace"`).
    public func key(_ namespace: String, _ identifier: some Sequence<UInt8>) throws -> StoreKey {
        guard Self.isValidComponent(namespace) else { throw CryptoError.invalidParameter("namespace") }
        var input = Array(namespace.utf8)
        input.append(0)
        input.append(contentsOf: identifier)
        let digest = secret.map { $0.authenticationCode(for: input) } ?? MessageDigest.sha256(input)
        return StoreKey(namespace: namespace, storageKey: prefix + ":" + namespace + ":" + Self.hex(digest))
    }

    /// The key for the UTF-8 bytes of `identifier` in `namespace`; see the byte overload.
    ///
    /// - Throws: ``CryptoError/invalidParameter(_:)`` (`"namespace"`).
    public func key(_ namespace: String, _ identifier: String) throws -> StoreKey {
        try key(namespace, Array(identifier.utf8))
    }

    static func isValidComponent(_ text: String) -> Bool {
        let utf8 = text.utf8
        guard (1...64).contains(utf8.count) else { return false }
        return utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// A key in a ``ReplayStore`` or ``AttemptLimiter``: a namespace and a hash, never the
/// identifier itself (no phone number, e-mail address, code or token is stored in clear).
///
/// Make one with `StoreKeyspace.key(_:_:)`. ``storageKey`` is printable ASCII with no
/// spaces (`prefix:namespace:hex`), safe as a Redis key or a SQL text value.
public struct StoreKey: Sendable, Hashable, CustomStringConvertible {
    /// What the key is for, e.g. `totp`.
    public let namespace: String
    /// The key a store saves under: `prefix:namespace:` and 64 lowercase hex digits.
    public let storageKey: String

    init(namespace: String, storageKey: String) {
        self.namespace = namespace
        self.storageKey = storageKey
    }

    /// The storage key (it is a hash: nothing secret).
    public var description: String { storageKey }
}
