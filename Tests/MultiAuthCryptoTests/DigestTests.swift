import Testing

@testable import MultiAuthCrypto

@Suite("SHA digests, HMAC, constant-time comparison, random bytes")
struct DigestTests {
    @Test("SHA-1/256/512 of \"abc\" (FIPS 180-2 appendix vectors)")
    func shaKnownAnswers() {
        let abc = Array("abc".utf8)
        #expect(Hex.encode(MessageDigest.sha1(abc)) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(
            Hex.encode(MessageDigest.sha256(abc)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            Hex.encode(MessageDigest.sha512(abc))
                == "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"
        )
        #expect(
            Hex.encode(MessageDigest.hash([], algorithm: .sha256))
                == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    struct HMACVector: Sendable, CustomTestStringConvertible {
        let name: String
        let key: String
        let data: String
        let sha256: String
        let sha512: String
        var testDescription: String { name }
    }

    /// RFC 4231 §4.2–4.8 (test case 5, truncated output, is left out).
    static let rfc4231: [HMACVector] = [
        HMACVector(
            name: "4.2", key: String(repeating: "0b", count: 20), data: "4869205468657265",
            sha256: "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
            sha512:
                "87aa7cdea5ef619d4ff0b4241a1d6cb02379f4e2ce4ec2787ad0b30545e17cdedaa833b7d6b8a702038b274eaea3f4e4be9d914eeb61f1702e696c203a126854"
        ),
        HMACVector(
            name: "4.3", key: "4a656665", data: "7768617420646f2079612077616e7420666f72206e6f7468696e673f",
            sha256: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
            sha512:
                "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737"
        ),
        HMACVector(
            name: "4.4", key: String(repeating: "aa", count: 20), data: String(repeating: "dd", count: 50),
            sha256: "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe",
            sha512:
                "fa73b0089d56a284efb0f0756c890be9b1b5dbdd8ee81a3655f83e33b2279d39bf3e848279a722c806b485a47e67c807b946a337bee8942674278859e13292fb"
        ),
        HMACVector(
            name: "4.5", key: "0102030405060708090a0b0c0d0e0f10111213141516171819",
            data: String(repeating: "cd", count: 50),
            sha256: "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b",
            sha512:
                "b0ba465637458c6990e5a8c5f61d4af7e576d97ff94b872de76f8050361ee3dba91ca5c11aa25eb4d679275cc5788063a5f19741120c4f2de2adebeb10a298dd"
        ),
        HMACVector(
            name: "4.7", key: String(repeating: "aa", count: 131),
            data:
                "54657374205573696e67204c6172676572205468616e20426c6f636b2d53697a65204b6579202d2048617368204b6579204669727374",
            sha256: "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
            sha512:
                "80b24263c7c1a3ebb71493c1dd7be8b49b46d1f41b4aeec1121b013783f8f3526b56d037e05f2598bd0fd2215d6a1e5295e64f73f63f0aec8b915a985d786598"
        ),
        HMACVector(
            name: "4.8", key: String(repeating: "aa", count: 131),
            data:
                "5468697320697320612074657374207573696e672061206c6172676572207468616e20626c6f636b2d73697a65206b657920616e642061206c6172676572207468616e20626c6f636b2d73697a6520646174612e20546865206b6579206e6565647320746f20626520686173686564206265666f7265206265696e6720757365642062792074686520484d414320616c676f726974686d2e",
            sha256: "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2",
            sha512:
                "e37b6a775dc87dbaa4dfa9f96e5e3ffddebd71f8867289865df5a32d20cdc944b6022cac3c4982b10d5eeb55c3e4de15134676fb6de0446065c97440fa8c6a58"
        ),
    ]

    @Test("HMAC-SHA256 and HMAC-SHA512 (RFC 4231)", arguments: rfc4231)
    func hmacRFC4231(_ vector: HMACVector) throws {
        let key = Hex.decode(vector.key)
        let data = Hex.decode(vector.data)
        #expect(Hex.encode(HMAC.authenticationCode(for: data, key: key, algorithm: .sha256)) == vector.sha256)
        #expect(Hex.encode(HMAC.authenticationCode(for: data, key: key, algorithm: .sha512)) == vector.sha512)
        // The reusable key gives the same answers, also when used twice in a row.
        let prepared = try HMACKey(key, algorithm: .sha512)
        #expect(Hex.encode(prepared.authenticationCode(for: data)) == vector.sha512)
        #expect(Hex.encode(prepared.authenticationCode(for: data)) == vector.sha512)
        #expect(HMAC.isValidAuthenticationCode(Hex.decode(vector.sha256), for: data, key: key, algorithm: .sha256))
    }

    @Test("HMAC-SHA1 (RFC 2202 test cases 1 and 2), empty key allowed one-shot")
    func hmacSHA1() throws {
        let mac = HMAC.authenticationCode(
            for: Array("Hi There".utf8), key: [UInt8](repeating: 0x0b, count: 20), algorithm: .sha1)
        #expect(Hex.encode(mac) == "b617318655057264e28bc0b6fb378c8ef146be00")
        let jefe = try HMACKey(Array("Jefe".utf8), algorithm: .sha1)
        #expect(
            Hex.encode(jefe.authenticationCode(for: Array("what do ya want for nothing?".utf8)))
                == "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79")
        #expect(HMAC.authenticationCode(for: [], key: [], algorithm: .sha256).count == 32)
        #expect(throws: CryptoError.invalidKey) { try HMACKey([], algorithm: .sha1) }
    }

    @Test("constant-time equality")
    func constantTime() {
        #expect(ConstantTime.equals([1, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2, 4]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2]))
        #expect(ConstantTime.equals([UInt8](), []))
        #expect(!HMAC.isValidAuthenticationCode([0, 1], for: [1], key: [1], algorithm: .sha1))
    }

    @Test("secure random bytes have the requested length and differ")
    func random() throws {
        let a = try SecureRandom.bytes(count: 32)
        let b = try SecureRandom.bytes(count: 32)
        #expect(a.count == 32 && b.count == 32)
        #expect(a != b)
        #expect(try SecureRandom.bytes(count: 0).isEmpty)
    }

    @Test("algorithm names parse case-insensitively; unknown names are errors")
    func algorithmNames() throws {
        #expect(try DigestAlgorithm(name: "sha256") == .sha256)
        #expect(try DigestAlgorithm(name: "SHA-512") == .sha512)
        #expect(throws: CryptoError.unsupportedAlgorithm) { try DigestAlgorithm(name: "MD5") }
        #expect(throws: CryptoError.unsupportedAlgorithm) { try DigestAlgorithm(name: "%SHA1") }
    }
}
