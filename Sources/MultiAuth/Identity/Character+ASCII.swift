extension Character {
    /// Whether this is one of the ASCII digits `0`–`9` (U+0030–U+0039), and nothing else: not
    /// other scripts' digits, not superscripts.
    var isASCIIDigit: Bool {
        guard let ascii = asciiValue else { return false }
        return ascii >= 0x30 && ascii <= 0x39
    }
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
