import Foundation

/// A JSON Web Token in JWS compact serialization (RFC 7519, RFC 7515 §7.1):
/// `base64url(header).base64url(claims).base64url(signature)`.
///
/// ``init(parsing:)`` decodes without verifying, which is what a client does with a token it
/// only reads. A server verifies with ``verifySignature(with:algorithms:)``,
/// ``JWKSet/verifySignature(of:algorithms:)`` or ``JWKSCache``, then checks
/// ``JWTClaims`` `validate(at:leeway:issuer:audience:)`.
///
/// Only RS256, RS512 and ES256 verify; `alg: none`, every `HS*` and any `alg` that does not fit
/// the key's type are rejected, so an RSA public key is never used as an HMAC secret.
/// Neither the raw token nor the signature is ever printed: they are kept redacted, so Swift's
/// default renderings show the header, the claims (names and time claims only, see
/// ``JWTClaims``), `algorithm` and `keyID`.
public struct JWT: Sendable {
    /// The JOSE header members (RFC 7515 §4).
    public let header: [String: JSONValue]
    /// The claims set.
    public let claims: JWTClaims
    /// The ASCII bytes of `header.payload`, the JWS signing input (RFC 7515 §5.1).
    var signingInput: [UInt8] { redactedSigningInput.value }
    /// The decoded signature bytes.
    var signature: [UInt8] { redactedSignature.value }
    /// ``signingInput``, which holds the claims, rendered as `<redacted>`.
    private let redactedSigningInput: RedactedBox<[UInt8]>
    /// ``signature``, rendered as `<redacted>`.
    private let redactedSignature: RedactedBox<[UInt8]>

    /// The header's `alg`, e.g. `RS256` (read once while parsing, which requires it; a
    /// verification consults it without a dictionary lookup).
    public let algorithm: String?
    /// The header's `kid`, if any (always a string: parsing refuses any other type; read once
    /// while parsing, as a verification consults it several times).
    public let keyID: String?
    /// The header's `typ`, if any.
    public var type: String? { header["typ"]?.stringValue }

    /// Decodes a compact JWT without verifying it, within ``JSONLimits/jwt``.
    ///
    /// - Parameter token: the token, exactly three base64url segments separated by `.`.
    /// - Throws: see ``init(parsing:limits:)``.
    public init(parsing token: String) throws {
        try self.init(parsing: token, limits: .jwt)
    }

    /// Decodes a compact JWT without verifying it, refusing input past `limits` before any
    /// work that grows with it.
    ///
    /// The token length is checked first (before splitting or base64 decoding), then each
    /// segment is parsed by the iterative, bounded JSON parser: time linear in the token
    /// length, constant stack depth whatever the nesting (Docs/Security.md).
    /// - Parameters:
    ///   - token: the token, exactly three base64url segments separated by `.`.
    ///   - limits: the token length (`maximumBytes`, UTF-8 bytes), nesting depth and value
    ///     count per segment; ``JSONLimits/jwt`` (64 KiB, 32 levels, 4,096 values) by default.
    /// - Throws: ``CryptoError/limitExceeded(_:maximum:)`` (`"token length"`,
    ///   `"nesting depth"`, `"value count"`); ``CryptoError/malformedToken`` for a token
    ///   without exactly three segments, or whose header or claims are not JSON objects,
    ///   repeat a member name (at any depth, compared after unescaping: RFC 7519 §4 allows
    ///   rejecting, and we do, so `{"alg":"RS256","alg":"none"}` is never read as either), or
    ///   whose `alg` is missing or not a string; ``CryptoError/invalidHeader(_:)`` (`"kid"`)
    ///   for a `kid` that is not a string (RFC 7515 §4.1.4); ``CryptoError/invalidBase64``
    ///   for a segment that is not unpadded base64url; ``CryptoError/invalidClaim(_:)`` for a
    ///   registered claim of the wrong JSON type.
    /// Concurrency: pure; safe on any thread, including one with a 512 KiB stack.
    public init(parsing token: String, limits: JSONLimits) throws {
        let utf8 = token.utf8
        guard utf8.count <= limits.maximumBytes else {
            throw CryptoError.limitExceeded("token length", maximum: limits.maximumBytes)
        }
        let parts = Self.parts(of: token)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty else { throw CryptoError.malformedToken }
        header = try JSONValue.object(from: Base64.decode(parts[0], urlSafe: true), limits: limits)
        guard let algorithm = header["alg"]?.stringValue else { throw CryptoError.malformedToken }
        let kid = header["kid"]
        if let kid, kid.stringValue == nil { throw CryptoError.invalidHeader("kid") }
        self.algorithm = algorithm
        keyID = kid?.stringValue
        claims = try JWTClaims(JSONValue.object(from: Base64.decode(parts[1], urlSafe: true), limits: limits))
        redactedSignature = RedactedBox(try Base64.decode(parts[2], urlSafe: true))
        let input = utf8[parts[0].startIndex..<parts[1].endIndex]
        redactedSigningInput = RedactedBox(input.withContiguousStorageIfAvailable { Array($0) } ?? Array(input))
    }

