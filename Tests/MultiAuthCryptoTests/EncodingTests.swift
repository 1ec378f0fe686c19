import Testing

@testable import MultiAuthCrypto

@Suite("base32, base64, base64url, percent-encoding")
struct EncodingTests {
    // MARK: base32

    @Test("B01: lower case with spaces between 4-char groups decodes to K20")
    func b01() throws {
        #expect(try Base32.decode("gezd gnbv gy3t qojq gezd gnbv gy3t qojq") == Keys.k20)
        #expect(try Base32.decode("GEZD-GNBV-GY3T-QOJQ-GEZD-GNBV-GY3T-QOJQ") == Keys.k20)
    }

    @Test("B02: unpadded 26-char secrets decode the tail bits correctly")
    func b02() throws {
        let expected = Hex.decode("973d2809ef989af8b987b602314c39bd")
        #expect(try Base32.decode("S46SQCPPTCNPROMHWYBDCTBZXV") == expected)
        #expect(try Base32.decode("S46SQCPPTCNPROMHWYBDCTBZXV======") == expected)
        #expect(try Base32.decode("gezdgnbvgy3tqojqgezdgnbvgy") == Keys.k16)
        // The input's last character carries two non-zero unused bits; the canonical form
        // clears them and is stable from then on.
        #expect(Base32.encode(expected) == "S46SQCPPTCNPROMHWYBDCTBZXU")
        #expect(Base32.encode(try Base32.decode(Base32.encode(expected))) == "S46SQCPPTCNPROMHWYBDCTBZXU")
    }

    @Test("B03: 52-char secret decodes to K32")
    func b03() throws {
        #expect(try Base32.decode("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZA") == Keys.k32)
        #expect(try Base32.decode("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZA====") == Keys.k32)
        #expect(Base32.encode(Keys.k32) == "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZA")
    }

    @Test("B04: alphabet, padding placement and impossible lengths")
    func b04() throws {
        for bad in ["JBSWY3DPEHPK3PX1", "JBSWY3DPEHPK3PX0", "JBSWY3DPEHPK3PX8", "JBSWY3DPEHPK3PX9", "JBSWY3DPEHPK3PX!"]
        {
            #expect(throws: CryptoError.invalidCharacter) { try Base32.decode(bad) }
        }
        for good in ["JBSWY3DPEHPK3PXP", "jbswy3dpehpk3pxp", "JBSWY3DPEHPK3PXP========", "JBSWY3DPEHPK3PXP="] {
            #expect(try Base32.decode(good) == Keys.kh)
        }
        #expect(throws: CryptoError.invalidPadding) { try Base32.decode("JBSWY3DP=EHPK3PXP") }
        #expect(throws: CryptoError.invalidPadding) { try Base32.decode("JBSWY3DPEHPK3PX=P") }
        for impossible in ["JBSWY3DPE", "JBSWY3DPEHP", "JBSWY3DPEHPK3P", "J", "JBS", "JBSWY3"] {
            #expect(throws: CryptoError.invalidLength) { try Base32.decode(impossible) }
        }
        #expect(try Base32.decode("JBSWY3DPEHPK3PX") == Hex.decode("48656c6c6f21deadbe"))
        #expect(Base32.encode(Keys.kh) == "JBSWY3DPEHPK3PXP")
    }

