/// A JSON Web Key (RFC 7517 §4) with the members MultiAuth reads: RSA (`n`, `e`, RFC 7518
/// §6.3.1) and EC (`crv`, `x`, `y`, RFC 7518 §6.2.1). Other members are ignored when decoding.
public struct JWK: Codable, Sendable, Hashable {
    /// Key type: `RSA` or `EC` (others are kept but cannot be used).
    public var kty: String
    /// Key ID, matched against a JWS header's `kid`.
    public var kid: String?
    /// The algorithm the key is meant for, e.g. `RS256`.
    public var alg: String?
    /// Intended use: `sig` or `enc`.
    public var use: String?
    /// RSA modulus, base64url big-endian.
    public var n: String?
    /// RSA public exponent, base64url big-endian.
    public var e: String?
    /// EC curve name, `P-256`.
    public var crv: String?
    /// EC x coordinate, base64url, 32 bytes for P-256.
    public var x: String?
    /// EC y coordinate, base64url, 32 bytes for P-256.
    public var y: String?

    /// Creates a JWK from its members.
    public init(
        kty: String, kid: String? = nil, alg: String? = nil, use: String? = nil, n: String? = nil,
        e: String? = nil, crv: String? = nil, x: String? = nil, y: String? = nil
    ) {
        self.kty = kty
        self.kid = kid
        self.alg = alg
        self.use = use
        self.n = n
        self.e = e
        self.crv = crv
        self.x = x
        self.y = y
    }

    /// Whether this key may verify a JWS signed with `algorithm`: same key type and curve,
    /// `use` absent or `sig`, `alg` absent or equal (RFC 7517 §4.2, §4.4).
    public func fits(_ algorithm: SignatureAlgorithm) -> Bool {
        if let use, use != "sig" { return false }
        if let alg, alg != algorithm.rawValue { return false }
        switch algorithm.keyType {
        case .rsa: return kty == "RSA"
        case .p256: return kty == "EC" && crv == "P-256"
        }
    }

    /// A JWK from a parsed JSON object, or nil when it is not one this type can hold: not an
    /// object, no string `kty`, or a member it reads that is not a string.
    init?(json: JSONValue) {
        guard case .object(let members) = json, let kty = members["kty"]?.stringValue else { return nil }
        var strings: [String: String] = [:]
        for name in ["kid", "alg", "use", "n", "e", "crv", "x", "y"] {
            guard let value = members[name], value != .null else { continue }
            guard let string = value.stringValue else { return nil }
            strings[name] = string
        }
        self.init(
            kty: kty, kid: strings["kid"], alg: strings["alg"], use: strings["use"], n: strings["n"], e: strings["e"],
            crv: strings["crv"], x: strings["x"], y: strings["y"])
    }
}
