/// The published test vectors, as literals so the test target needs no resources. Source: RFC 4226 Appendix D (HOTP, key ASCII '12345678901234567890', 6 digits) and RFC 6238 Appendix B (TOTP, T0=0, X=30, 8 digits).
enum RFCVectors {
    struct HOTPVector: Sendable {
        let counter: UInt64
        let code: String
    }
    struct TOTPVector: Sendable {
        let time: Int64
        let algorithm: String
        let keyASCII: String
        let digits: Int
        let period: Int64
        let code: String
    }

    static let hotpKeyASCII = "12345678901234567890"
    static let hotpDigits = 6
    static let hotp: [HOTPVector] = [
        HOTPVector(counter: 0, code: "755224"),
        HOTPVector(counter: 1, code: "287082"),
        HOTPVector(counter: 2, code: "359152"),
        HOTPVector(counter: 3, code: "969429"),
        HOTPVector(counter: 4, code: "338314"),
        HOTPVector(counter: 5, code: "254676"),
        HOTPVector(counter: 6, code: "287922"),
        HOTPVector(counter: 7, code: "162583"),
        HOTPVector(counter: 8, code: "399871"),
        HOTPVector(counter: 9, code: "520489"),
    ]

    static let totp: [TOTPVector] = [
        TOTPVector(
            time: 59, algorithm: "SHA1", keyASCII: "12345678901234567890", digits: 8, period: 30, code: "94287082"),
        TOTPVector(
            time: 59, algorithm: "SHA256", keyASCII: "12345678901234567890123456789012", digits: 8, period: 30,
            code: "46119246"),
        TOTPVector(
            time: 59, algorithm: "SHA512", keyASCII: "1234567890123456789012345678901234567890123456789012345678901234",
            digits: 8, period: 30, code: "90693936"),
        TOTPVector(
            time: 1111111109, algorithm: "SHA1", keyASCII: "12345678901234567890", digits: 8, period: 30,
            code: "07081804"),
        TOTPVector(
            time: 1111111109, algorithm: "SHA256", keyASCII: "12345678901234567890123456789012", digits: 8, period: 30,
            code: "68084774"),
        TOTPVector(
            time: 1111111109, algorithm: "SHA512",
            keyASCII: "1234567890123456789012345678901234567890123456789012345678901234", digits: 8, period: 30,
            code: "25091201"),
        TOTPVector(
            time: 1111111111, algorithm: "SHA1", keyASCII: "12345678901234567890", digits: 8, period: 30,
            code: "14050471"),
        TOTPVector(
            time: 1111111111, algorithm: "SHA256", keyASCII: "12345678901234567890123456789012", digits: 8, period: 30,
            code: "67062674"),
        TOTPVector(
            time: 1111111111, algorithm: "SHA512",
            keyASCII: "1234567890123456789012345678901234567890123456789012345678901234", digits: 8, period: 30,
            code: "99943326"),
        TOTPVector(
            time: 1234567890, algorithm: "SHA1", keyASCII: "12345678901234567890", digits: 8, period: 30,
            code: "89005924"),
        TOTPVector(
            time: 1234567890, algorithm: "SHA256", keyASCII: "12345678901234567890123456789012", digits: 8, period: 30,
            code: "91819424"),
        TOTPVector(
            time: 1234567890, algorithm: "SHA512",
            keyASCII: "1234567890123456789012345678901234567890123456789012345678901234", digits: 8, period: 30,
            code: "93441116"),
        TOTPVector(
            time: 2000000000, algorithm: "SHA1", keyASCII: "12345678901234567890", digits: 8, period: 30,
            code: "69279037"),
        TOTPVector(
            time: 2000000000, algorithm: "SHA256", keyASCII: "12345678901234567890123456789012", digits: 8, period: 30,
            code: "90698825"),
        TOTPVector(
            time: 2000000000, algorithm: "SHA512",
            keyASCII: "1234567890123456789012345678901234567890123456789012345678901234", digits: 8, period: 30,
            code: "38618901"),
        TOTPVector(
            time: 20000000000, algorithm: "SHA1", keyASCII: "12345678901234567890", digits: 8, period: 30,
            code: "65353130"),
        TOTPVector(
            time: 20000000000, algorithm: "SHA256", keyASCII: "12345678901234567890123456789012", digits: 8, period: 30,
            code: "77737706"),
        TOTPVector(
            time: 20000000000, algorithm: "SHA512",
            keyASCII: "1234567890123456789012345678901234567890123456789012345678901234", digits: 8, period: 30,
            code: "47863826"),
    ]
}
