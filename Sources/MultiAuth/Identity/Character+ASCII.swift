extension Character {
    /// Whether this is one of the ASCII digits `0`–`9` (U+0030–U+0039), and nothing else: not
    /// other scripts' digits, not superscripts.
    var isASCIIDigit: Bool {
        guard let ascii = asciiValue else { return false }
        return ascii >= 0x30 && ascii <= 0x39
    }
}
