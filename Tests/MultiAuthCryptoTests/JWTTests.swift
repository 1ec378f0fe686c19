import Foundation
import MultiAuthTestKeys
import Testing

@testable import MultiAuthCrypto

@Suite("JWT decoding, claims and leeway, JWS verification against JWKS")
struct JWTTests {
    /// An unsigned token with the given claims (the signature segment is irrelevant here).
    static func token(_ claims: String, header: String = #"{"alg":"RS256","typ":"JWT"}"#) -> String {
        Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8)) + ".c2ln"
    }

    @Test("B13: a token needs exactly three segments; bad segments are errors")
    func b13() throws {
        let header = "eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9"
        let payload = "eyJzdWIiOiJ1c2VyLTEyIiwiZXhwIjoxNzAwMDAwMDAwfQ"
        #expect(throws: CryptoError.malformedToken) { try JWT(parsing: "\(header).\(payload)") }
        #expect(throws: CryptoError.malformedToken) { try JWT(parsing: "\(header).\(payload).sig.extra") }
        #expect(throws: CryptoError.malformedToken) { try JWT(parsing: "") }
        #expect(throws: CryptoError.malformedToken) { try JWT(parsing: ".\(payload).") }
        #expect(throws: CryptoError.invalidBase64) { try JWT(parsing: "\(header).eyJhY.") }
        // Decoding without verifying: a 2-char remainder, "-" and "_" are all fine.
        let jwt = try JWT(parsing: "\(header).\(payload).")
        #expect(jwt.algorithm == "HS256" && jwt.type == "JWT")
        #expect(jwt.claims.subject == "user-12")
        #expect(jwt.claims.expiresAt == NumericDate(1_700_000_000))
        let note = try JWT(parsing: "\(header).eyJzdWIiOiJ1MSIsIm5vdGUiOiI_Pj8-IiwiZXhwIjoxNzAwMDAwMDAwfQ.")
        #expect(note.claims["note"] == .string("?>?>"))
        // Header and claims must be JSON objects, and the header must name an alg.
        #expect(throws: CryptoError.malformedToken) { try JWT(parsing: Self.token("[1,2]")) }
        #expect(throws: CryptoError.malformedToken) { try JWT(parsing: Self.token("{}", header: #"{"typ":"JWT"}"#)) }
        #expect(throws: CryptoError.malformedToken) { try JWT(parsing: Self.token("not json")) }
    }

    @Test("typed registered claims; custom claims by key; strings are not NumericDates")
    func claims() throws {
        let jwt = try JWT(
            parsing: Self.token(
                #"{"iss":"https://otpless.com","sub":"u1","aud":["a","b"],"exp":1700000000.25,"nbf":1699999999,"iat":1699999990,"jti":"id-1","phone_number":"+15555550100","verified":true,"n":3,"obj":{"k":null}}"#
            ))
        let claims = jwt.claims
        #expect(claims.issuer == "https://otpless.com")
        #expect(claims.subject == "u1")
        #expect(claims.audience == ["a", "b"])
        #expect(claims.expiresAt?.secondsSince1970 == 1_700_000_000.25)
        #expect(claims.notBefore == NumericDate(1_699_999_999))
        #expect(claims.issuedAt?.date == Date(timeIntervalSince1970: 1_699_999_990))
        #expect(claims.jwtID == "id-1")
        #expect(claims["phone_number"]?.stringValue == "+15555550100")
        #expect(claims["verified"] == .bool(true))
        #expect(claims["n"]?.int64Value == 3)
        #expect(claims["obj"]?["k"] == .null)
        #expect(claims["missing"] == nil)
        #expect(try JWT(parsing: Self.token(#"{"aud":"solo"}"#)).claims.audience == ["solo"])
        for (name, json) in [
            ("exp", #"{"exp":"1700000000"}"#), ("nbf", #"{"nbf":true}"#), ("iat", #"{"iat":null}"#),
            ("aud", #"{"aud":[1]}"#), ("aud", #"{"aud":{}}"#), ("iss", #"{"iss":5}"#), ("sub", #"{"sub":["x"]}"#),
        ] {
            #expect(throws: CryptoError.invalidClaim(name), "\(json)") { try JWT(parsing: Self.token(json)) }
        }
    }

    @Test("B15: leeway for exp and nbf; a future iat is not an error")
    func b15() throws {
        let now = 1_700_000_000.0
        func claims(_ json: String) throws -> JWTClaims { try JWT(parsing: Self.token(json)).claims }
        try claims(#"{"iat":1700000005,"exp":1700003600}"#).validate(at: now, leeway: 60, audience: .anyAudience)
        try claims(#"{"iat":1700000005,"exp":1700003600}"#).validate(at: now, leeway: 0, audience: .anyAudience)
        try claims(#"{"exp":1699999970}"#).validate(at: now, leeway: 60, audience: .anyAudience)
        #expect(throws: CryptoError.expired) {
            try claims(#"{"exp":1699999970}"#).validate(at: now, leeway: 0, audience: .anyAudience)
        }
        #expect(throws: CryptoError.expired) {
            try claims(#"{"exp":1699999900}"#).validate(at: now, leeway: 60, audience: .anyAudience)
        }
        try claims(#"{"nbf":1700000030}"#).validate(at: now, leeway: 60, audience: .anyAudience)
        #expect(throws: CryptoError.notYetValid) {
            try claims(#"{"nbf":1700000030}"#).validate(at: now, leeway: 0, audience: .anyAudience)
        }
        // Portal-style: exp = iat + 300, leeway 60 → accepted at iat+359, rejected at iat+360.
        let iat = 1_700_000_000.0
        let portal = try claims(#"{"iat":1700000000,"exp":1700000300}"#)
        try portal.validate(at: iat + 359, leeway: 60, audience: .anyAudience)
        try portal.validate(at: iat + 359.999, leeway: 60, audience: .anyAudience)
        #expect(throws: CryptoError.expired) { try portal.validate(at: iat + 360, leeway: 60, audience: .anyAudience) }
        #expect(throws: CryptoError.expired) {
            try portal.validate(at: Date(timeIntervalSince1970: iat + 360), leeway: 60, audience: .anyAudience)
        }
        try portal.validate(at: Date(timeIntervalSince1970: iat + 359), leeway: 60, audience: .anyAudience)
        // Boundaries of the rule: now < exp + leeway, now >= nbf - leeway.
        #expect(throws: CryptoError.expired) {
            try claims(#"{"exp":1700000000}"#).validate(at: now, leeway: 0, audience: .anyAudience)
        }
        try claims(#"{"nbf":1700000000}"#).validate(at: now, leeway: 0, audience: .anyAudience)
        try claims(#"{"nbf":1700000060}"#).validate(at: now, leeway: 60, audience: .anyAudience)
        #expect(throws: CryptoError.notYetValid) {
            try claims(#"{"nbf":1700000060.5}"#).validate(at: now, leeway: 60, audience: .anyAudience)
        }
        try claims("{}").validate(at: now, leeway: 0, audience: .anyAudience)
        #expect(throws: CryptoError.invalidParameter("leeway")) {
            try claims("{}").validate(at: now, leeway: -1, audience: .anyAudience)
        }
    }

    @Test("issuer and audience checks")
    func issuerAudience() throws {
        let claims = try JWT(parsing: Self.token(#"{"iss":"https://otpless.com","aud":["app","web"]}"#)).claims
        try claims.validate(at: 0, issuer: "https://otpless.com", audience: "web")
        #expect(throws: CryptoError.issuerMismatch) {
            try claims.validate(at: 0, issuer: "https://evil.example", audience: .anyAudience)
        }
        #expect(throws: CryptoError.audienceMismatch) { try claims.validate(at: 0, audience: "other") }
    }

    @Test("PyJWT RS256 and ES256 tokens verify against the peer's JWKS")
    func peerTokens() throws {
        let set = try JWKSet(jsonData: Data(PeerFixtures.jwks.utf8))
        let rs = try JWT(parsing: PeerFixtures.rs256Token)
        #expect(try set.verifySignature(of: rs).kid == "rsa-1")
        try rs.claims.validate(at: 1_700_000_100, issuer: "https://issuer.example", audience: "client-1")
        let es = try JWT(parsing: PeerFixtures.es256Token)
        #expect(try set.verifySignature(of: es).kid == "ec-1")
        #expect(es.claims.expiresAt?.secondsSince1970 == 1_700_003_600.5)
        try es.verifySignature(with: PublicKey(jwk: set.keys[1]))
        // Only the algorithms allowed by the caller verify.
        #expect(throws: CryptoError.unsupportedAlgorithm) { try set.verifySignature(of: es, algorithms: [.rs256]) }
        // A token signed by one key does not verify with another key of the right type.
        let other = TestKeys.rsaB
        #expect(throws: CryptoError.signatureInvalid) { try rs.verifySignature(with: other.publicKey) }
    }

    @Test("tampered header, claims or signature fail")
    func tampering() throws {
        let set = try JWKSet(jsonData: Data(PeerFixtures.jwks.utf8))
        let parts = PeerFixtures.rs256Token.split(separator: ".").map(String.init)
        let forgedClaims = Base64URL.encode(
            Array(
                #"{"iss":"https://issuer.example","sub":"admin","aud":"client-1","exp":1700003600,"iat":1700000000}"#
                    .utf8))
        #expect(throws: CryptoError.signatureInvalid) {
            try set.verifySignature(of: JWT(parsing: [parts[0], forgedClaims, parts[2]].joined(separator: ".")))
        }
        var signature = try Base64URL.decode(parts[2])
        signature[100] ^= 0x40
        #expect(throws: CryptoError.signatureInvalid) {
            try set.verifySignature(
                of: JWT(parsing: [parts[0], parts[1], Base64URL.encode(signature)].joined(separator: ".")))
        }
        #expect(throws: CryptoError.signatureInvalid) {
            try set.verifySignature(of: JWT(parsing: [parts[0], parts[1], ""].joined(separator: ".")))
        }
        // Changing the kid to the EC key with alg RS256 finds no fitting key.
        let header = Base64URL.encode(Array(#"{"alg":"RS256","kid":"ec-1","typ":"JWT"}"#.utf8))
        #expect(throws: CryptoError.keyNotFound) {
            try set.verifySignature(of: JWT(parsing: [header, parts[1], parts[2]].joined(separator: ".")))
        }
    }

    @Test("alg none, HS256 with an RSA key, unknown algs and crit headers are rejected")
    func algorithmConfusion() throws {
        let set = try JWKSet(jsonData: Data(PeerFixtures.jwks.utf8))
        let rsaKey = try PublicKey(jwk: set.keys[0])
        let claims = Base64URL.encode(Array(#"{"sub":"admin"}"#.utf8))
        // alg none with an empty signature.
        let none = Base64URL.encode(Array(#"{"alg":"none","kid":"rsa-1"}"#.utf8)) + "." + claims + "."
        #expect(throws: CryptoError.unsupportedAlgorithm) { try set.verifySignature(of: JWT(parsing: none)) }
        #expect(throws: CryptoError.unsupportedAlgorithm) { try JWT(parsing: none).verifySignature(with: rsaKey) }
        // HS256 "signed" with the RSA public key's DER as the HMAC secret (the classic attack).
        let hsHeader = Base64URL.encode(Array(#"{"alg":"HS256","kid":"rsa-1"}"#.utf8))
        let mac = HMAC.authenticationCode(
            for: Array("\(hsHeader).\(claims)".utf8), key: try rsaKey.derRepresentation(), algorithm: .sha256)
        let hs = "\(hsHeader).\(claims).\(Base64URL.encode(mac))"
        #expect(throws: CryptoError.unsupportedAlgorithm) { try set.verifySignature(of: JWT(parsing: hs)) }
        #expect(throws: CryptoError.unsupportedAlgorithm) { try JWT(parsing: hs).verifySignature(with: rsaKey) }
        for alg in ["HS512", "PS256", "RS384", "ES512", "EdDSA", "rs256", ""] {
            let header = Base64URL.encode(Array(#"{"alg":"\#(alg)"}"#.utf8))
            #expect(throws: CryptoError.unsupportedAlgorithm, "\(alg)") {
                try JWT(parsing: "\(header).\(claims).").verifySignature(with: rsaKey)
            }
        }
        // ES256 header over an RSA key: the key type does not fit the alg.
        let esHeader = Base64URL.encode(Array(#"{"alg":"ES256"}"#.utf8))
        #expect(throws: CryptoError.unsupportedAlgorithm) {
            try JWT(parsing: "\(esHeader).\(claims).\(Base64URL.encode([UInt8](repeating: 1, count: 64)))")
                .verifySignature(with: rsaKey)
        }
        // A crit header names extensions we do not understand.
        let key = TestKeys.p256A
        let good = try JWT.sign(claims: ["sub": .string("x")], with: key, algorithm: .es256)
        try JWT(parsing: good).verifySignature(with: key.publicKey)
        let critHeader = Base64URL.encode(Array(#"{"alg":"ES256","crit":["b64"],"b64":false}"#.utf8))
        let critInput = "\(critHeader).\(claims)"
        let critToken =
            critInput + "." + Base64URL.encode(try key.signature(for: Array(critInput.utf8), algorithm: .es256))
        #expect(throws: CryptoError.unsupportedAlgorithm) {
            try JWT(parsing: critToken).verifySignature(with: key.publicKey)
        }
    }

    @Test("key selection honours kid, kty, crv, use and alg")
    func keySelection() throws {
        let rsa = TestKeys.rsaA
        let ec = TestKeys.p256A
        var encryptionKey = try rsa.publicKey.jwk(keyID: "enc")
        encryptionKey.use = "enc"
        let set = JWKSet(keys: [
            encryptionKey,
            try rsa.publicKey.jwk(keyID: "rs512-only", algorithm: .rs512),
            try ec.publicKey.jwk(keyID: "ec"),
            JWK(kty: "oct", kid: "hmac"),
        ])
        let encToken = try JWT(parsing: JWT.sign(claims: [:], with: rsa, algorithm: .rs256, keyID: "enc"))
        #expect(throws: CryptoError.keyNotFound) { try set.verifySignature(of: encToken) }
        let wrongAlg = try JWT(parsing: JWT.sign(claims: [:], with: rsa, algorithm: .rs256, keyID: "rs512-only"))
        #expect(throws: CryptoError.keyNotFound) { try set.verifySignature(of: wrongAlg) }
        let rightAlg = try JWT(parsing: JWT.sign(claims: [:], with: rsa, algorithm: .rs512, keyID: "rs512-only"))
        #expect(try set.verifySignature(of: rightAlg).kid == "rs512-only")
        let noKid = try JWT(parsing: JWT.sign(claims: [:], with: ec, algorithm: .es256))
        #expect(try set.verifySignature(of: noKid).kid == "ec")
        let unknownKid = try JWT(parsing: JWT.sign(claims: [:], with: ec, algorithm: .es256, keyID: "rotated"))
        #expect(throws: CryptoError.keyNotFound) { try set.verifySignature(of: unknownKid) }
        #expect(throws: CryptoError.malformedKeySet) { try JWKSet(jsonData: Data("[]".utf8)) }
        #expect(throws: CryptoError.malformedKeySet) { try JWKSet(jsonData: Data(#"{"keys":{}}"#.utf8)) }
        // Entries that are not JWK objects are skipped, not fatal.
        let mixed = try JWKSet(
            jsonData: Data(#"{"keys":[1,{"kid":"no-kty"},{"kty":"RSA","kid":"r","n":"AQAB","e":"AQAB"}]}"#.utf8))
        #expect(mixed.keys.map(\.kid) == ["r"])
        #expect(try JWKSet(jsonData: set.jsonData()) == set)
    }

    @Test("signed tokens round-trip: RS256, RS512 and ES256")
    func signing() throws {
        let claims: [String: JSONValue] = [
            "iss": .string("sandbox"), "exp": .number(1_700_000_300), "iat": .number(1_700_000_000),
            "aud": .array([.string("app")]), "nonce": .string("n-1"),
        ]
        for (key, algorithm) in [
            (TestKeys.rsaA, SignatureAlgorithm.rs256), (TestKeys.rsaB, .rs512), (TestKeys.p256A, .es256),
        ] {
            let token = try JWT.sign(claims: claims, with: key, algorithm: algorithm, keyID: "k1")
            #expect(token.contains(#"eyJ"#))
            let jwt = try JWT(parsing: token)
            #expect(jwt.algorithm == algorithm.rawValue && jwt.keyID == "k1" && jwt.type == "JWT")
            #expect(jwt.claims.members == claims)
            let set = JWKSet(keys: [try key.publicKey.jwk(keyID: "k1", algorithm: algorithm)])
            try set.verifySignature(of: jwt)
            // Whole numbers are written as integers.
            let payload = String(decoding: try Base64URL.decode(token.split(separator: ".")[1]), as: UTF8.self)
            #expect(payload.contains(#""exp":1700000300"#))
        }
        #expect(throws: CryptoError.unsupportedAlgorithm) {
            try JWT.sign(claims: [:], with: TestKeys.p256B, algorithm: .rs256)
        }
    }

    @Test("descriptions never show the token, the signature or claim values")
    func redaction() throws {
        let jwt = try JWT(parsing: PeerFixtures.rs256Token)
        let signature = String(PeerFixtures.rs256Token.split(separator: ".")[2])
        var dumped = ""
        dump(jwt, to: &dumped)
        for text in [String(describing: jwt), String(reflecting: jwt), dumped] {
            #expect(!text.contains(signature.prefix(16)))
            #expect(!text.contains("eyJ"))
            #expect(!text.contains("user-1"))
            #expect(text.contains("RS256"))
        }
    }
}

// MARK: Review fixes (duplicate member names, too-small keys)

extension JWTTests {
    @Test("RFC 7519 §4: a header or claims set that repeats a member name is rejected")
    func duplicateMemberNames() throws {
        // The header: RS256 then none must not be read as RS256 (nor as none).
        #expect(throws: CryptoError.malformedToken) {
            try JWT(parsing: Self.token("{}", header: #"{"alg":"RS256","alg":"none"}"#))
        }
        #expect(throws: CryptoError.malformedToken) {
            try JWT(parsing: Self.token("{}", header: #"{"alg":"RS256","kid":"a","kid":"b"}"#))
        }
        // The claims: the first exp must not win.
        #expect(throws: CryptoError.malformedToken) { try JWT(parsing: Self.token(#"{"exp":1700000000,"exp":1}"#)) }
        #expect(throws: CryptoError.malformedToken) {
            try JWT(parsing: Self.token(#"{"sub":"a","aud":"x","sub":"a"}"#))
        }
        // Names are compared after unescaping.
        #expect(throws: CryptoError.malformedToken) {
            try JWT(parsing: Self.token("{}", header: #"{"alg":"RS256","al\u0067":"none"}"#))
        }
        #expect(throws: CryptoError.malformedToken) { try JWT(parsing: Self.token(#"{"\u0065xp":1,"exp":2}"#)) }
        #expect(throws: CryptoError.malformedToken) { try JWT(parsing: Self.token(#"{"a\/b":1,"a/b":2}"#)) }
        #expect(throws: CryptoError.malformedToken) { try JWT(parsing: Self.token(#"{"\ud83d\ude00":1,"😀":2}"#)) }
        #expect(throws: CryptoError.malformedToken) { try JWT(parsing: Self.token(#"{"q\"":1,"q\u0022":2}"#)) }
        // Nested objects too.
        #expect(throws: CryptoError.malformedToken) { try JWT(parsing: Self.token(#"{"obj":{"k":1,"k":2}}"#)) }
        #expect(throws: CryptoError.malformedToken) {
            try JWT(parsing: Self.token(#"{"list":[{"k":1},{"k":1,"k":2}]}"#))
        }

        // Same names in different objects, names that only look alike, and name-like text
        // inside values are all fine.
        let fine = try JWT(
            parsing: Self.token(
                #"{"a":{"x":1,"y":{"x":2}},"b":{"x":3},"x":4,"list":[{"k":1},{"k":2}],"note":"\"x\":1,\"x\":2","ALG":1,"alg ":2,"alg":"\u0000"}"#,
                header: #"{"alg":"RS256","kid":"k1","typ":"JWT","x5t":"{\"alg\":\"none\"}"}"#))
        #expect(fine.algorithm == "RS256")
        #expect(fine.claims["x"] == .number(4))
        #expect(fine.claims["note"] == .string(#""x":1,"x":2"#))
        let spaced = try JWT(
            parsing: Self.token(" { \"exp\" : 1700000000 , \"sub\" : \"u\" } \n", header: "{ \"alg\" : \"ES256\" }"))
        #expect(spaced.claims.expiresAt == NumericDate(1_700_000_000))
    }

    @Test("a JWKS whose only matching key is a 1024-bit RSA key says the key is too small")
    func keyTooSmall() async throws {
        let legacy = try PublicKey(derRepresentation: Base64.decode(LegacyRSAKeyTests.spki), minimumRSABits: 1024)
        let signer = TestKeys.rsaC
        let token = try JWT(
            parsing: JWT.sign(claims: ["sub": .string("u")], with: signer, algorithm: .rs256, keyID: "legacy"))
        let small = JWKSet(keys: [try legacy.jwk(keyID: "legacy")])
        #expect(throws: CryptoError.keyTooSmall(bits: 1024, required: 2048)) { try small.verifySignature(of: token) }
        #expect(
            CryptoError.keyTooSmall(bits: 1024, required: 2048).description == "key too small: 1024 bits, 2048 required"
        )
        // Without a kid the small key is still the only fitting one.
        let noKid = try JWT(parsing: JWT.sign(claims: [:], with: signer, algorithm: .rs256))
        #expect(throws: CryptoError.keyTooSmall(bits: 1024, required: 2048)) { try small.verifySignature(of: noKid) }
        // A kid that names no key, or a key of another type, is still "not found".
        let other = try JWT(parsing: JWT.sign(claims: [:], with: signer, algorithm: .rs256, keyID: "other"))
        #expect(throws: CryptoError.keyNotFound) { try small.verifySignature(of: other) }
        let ec = TestKeys.p256B
        let esToken = try JWT(parsing: JWT.sign(claims: [:], with: ec, algorithm: .es256))
        #expect(throws: CryptoError.keyNotFound) { try small.verifySignature(of: esToken) }
        // A usable key next to the small one verifies.
        let mixed = JWKSet(keys: small.keys + [try signer.publicKey.jwk(keyID: "good")])
        #expect(try mixed.verifySignature(of: noKid).kid == "good")
        // The cache reports the same reason.
        let data = try small.jsonData()
        let cache = JWKSCache(minimumRefetchInterval: 0) { data }
        await #expect(throws: CryptoError.keyTooSmall(bits: 1024, required: 2048)) {
            try await cache.verifySignature(of: token, at: Date(timeIntervalSince1970: 1_700_000_000))
        }
    }
}
