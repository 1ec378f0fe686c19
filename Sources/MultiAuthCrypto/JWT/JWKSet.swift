import Foundation

/// A JWK Set (RFC 7517 §5): `{"keys": [...]}`, as served at an issuer's `jwks_uri`.
///
/// Decoding keeps every member of `keys` that is a JWK object and skips the rest, so one key
/// of an unknown shape does not hide the others.
public struct JWKSet: Sendable, Hashable, Codable {
    /// The keys, in document order.
    public var keys: [JWK]

    /// Creates a set from keys.
    public init(keys: [JWK]) { self.keys = keys }

    private enum CodingKeys: String, CodingKey { case keys }

    /// Decodes `{"keys": [...]}`, skipping entries that are not JWK objects.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var entries = try container.nestedUnkeyedContainer(forKey: .keys)
        var keys: [JWK] = []
        while !entries.isAtEnd {
            if let key = try? entries.decode(JWK.self) {
                keys.append(key)
            } else {
                _ = try entries.decode(JSONValue.self)
            }
        }
        self.keys = keys
    }

    /// Parses a JWKS document through the bounded JSON parser (``JSONLimits``), keeping
    /// every member of `keys` that is a JWK object and skipping the rest.
    ///
    /// An entry is skipped when it is not an object, has no string `kty`, or has a member
    /// this type reads (`kid`, `alg`, `use`, `n`, `e`, `crv`, `x`, `y`) that is not a string.
    /// - Parameters:
    ///   - jsonData: the UTF-8 JSON bytes.
    ///   - limits: the size, depth and value-count limits; ``JSONLimits/jwks`` (1 MiB,
    ///     32 levels, 65,536 values) by default.
    /// - Throws: ``CryptoError/limitExceeded(_:maximum:)`` for a document past `limits`
    ///   (checked before parsing, or as the limit is reached); ``CryptoError/malformedKeySet``
    ///   when it is not `{"keys": [...]}`.
    /// Concurrency: pure; linear time, constant stack depth.
    public init(jsonData: Data, limits: JSONLimits = .jwks) throws {
        guard jsonData.count <= limits.maximumBytes else {
            throw CryptoError.limitExceeded("document size", maximum: limits.maximumBytes)
        }
        let document: JSONValue
        do {
            document = try JSONParser.parse(Array(jsonData), limits: limits).value
        } catch let error as CryptoError {
            if case .limitExceeded = error { throw error }
            throw CryptoError.malformedKeySet
        }
        guard case .array(let entries)? = document["keys"] else { throw CryptoError.malformedKeySet }
        keys = entries.compactMap(JWK.init(json:))
    }

    /// The JWKS document as compact JSON with sorted keys.
    ///
    /// - Throws: an `EncodingError` only if encoding fails, which it does not for valid strings.
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// Verifies `jwt` with the key its header selects (RFC 7515 §4.1.4, RFC 7517 §4.5).
    ///
    /// A key is a candidate when it fits the token's `alg` (``JWK/fits(_:)``: key type,
    /// curve, `use`, `alg`) and, if the token has a `kid`, has the same `kid`. Without a `kid`
    /// every fitting key is tried. Every key of the set is imported on each call; to import a
    /// set once and verify many tokens with it, use ``JWKSCache``.
    /// - Returns: the key that verified.
    /// - Throws: ``CryptoError/unsupportedAlgorithm`` for `none`, `HS*` or a disallowed
    ///   `alg`; ``CryptoError/keyTooSmall(bits:required:)`` when the only keys that match are
    ///   RSA keys below 2048 bits; ``CryptoError/keyNotFound`` when no usable key is a
    ///   candidate; ``CryptoError/signatureInvalid`` when candidates exist but none verifies.
    @discardableResult
    public func verifySignature(of jwt: JWT, algorithms: Set<SignatureAlgorithm> = Set(SignatureAlgorithm.allCases))
        throws -> JWK
    {
        let algorithm = try jwt.signatureAlgorithm(allowed: algorithms)
        return try ImportedKeySet(importing: keys).verify(jwt, algorithm: algorithm)
    }

    /// A JWK of the set with its imported key, or why it could not be imported.
    struct ResolvedKey: Sendable {
        /// The key as published.
        let jwk: JWK
        /// The imported key, or the import error (``CryptoError/keyTooSmall(bits:required:)``
        /// for an RSA modulus below 2048 bits).
        let key: Result<PublicKey, CryptoError>
    }

    /// The smallest RSA modulus accepted from a JWKS, in bits (RFC 7518 §3.3).
    static let minimumRSABits = 2048

    /// Imports every key of `jwks`, keeping the reason for each one that fails.
    static func resolve(_ jwks: [JWK]) -> [ResolvedKey] {
        jwks.map { jwk in
            do {
                return ResolvedKey(jwk: jwk, key: .success(try PublicKey(jwk: jwk)))
            } catch {
                if jwk.kty == "RSA", let bits = rsaModulusBits(jwk), bits > 0, bits < minimumRSABits {
                    return ResolvedKey(jwk: jwk, key: .failure(.keyTooSmall(bits: bits, required: minimumRSABits)))
                }
                return ResolvedKey(jwk: jwk, key: .failure(error as? CryptoError ?? .invalidKey))
            }
        }
    }

    /// The bit length of a JWK's RSA modulus `n` (leading zero bytes ignored), or nil.
    private static func rsaModulusBits(_ jwk: JWK) -> Int? {
        guard let n = jwk.n, let bytes = try? Base64URL.decode(n) else { return nil }
        guard let first = bytes.firstIndex(where: { $0 != 0 }) else { return 0 }
        return (bytes.count - first) * 8 - bytes[first].leadingZeroBitCount
    }

    /// The most keys one token's signature is checked against: the first candidates in the
    /// set's order. A real key set holds a handful of keys, and a token names its key by `kid`;
    /// the cap keeps a hostile set of hundreds of keys sharing one `kid` (or a token without
    /// one) from costing hundreds of RSA operations per token (Docs/Security.md, "Keys and
    /// signatures").
    public static let maximumCandidateKeys = 8
}
