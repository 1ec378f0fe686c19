import Foundation

extension AuthError {
    /// The longest server-supplied code kept in ``providerCode``, in characters.
    package static let maximumProviderCodeLength = 64

    /// `raw` when it looks like a provider's error code, else `nil`: for codes an adapter reads
    /// from a server's error body, which a hostile or buggy server could fill with the code or
    /// token the request carried (``providerCode`` shows in `description`, `dump` and Mirror).
    ///
    /// Kept: 1 to 64 characters of `A–Z a–z 0–9 _ . : -`, no part between those separators
    /// that looks like a credential (`HTTPRequest.looksLikeCredential`: a UUID, a hex or base64
    /// token, a JWT segment), and at most 5 characters when all digits (a numeric code such as
    /// `"7118"`, not a 6-digit one-time code). Docs/Security.md, "Redaction".
    package static func plausibleProviderCode(_ raw: String?) -> String? {
        guard let raw, (1...maximumProviderCodeLength).contains(raw.count) else { return nil }
        let separators: Set<Character> = ["_", ".", ":", "-"]
        guard raw.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || separators.contains($0)) }) else { return nil }
        if raw.allSatisfy(\.isNumber) { return raw.count <= 5 ? raw : nil }
        let parts = raw.split(whereSeparator: { separators.contains($0) })
        return parts.contains(where: { HTTPRequest.looksLikeCredential($0) }) ? nil : raw
    }
}
