// MultiAuthCrypto depends on nothing of ours, so it cannot use the core's package-only
// `isASCIIDigit`; this internal twin is spelled and defined the same way
// (Sources/MultiAuth/Identity/Character+ASCII.swift).

extension UInt8 {
    /// Whether this byte is one of the ASCII digits `0`–`9` (0x30–0x39).
    var isASCIIDigit: Bool { self &- UInt8(ascii: "0") < 10 }
}

extension Unicode.Scalar {
    /// Whether this is one of the ASCII digits `0`–`9` (U+0030–U+0039), and nothing else.
    var isASCIIDigit: Bool { isASCII && UInt8(value).isASCIIDigit }
}