    @Test("base32 round trip for every length 0...40")
    func base32RoundTrip() throws {
        for length in 0...40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            let encoded = Base32.encode(bytes)
            #expect(!encoded.contains("="))
            #expect(try Base32.decode(encoded) == bytes)
            #expect(try Base32.decode(encoded.lowercased()) == bytes)
        }
    }

    // MARK: base64url

    @Test("B13: base64url segments of every valid length, with - and _")
    func b13() throws {
        func json(_ segment: String) throws -> String { String(decoding: try Base64URL.decode(segment), as: UTF8.self) }
        #expect(try json("eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9") == #"{"typ":"JWT","alg":"HS256"}"#)
        #expect(try json("eyJzdWIiOiJ1c2VyLTEyIiwiZXhwIjoxNzAwMDAwMDAwfQ") == #"{"sub":"user-12","exp":1700000000}"#)
        #expect(try json("eyJzdWIiOiJ1c2VyLTEyMyIsImV4cCI6MTcwMDAwMDAwMH0") == #"{"sub":"user-123","exp":1700000000}"#)
        #expect(
            try json("eyJzdWIiOiJ1MSIsIm5vdGUiOiI_Pj8-IiwiZXhwIjoxNzAwMDAwMDAwfQ")
                == #"{"sub":"u1","note":"?>?>","exp":1700000000}"#)
        #expect(throws: CryptoError.invalidBase64) { try Base64URL.decode("eyJhY") }
        #expect(throws: CryptoError.invalidBase64) { try Base64URL.decode("eyJhYg==") }
        #expect(throws: CryptoError.invalidBase64) { try Base64URL.decode("ab+/") }
        // Non-zero unused bits: "QR" would decode to the same byte as "QQ".
        #expect(try Base64URL.decode("QQ") == [0x41])
        #expect(throws: CryptoError.invalidBase64) { try Base64URL.decode("QR") }
    }

    @Test("base64url and base64 round trips for every length 0...40")
    func base64RoundTrip() throws {
        for length in 0...40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 97 &+ 250) }
            let url = Base64URL.encode(bytes)
            #expect(!url.contains("=") && !url.contains("+") && !url.contains("/"))
            #expect(try Base64URL.decode(url) == bytes)
            let standard = Base64.encode(bytes)
            #expect(standard.count % 4 == 0)
            #expect(try Base64.decode(standard) == bytes)
            #expect(try Base64.decode(standard.replacingOccurrences(of: "=", with: "")) == bytes)
        }
        #expect(Base64.encode(Array("?>?>".utf8)) == "Pz4/Pg==")
        #expect(throws: CryptoError.invalidBase64) { try Base64.decode("Pz4/Pg===") }
        #expect(throws: CryptoError.invalidBase64) { try Base64.decode("Pz4_Pg==") }
    }

    // MARK: percent-encoding

    @Test("percent-encoding keeps only RFC 3986 unreserved characters")
    func percentEncoding() throws {
        #expect(PercentEncoding.encode("Acme Co") == "Acme%20Co")
        #expect(PercentEncoding.encode("user@example.com") == "user%40example.com")
        #expect(PercentEncoding.encode("a+b:c/d~e_f-g.h") == "a%2Bb%3Ac%2Fd~e_f-g.h")
        #expect(PercentEncoding.encode("Zürich") == "Z%C3%BCrich")
        #expect(try PercentEncoding.decode("Z%c3%bcrich", plusIsSpace: false) == "Zürich")
        #expect(try PercentEncoding.decode("Example+Corp", plusIsSpace: false) == "Example+Corp")
        #expect(try PercentEncoding.decode("Acme+Co", plusIsSpace: true) == "Acme Co")
        for bad in ["%SHA1", "%", "%4", "abc%G0", "%C3"] {
            #expect(throws: CryptoError.invalidPercentEscape) { try PercentEncoding.decode(bad, plusIsSpace: true) }
        }
    }
}

// MARK: Review fixes (Unicode whitespace in secrets)

extension EncodingTests {
    @Test("B01: every Unicode whitespace character between groups is ignored")
    func base32UnicodeWhitespace() throws {
        for separator in [
            "\u{00A0}", "\u{2009}", "\u{202F}", "\u{3000}", "\u{2028}", "\u{0085}", "\u{000B}", "\u{000C}",
        ] {
            let pasted = ["gezd", "gnbv", "gy3t", "qojq", "gezd", "gnbv", "gy3t", "qojq"].joined(separator: separator)
            #expect(
                try Base32.decode(pasted) == Keys.k20, "U+\(String(separator.unicodeScalars.first!.value, radix: 16))")
        }
        #expect(try Base32.decode("\u{00A0}JBSWY3DPEHPK3PXP\u{00A0}=\u{3000}=") == Keys.kh)
        // Not whitespace: still rejected.
        for bad in ["JBSW\u{200B}Y3DPEHPK3PXP", "JBSW\u{FEFF}Y3DPEHPK3PXP", "ＪBSWY3DPEHPK3PXP", "JBSWY3DPEHPK3PXé"] {
            #expect(throws: CryptoError.invalidCharacter) { try Base32.decode(bad) }
        }
        #expect(try Base32.decode(" \u{00A0}\n") == [])
    }
}
