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

    /// Parses a JWKS document.
    ///
    /// - Parameter jsonData: the UTF-8 JSON bytes.
    /// - Throws: ``CryptoError/malformedKeySet`` when it is not `{"keys": [...]}`.
    public init(jsonData: Data) throws {
        do {
            self = try JSONDecoder().decode(JWKSet.self, from: jsonData)
        } catch {
            throw CryptoError.malformedKeySet
        }
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
    /// every fitting key is tried.
    /// - Returns: the key that verified.
    /// - Throws: ``CryptoError/unsupportedAlgorithm`` for `none`, `HS*` or a disallowed
    ///   `alg`; ``CryptoError/keyNotFound`` when no usable key is a candidate;
    ///   ``CryptoError/signatureInvalid`` when candidates exist but none verifies.
    @discardableResult
    public func verifySignature(of jwt: JWT, algorithms: Set<SignatureAlgorithm> = Set(SignatureAlgorithm.allCases)) throws -> JWK {
        let algorithm = try jwt.signatureAlgorithm(allowed: algorithms)
        let resolved = keys.compactMap { jwk in (try? PublicKey(jwk: jwk)).map { (jwk, $0) } }
        return try Self.verify(jwt, algorithm: algorithm, candidates: Self.candidates(in: resolved, for: jwt, algorithm: algorithm))
    }

    /// The imported keys that may verify `jwt` under `algorithm`.
    static func candidates(in resolved: [(JWK, PublicKey)], for jwt: JWT, algorithm: SignatureAlgorithm) -> [(JWK, PublicKey)] {
        resolved.filter { jwk, key in
            key.keyType == algorithm.keyType && jwk.fits(algorithm) && (jwt.keyID == nil || jwk.kid == jwt.keyID)
        }
    }

    static func verify(_ jwt: JWT, algorithm: SignatureAlgorithm, candidates: [(JWK, PublicKey)]) throws -> JWK {
        guard !candidates.isEmpty else { throw CryptoError.keyNotFound }
        for (jwk, key) in candidates where key.isValidSignature(jwt.signature, for: jwt.signingInput, algorithm: algorithm) {
            return jwk
        }
        throw CryptoError.signatureInvalid
    }
}
