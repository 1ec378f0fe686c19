/// Base64url without padding (RFC 4648 §5, as required by RFC 7515 §2 for JWS and JWT).
public enum Base64URL {
    /// Encodes `bytes` with the URL-safe alphabet (`-`, `_`) and no `=` padding.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        Base64.encode(Array(bytes), alphabet: Base64.urlAlphabet, padded: false)
    }

    /// Decodes unpadded base64url.
    ///
    /// Accepts any length whose remainder modulo 4 is 0, 2 or 3 (a remainder of 2 or 3 means
    /// one or two final bytes); nothing is appended to a length that is already a multiple
    /// of 4.
    /// - Throws: ``CryptoError/invalidBase64`` for a length whose remainder modulo 4 is 1, a
    ///   character outside `A–Z a–z 0–9 - _` (including `=`, `+` and `/`), or non-zero
    ///   unused bits in the last character.
    public static func decode(_ string: some StringProtocol) throws -> [UInt8] {
        try Base64.decode(string.utf8, urlSafe: true)
    }
}
