extension UInt8 {
    /// Whether this byte is one of the ASCII digits `0`–`9` (0x30–0x39). The one spelling of
    /// "is an ASCII digit" in the package: the `Unicode.Scalar` and `Character` forms below
    /// defer to it. Package-only. Concurrency: a pure computed property.
    package var isASCIIDigit: Bool { self &- UInt8(ascii: "0") < 10 }
}

extension Unicode.Scalar {
    /// Whether this is one of the ASCII digits `0`–`9` (U+0030–U+0039), and nothing else.
    /// Package-only. Concurrency: a pure computed property.
    package var isASCIIDigit: Bool { isASCII && UInt8(value).isASCIIDigit }
}

extension Character {
    /// Whether this is one of the ASCII digits `0`–`9` (U+0030–U+0039), and nothing else: not
    /// other scripts' digits, not superscripts. Package-only. Concurrency: a pure computed
    /// property.
    package var isASCIIDigit: Bool { asciiValue?.isASCIIDigit ?? false }
}

extension Character {
    /// Whether this is an ASCII letter `A`–`Z` or `a`–`z`.
    var isASCIILetter: Bool {
        guard let ascii = asciiValue else { return false }
        return (ascii >= 0x41 && ascii <= 0x5A) || (ascii >= 0x61 && ascii <= 0x7A)
    }

    /// Whether this is an ASCII letter or digit.
    var isASCIILetterOrDigit: Bool { isASCIILetter || isASCIIDigit }
}
