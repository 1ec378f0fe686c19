import Foundation
import MultiAuthTestKeys
import Testing

@testable import MultiAuthCrypto

/// The bounded JWT/JSON front door, the `kid`/`aud` policy, strict keys and
/// canonical ECDSA signatures. Nothing here measures time: the linear bound is proved by
/// counting the parser's work, and the old slow inputs by the limit error they now get.
@Suite("Hostile input: JSON limits, kid/aud policy, RSA exponents, ECDSA high-S normalisation")
struct HostileInputTests {
    static func b64(_ text: String) -> String { Base64URL.encode(Array(text.utf8)) }

    /// A token with `claims` as its claims segment (the signature is never checked here).
    static func token(claims: String, header: String = #"{"alg":"RS256"}"#) -> String {
        b64(header) + "." + b64(claims) + ".c2ln"
    }

    /// `{"a": [[[ … ]]]}`: an object whose member is nested `depth - 1` arrays deep, so the
    /// whole document is `depth` levels deep.
    static func nested(depth: Int, inner: String = "") -> String {
        #"{"a":"# + String(repeating: "[", count: depth - 1) + inner + String(repeating: "]", count: depth - 1) + "}"
    }

    // MARK: Limits

    @Test("limits: the token length is checked first; 64 KiB passes the check, one byte more is refused")
    func tokenLength() throws {
        #expect(JSONLimits.jwt.maximumBytes == 65_536)
        let atLimit = String(repeating: "A", count: 65_536)
        #expect(throws: CryptoError.malformedToken) { try JWT(parsing: atLimit) }
        #expect(throws: CryptoError.limitExceeded("token length", maximum: 65_536)) { try JWT(parsing: atLimit + "A") }
        // A well-formed token just over the limit is refused the same way, before decoding.
        let padding = String(repeating: " ", count: 65_536)
        let big = Self.token(claims: #"{"sub":"u","pad":"\#(padding)"}"#)
        #expect(throws: CryptoError.limitExceeded("token length", maximum: 65_536)) { try JWT(parsing: big) }
        // The limit is configurable.
        let small = JSONLimits(maximumBytes: 40, maximumDepth: 32, maximumValues: 4_096)
        let token = Self.token(claims: #"{"sub":"user-1"}"#)
        #expect(token.utf8.count > 40)
        #expect(throws: CryptoError.limitExceeded("token length", maximum: 40)) {
            try JWT(parsing: token, limits: small)
        }
        #expect(try JWT(parsing: token, limits: .jwt).claims.subject == "user-1")
    }

    @Test("limits: 32 levels of nesting pass, 33 are refused, in the claims and in the header")
    func nestingDepth() throws {
        #expect(JSONLimits.jwt.maximumDepth == 32)
        let deepest = try JWT(parsing: Self.token(claims: Self.nested(depth: 32)))
        #expect(deepest.claims["a"]?.arrayValue != nil)
        #expect(throws: CryptoError.limitExceeded("nesting depth", maximum: 32)) {
            try JWT(parsing: Self.token(claims: Self.nested(depth: 33)))
        }
        // Empty containers count as a level too, objects as much as arrays.
        let objects = String(repeating: #"{"a":"#, count: 32) + "{}" + String(repeating: "}", count: 32)
        #expect(throws: CryptoError.limitExceeded("nesting depth", maximum: 32)) {
            try JWT(parsing: Self.token(claims: objects))
        }
        let header =
            #"{"alg":"RS256","x":"# + String(repeating: "[", count: 32) + String(repeating: "]", count: 32) + "}"
        #expect(throws: CryptoError.limitExceeded("nesting depth", maximum: 32)) {
            try JWT(parsing: Self.token(claims: "{}", header: header))
        }
    }

    @Test("limits: 4,096 values pass, 4,097 are refused")
    func valueCount() throws {
        #expect(JSONLimits.jwt.maximumValues == 4_096)
        // The object itself, the array, and 4,094 elements: 4,096 values.
        let fits = #"{"a":["# + Array(repeating: "0", count: 4_094).joined(separator: ",") + "]}"
        #expect(try JWT(parsing: Self.token(claims: fits)).claims["a"]?.arrayValue?.count == 4_094)
        let over = #"{"a":["# + Array(repeating: "0", count: 4_095).joined(separator: ",") + "]}"
        #expect(throws: CryptoError.limitExceeded("value count", maximum: 4_096)) {
            try JWT(parsing: Self.token(claims: over))
        }
        // Members count like elements.
        let members = "{" + (0..<4_096).map { #""m\#($0)":1"# }.joined(separator: ",") + "}"
        #expect(throws: CryptoError.limitExceeded("value count", maximum: 4_096)) {
            try JWT(parsing: Self.token(claims: members))
        }
    }

    /// The breaker's shapes: deep nesting under 1 KB, and the deep-and-wide tokens that took
    /// 11.2 s (7.8 KB) and 19.3 s (14 KB) of CPU.
    static func breakerTokens() -> [(String, String)] {
        func deepWide(_ depth: Int, _ width: Int, _ element: String) -> String {
            #"{"a":"# + String(repeating: "[", count: depth)
                + Array(repeating: element, count: width).joined(separator: ",")
                + String(repeating: "]", count: depth) + "}"
        }
        return [
            (
                "200 arrays",
                Self.token(
                    claims: #"{"a":"# + String(repeating: "[", count: 200) + String(repeating: "]", count: 200) + "}")
            ),
            (
                "300 arrays",
                Self.token(
                    claims: #"{"a":"# + String(repeating: "[", count: 300) + String(repeating: "]", count: 300) + "}")
            ),
            (
                "150 objects",
                Self.token(claims: String(repeating: #"{"a":"#, count: 150) + "1" + String(repeating: "}", count: 150))
            ),
            (
                "deep header",
                Self.token(
                    claims: "{}",
                    header: #"{"alg":"RS256","x":"# + String(repeating: "[", count: 250)
                        + String(repeating: "]", count: 250) + "}")
            ),
            ("7.8 KB deep and wide", Self.token(claims: deepWide(500, 1_600, "{}"))),
            ("14 KB deep and wide", Self.token(claims: deepWide(500, 3_000, "{}"))),
        ]
    }

    @Test("the breaker's nested and deep-and-wide tokens fail fast with the depth limit")
    func breakerShapes() throws {
        for (name, token) in Self.breakerTokens() {
            if name.hasSuffix("arrays") || name == "deep header" { #expect(token.utf8.count < 1_024, "\(name)") }
            #expect(throws: CryptoError.limitExceeded("nesting depth", maximum: 32), "\(name)") {
                try JWT(parsing: token)
            }
        }
    }

    @Test("on a thread with a 512 KiB stack the nested tokens are refused, not a stack overflow")
    func smallStack() async throws {
        let tokens = Self.breakerTokens().map(\.1) + [Self.token(claims: Self.nested(depth: 32))]
        let outcomes: [String] = await withCheckedContinuation { continuation in
            let thread = Thread {
                let results = tokens.map { token -> String in
                    do { return "parsed \(try JWT(parsing: token).claims.members.count)" } catch { return "\(error)" }
                }
                continuation.resume(returning: results)
            }
            thread.stackSize = 512 * 1024
            thread.start()
        }
        #expect(
            outcomes.dropLast().allSatisfy {
                $0 == CryptoError.limitExceeded("nesting depth", maximum: 32).description
            }, "\(outcomes)")
        #expect(outcomes.last == "parsed 1")
    }

    @Test("parse work is linear: steps stay within 3 per byte plus a constant, up to every limit")
    func linearWork() throws {
        let limits = JSONLimits(maximumBytes: 1 << 24, maximumDepth: 32, maximumValues: 1 << 20)
        func steps(_ json: String) throws -> Int { try JSONParser.parse(Array(json.utf8), limits: limits).steps }
        var shapes: [(String, String)] = []
        for width in [10, 100, 1_000, 10_000] {
            shapes.append(
                (
                    "deep \(width) objects",
                    String(repeating: "[", count: 31) + Array(repeating: "{}", count: width).joined(separator: ",")
                        + String(repeating: "]", count: 31)
                ))
            shapes.append(
                ("flat \(width) numbers", "[" + Array(repeating: "-1.5e3", count: width).joined(separator: ",") + "]"))
            shapes.append(
                (
                    "\(width) members",
                    "{" + (0..<width).map { #""k\#($0)":"v\u00e9\#($0)""# }.joined(separator: ",") + "}"
                ))
            shapes.append(("string \(width)", #"""# + String(repeating: #"x\n"#, count: width) + #"""#))
            shapes.append(
                (
                    "nested \(width / 10) in 32",
                    String(repeating: #"{"a":["#, count: 16).replacingOccurrences(
                        of: "[", with: "[" + Array(repeating: "true", count: width / 10).joined(separator: ",") + ",")
                        + "null" + String(repeating: "]}", count: 16)
                ))
        }
        for (name, json) in shapes {
            let bytes = json.utf8.count
            let work = try steps(json)
            #expect(work <= 3 * bytes + 8, "\(name): \(work) steps for \(bytes) bytes")
            #expect(work >= bytes / 2, "\(name): the counter must see the bytes")
        }
        // The old worst case, had it been allowed in, is linear too once the depth fits.
        let deepWide =
            String(repeating: "[", count: 30) + Array(repeating: "{}", count: 100_000).joined(separator: ",")
            + String(repeating: "]", count: 30)
        #expect(try steps(deepWide) <= 3 * deepWide.utf8.count + 8)
    }

    @Test("the parser is strict: UTF-8, control characters, surrogates, numbers, trailing text")
    func strictJSON() throws {
        func parse(_ bytes: [UInt8]) throws -> JSONValue { try JSONValue(parsing: bytes) }
        #expect(
            try parse(Array(#"{"a":[1,-0.5,2e3,true,false,null,"\u00e9\ud83d\ude00\n"],"b":{}}"#.utf8))["a"]?
                .arrayValue?.count == 7)
        #expect(try parse(Array(#" "x" "#.utf8)) == .string("x"))
        let bad: [[UInt8]] = [
            Array(#"{"a":"\#u{01}"}"#.utf8), [0x22, 0xC3, 0x28, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22],
            Array(#""\ud800""#.utf8),
            Array(#""\udc00""#.utf8), Array(#"1e400"#.utf8), Array("01".utf8), Array("1.".utf8), Array("-".utf8),
            Array(".5".utf8),
            Array("[1,]".utf8), Array(#"{"a":1,}"#.utf8), Array(#"{"a" 1}"#.utf8), Array("{} {}".utf8),
            Array("tru".utf8),
            Array("[".utf8), Array(#"{"a":1,"a":1}"#.utf8), Array("NaN".utf8), Array("\u{FEFF}{}".utf8), [],
        ]
        for input in bad {
            #expect(throws: CryptoError.malformedToken, "\(input)") { try parse(input) }
        }
        #expect(throws: CryptoError.limitExceeded("document size", maximum: 10)) {
            try JSONValue(
                parsing: Array("[1,2,3,4,5,6]".utf8),
                limits: JSONLimits(maximumBytes: 10, maximumDepth: 4, maximumValues: 100))
        }
    }

    @Test("JSONValue's Decodable path refuses values nested past 64 levels")
    func decodableDepth() throws {
        let fits = Data((String(repeating: "[", count: 60) + String(repeating: "]", count: 60)).utf8)
        #expect(try JSONDecoder().decode(JSONValue.self, from: fits).arrayValue != nil)
        let deep = Data((String(repeating: "[", count: 65) + String(repeating: "]", count: 65)).utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(JSONValue.self, from: deep) }
    }

    @Test("a JWKS document past its limits is refused before it is parsed")
    func jwksLimits() throws {
        #expect(JSONLimits.jwks.maximumBytes == 1_048_576)
        let big = Data(#"{"keys":[],"pad":""#.utf8) + Data(repeating: 0x41, count: 1_048_576) + Data(#""}"#.utf8)
        #expect(throws: CryptoError.limitExceeded("document size", maximum: 1_048_576)) { try JWKSet(jsonData: big) }
        let deep = Data(
            (#"{"keys":[],"x":"# + String(repeating: "[", count: 40) + String(repeating: "]", count: 40) + "}").utf8)
        #expect(throws: CryptoError.limitExceeded("nesting depth", maximum: 32)) { try JWKSet(jsonData: deep) }
        #expect(throws: CryptoError.malformedKeySet) { try JWKSet(jsonData: Data(#"{"keys":{}}"#.utf8)) }
        // Entries that are not JWKs are skipped: wrong member types, no kty, not objects.
        let mixed = try JWKSet(
            jsonData: Data(
                PeerFixtures.jwks.replacingOccurrences(
                    of: #"{"keys": ["#,
                    with: #"{"keys": [1, {"kty": "RSA", "kid": 7}, {"kid": "x"}, {"kty": "EC", "kid": null}, "#
                ).utf8))
        #expect(mixed.keys.map(\.kid) == [nil, "rsa-1", "ec-1"])
    }

    // MARK: JWT policy

    @Test("RFC 7515 §4.1.4: a kid that is not a string is an error, never 'no kid'")
    func kidMustBeAString() throws {
        for kid in ["1", "null", "[]", #"["rsa-1"]"#, #"{"k":"rsa-1"}"#, "true"] {
            let token = Self.token(claims: "{}", header: #"{"alg":"RS256","kid":\#(kid)}"#)
            #expect(throws: CryptoError.invalidHeader("kid"), "kid \(kid)") { try JWT(parsing: token) }
        }
        #expect(try JWT(parsing: Self.token(claims: "{}", header: #"{"alg":"RS256","kid":"k1"}"#)).keyID == "k1")
        #expect(try JWT(parsing: Self.token(claims: "{}")).keyID == nil)
        #expect(CryptoError.invalidHeader("kid").description == "invalid JOSE header parameter 'kid'")
    }

    @Test("RFC 7519 §4.1.3: the audience is checked unless the caller opts out with .anyAudience")
    func audiencePolicy() async throws {
        let jwks = try JWKSet(jsonData: Data(PeerFixtures.jwks.utf8))
        let jwt = try JWT(parsing: PeerFixtures.rs256Token)
        try jwks.verifySignature(of: jwt)
        let now = 1_700_000_100.0
        try jwt.claims.validate(at: now, audience: "client-1")
        try jwt.claims.validate(at: now, audience: .expected("client-1"))
        try jwt.claims.validate(at: now, audience: .anyAudience)
        #expect(throws: CryptoError.audienceMismatch) { try jwt.claims.validate(at: now, audience: "client-2") }
        #expect(throws: CryptoError.invalidParameter("audience")) { try jwt.claims.validate(at: now, audience: "") }
        // A token without aud does not match an expected audience.
        let noAud = try JWT(parsing: Self.token(claims: #"{"sub":"u"}"#))
        #expect(throws: CryptoError.audienceMismatch) { try noAud.claims.validate(at: now, audience: "client-1") }
        try noAud.claims.validate(at: now, audience: .anyAudience)
        // The cache applies the same rule.
        let data = Data(PeerFixtures.jwks.utf8)
        let cache = JWKSCache { data }
        let at = Date(timeIntervalSince1970: now)
        _ = try await cache.verify(PeerFixtures.rs256Token, at: at, audience: "client-1")
        await #expect(throws: CryptoError.audienceMismatch) {
            try await cache.verify(PeerFixtures.rs256Token, at: at, audience: "other")
        }
        #expect(JWTAudience.anyAudience.description == "anyAudience")
    }

    @Test("validation refuses a time that is not finite (NaN, ±infinity)")
    func nonFiniteTime() throws {
        let claims = try JWT(parsing: Self.token(claims: #"{"exp":1700000000,"nbf":1600000000}"#)).claims
        for now in [-Double.infinity, .infinity, .nan] {
            #expect(throws: CryptoError.timeOutOfRange, "\(now)") {
                try claims.validate(at: now, audience: .anyAudience)
            }
        }
    }

    // MARK: Keys and signatures

    /// The modulus of the peer fixture's RSA key.
    static func fixtureModulus() throws -> [UInt8] {
        let jwks = try JWKSet(jsonData: Data(PeerFixtures.jwks.utf8))
        return try Base64URL.decode(jwks.keys[0].n!)
    }

    @Test("RSA public exponents that are even or below 3 are refused: from a JWK, from DER")
    func rsaExponents() throws {
        let modulus = try Self.fixtureModulus()
        for exponent: [UInt8] in [[1], [2], [4], [0x01, 0x00, 0x00], [0x01, 0x00, 0x00, 0x00], [0, 1]] {
            #expect(throws: CryptoError.invalidKey, "e = \(exponent)") {
                try PublicKey(rsaModulus: modulus, exponent: exponent)
            }
            let jwk = JWK(kty: "RSA", kid: "k", n: Base64URL.encode(modulus), e: Base64URL.encode(exponent))
            #expect(throws: CryptoError.invalidKey, "e = \(exponent)") { try PublicKey(jwk: jwk) }
            let spki = DER.subjectPublicKeyInfo(rsaPublicKey: DER.rsaPublicKey(modulus: modulus, exponent: exponent))
            #expect(throws: CryptoError.invalidKey, "e = \(exponent)") { try PublicKey(derRepresentation: spki) }
        }
        for exponent: [UInt8] in [[3], [0x01, 0x00, 0x01]] {
            #expect(try PublicKey(rsaModulus: modulus, exponent: exponent).keyType == .rsa)
        }
    }

    @Test("with e = 1 a forged RS256 token (signature = its own padded digest) finds no usable key")
    func exponentOneForgery() throws {
        let modulus = try Self.fixtureModulus()
        let input = Self.b64(#"{"alg":"RS256","kid":"e1"}"#) + "." + Self.b64(#"{"sub":"admin","aud":"client-1"}"#)
        // EMSA-PKCS1-v1_5 (RFC 8017 §9.2): 00 01 FF… 00 DigestInfo(SHA-256) H. With e = 1 this
        // is a "valid" signature for anyone.
        let digestInfo: [UInt8] = [
            0x30, 0x31, 0x30, 0x0D, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01, 0x05, 0x00, 0x04,
            0x20,
        ]
        let t = digestInfo + MessageDigest.hash(Array(input.utf8), algorithm: .sha256)
        let forged = [0x00, 0x01] + [UInt8](repeating: 0xFF, count: modulus.count - t.count - 3) + [0x00] + t
        let jwt = try JWT(parsing: input + "." + Base64URL.encode(forged))
        let set = JWKSet(keys: [JWK(kty: "RSA", kid: "e1", n: Base64URL.encode(modulus), e: "AQ")])
        #expect(throws: CryptoError.keyNotFound) { try set.verifySignature(of: jwt) }
    }

    @Test(
        "ES256: a high-S signature (the other encoding of a valid one) verifies like its low-S twin; our signer emits low S"
    )
    func ecdsaHighSIsNormalised() throws {
        let jwks = try JWKSet(jsonData: Data(PeerFixtures.jwks.utf8))
        let token = PeerFixtures.es256Token
        let jwt = try JWT(parsing: token)
        #expect(ECDSASignature.isLowS(jwt.signature))
        #expect(try jwks.verifySignature(of: jwt).kid == "ec-1")
        // (r, n − s) is the same signature in its other encoding.
        var twin = Array(jwt.signature[..<32])
        var borrow = 0
        var s = [UInt8](repeating: 0, count: 32)
        for index in stride(from: 31, through: 0, by: -1) {
            let difference = Int(ECDSASignature.p256Order[index]) - Int(jwt.signature[32 + index]) - borrow
            borrow = difference < 0 ? 1 : 0
            s[index] = UInt8((difference + 256) % 256)
        }
        twin += s
        #expect(!ECDSASignature.isLowS(twin))
        #expect(ECDSASignature.normalizedLowS(twin) == jwt.signature)
        let parts = token.split(separator: ".")
        let highS = try JWT(parsing: "\(parts[0]).\(parts[1]).\(Base64URL.encode(twin))")
        // Verification normalises: the high-S twin verifies with the same key, like the original.
        #expect(try jwks.verifySignature(of: highS).kid == "ec-1")
        let key = try PublicKey(jwk: jwks.keys[1])
        let input = Array("\(parts[0]).\(parts[1])".utf8)
        try key.verify(twin, for: input, algorithm: .es256)
        #expect(key.isValidSignature(twin, for: input, algorithm: .es256))
        // A changed message still fails in both encodings.
        #expect(!key.isValidSignature(twin, for: input + [0x20], algorithm: .es256))
        #expect(throws: CryptoError.signatureInvalid) {
            try key.verify(jwt.signature, for: input + [0x20], algorithm: .es256)
        }
        // s ≥ n is no encoding of any signature: left as it is, and refused.
        let sIsN = Array(jwt.signature[..<32]) + ECDSASignature.p256Order
        #expect(ECDSASignature.normalizedLowS(sIsN) == sIsN)
        #expect(!key.isValidSignature(sIsN, for: input, algorithm: .es256))
        var sAboveN = ECDSASignature.p256Order
        sAboveN[31] += 1
        #expect(
            ECDSASignature.normalizedLowS(Array(jwt.signature[..<32]) + sAboveN) == Array(jwt.signature[..<32])
                + sAboveN)
        #expect(!key.isValidSignature(Array(jwt.signature[..<32]) + sAboveN, for: input, algorithm: .es256))
        // Our signer normalises: 64 signatures are all low-S and all verify (without the
        // normalisation about half would be high-S; all 64 low by chance is 2^-64).
        let signer = TestKeys.p256B
        for index in 0..<64 {
            let message = Array("message \(index)".utf8)
            let signature = try signer.signature(for: message, algorithm: .es256)
            #expect(ECDSASignature.isLowS(signature))
            #expect(signer.publicKey.isValidSignature(signature, for: message, algorithm: .es256))
        }
        // The boundary: s = n/2 is low, n/2 + 1 is high.
        #expect(ECDSASignature.isLowS([UInt8](repeating: 1, count: 32) + ECDSASignature.p256HalfOrder))
        var above = ECDSASignature.p256HalfOrder
        above[31] += 1
        #expect(!ECDSASignature.isLowS([UInt8](repeating: 1, count: 32) + above))
    }
}