    /// The segments of `token` between dots, split at most 3 times (so 4 segments mean more
    /// than 3, and a token with many dots costs no more than one with 4): `memchr` over the
    /// contiguous UTF-8 bytes, a byte loop otherwise.
    static func parts(of token: String) -> [Substring.UTF8View] {
        let utf8 = token.utf8
        let maximumDots = 3
        let dots =
            utf8.withContiguousStorageIfAvailable { bytes -> [Int] in
                guard let base = bytes.baseAddress else { return [] }
                var offsets: [Int] = []
                var offset = 0
                while offsets.count < maximumDots, offset < bytes.count,
                    let found = memchr(base + offset, Int32(UInt8(ascii: ".")), bytes.count - offset)
                {
                    let position = UnsafeRawPointer(found) - UnsafeRawPointer(base)
                    offsets.append(position)
                    offset = position + 1
                }
                return offsets
            }
            ?? Array(
                utf8.enumerated().lazy.filter { $0.element == UInt8(ascii: ".") }.map(\.offset).prefix(maximumDots))
        var parts: [Substring.UTF8View] = []
        parts.reserveCapacity(dots.count + 1)
        var start = utf8.startIndex
        for offset in dots {
            let dot = utf8.index(utf8.startIndex, offsetBy: offset)
            parts.append(utf8[start..<dot])
            start = utf8.index(after: dot)
        }
        parts.append(utf8[start..<utf8.endIndex])
        return parts
    }

    /// The header's `alg` as an allowed signature algorithm.
    ///
    /// - Throws: ``CryptoError/unsupportedAlgorithm`` for `none`, `HS*`, anything unknown or
    ///   outside `allowed`, and for a `crit` header (no extensions are understood,
    ///   RFC 7515 §4.1.11).
    public func signatureAlgorithm(allowed: Set<SignatureAlgorithm> = Set(SignatureAlgorithm.allCases)) throws
        -> SignatureAlgorithm
    {
        guard header["crit"] == nil, let name = algorithm, let algorithm = SignatureAlgorithm(rawValue: name),
            allowed.contains(algorithm)
        else {
            throw CryptoError.unsupportedAlgorithm
        }
        return algorithm
    }

    /// Verifies the signature with one known key (RFC 7515 §5.2).
    ///
    /// - Parameters:
    ///   - key: the issuer's public key.
    ///   - algorithms: the `alg` values accepted; all of RS256, RS512, ES256 by default.
    /// - Throws: ``CryptoError/unsupportedAlgorithm`` when `alg` is not allowed or does not
    ///   fit the key type; ``CryptoError/signatureInvalid``.
    public func verifySignature(
        with key: PublicKey,
        algorithms: Set<SignatureAlgorithm> = Set(SignatureAlgorithm.allCases)
    ) throws {
        let algorithm = try signatureAlgorithm(allowed: algorithms)
        try key.verify(signature, for: signingInput, algorithm: algorithm)
    }

    /// Signs `claims` into a compact JWT, as the sandbox's emulated issuers do.
    ///
    /// - Parameters:
    ///   - claims: the claims set; NumericDates as numbers of seconds.
    ///   - key: the private key; RSA for RS256/RS512, P-256 for ES256.
    ///   - algorithm: the JWS `alg`.
    ///   - keyID: the `kid` header, or `nil`.
    ///   - type: the `typ` header; `JWT` by default, `nil` to omit.
    /// - Returns: the token `header.claims.signature`, each segment unpadded base64url.
    /// - Throws: ``CryptoError/unsupportedAlgorithm`` when `algorithm` does not fit the key;
    ///   ``CryptoError/libraryFailure(_:)``.
    public static func sign(
        claims: [String: JSONValue], with key: PrivateKey, algorithm: SignatureAlgorithm,
        keyID: String? = nil, type: String? = "JWT"
    ) throws -> String {
        var header: [String: JSONValue] = ["alg": .string(algorithm.rawValue)]
        if let keyID { header["kid"] = .string(keyID) }
        if let type { header["typ"] = .string(type) }
        let input =
            Base64URL.encode(try JSONValue.object(header).jsonData()) + "."
            + Base64URL.encode(try JSONValue.object(claims).jsonData())
        let signature = try key.signature(for: Array(input.utf8), algorithm: algorithm)
        return input + "." + Base64URL.encode(signature)
    }
}
