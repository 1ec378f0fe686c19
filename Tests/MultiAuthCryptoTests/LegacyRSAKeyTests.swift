import Foundation
import MultiAuthCrypto
import Testing

/// Truecaller's published key is RSA-1024 (Docs/Providers/Truecaller.md, "One-tap profile
/// verification"): refused by default,
/// accepted when the caller opts in with `minimumRSABits: 1024`.
@Suite struct LegacyRSAKeyTests {
    // Generated once with `openssl genrsa 1024`; the message is a base64 payload string and
    // the signature is RSASSA-PKCS1-v1_5 with SHA-512 over its UTF-8 bytes.
    static let spki =
        "MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQDBtt35oLQ9cj6JkPO9aWSidUEBNrr18R9b5gidnV6TfPIZYZBxh0SD3DddMY3bL/WUmcj54wUojVN2mT/qg9cLaeXEW4Uha6fXuYXtPq3o0hsEYUPZHurq/FioVw4iMDrkl9yKyGIN0zmeuCkdihLHDYwB/m+z+skei/zv+sExjwIDAQAB"
    static let signature =
        "LtjwVYinas0ANGqOyIpPzHGpzROdLmKyuCZCrzDOaP+vb/gRqfMIjpE3te3kBTM/4ZOfi0Elc+XM4g988l6Pt9mKyeZaqyaLjdhL81YwUXg8uZZhpsARwe+gReCQny3JZbJfszXtqhNKy041R2I8nB/QjspO/wSyNO+KIH+gMYw="
    static let message = Array("eyJwaG9uZU51bWJlciI6IjkxOTg3NjU0MzIxMCJ9".utf8)

    @Test func rsa1024IsRefusedByDefault() throws {
        let der = try Base64.decode(Self.spki)
        #expect(throws: CryptoError.invalidKey) { try PublicKey(derRepresentation: der) }
    }

    @Test func rsa1024VerifiesWhenOptedIn() throws {
        let key = try PublicKey(derRepresentation: try Base64.decode(Self.spki), minimumRSABits: 1024)
        let signature = try Base64.decode(Self.signature)
        #expect(key.isValidSignature(signature, for: Self.message, algorithm: .rs512))
        var tampered = Self.message
        tampered[0] ^= 1
        #expect(!key.isValidSignature(signature, for: tampered, algorithm: .rs512))
    }

    @Test func belowTenTwentyFourIsNeverAccepted() throws {
        // minimumRSABits is clamped to 1024: asking for 512 still refuses nothing smaller
        // than 1024 and still accepts this 1024-bit key.
        #expect(throws: Never.self) {
            try PublicKey(derRepresentation: try Base64.decode(Self.spki), minimumRSABits: 512)
        }
    }
}
