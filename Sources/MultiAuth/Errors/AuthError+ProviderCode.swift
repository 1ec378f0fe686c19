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
        guard raw.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || separators.contains($0)) }) else {
            return nil
        }
        if raw.allSatisfy(\.isNumber) { return raw.count <= 5 ? raw : nil }
        let parts = raw.split(whereSeparator: { separators.contains($0) })
        return parts.contains(where: { HTTPRequest.looksLikeCredential($0) }) ? nil : raw
    }

    /// The longest server-supplied message kept in an error's ``message``, in characters.
    package static let maximumServerTextLength = 200

    /// A server's free-text error message made safe to show: cut to 200 characters, and every
    /// word that could be what the request carried replaced by `<redacted>` — a word that looks
    /// like a credential (`HTTPRequest.looksLikeCredential`) or that holds a run of 4 or more
    /// digits (a one-time code). Words are split at whitespace; surrounding punctuation is
    /// ignored for the check. Docs/Security.md, "Redaction".
    package static func redactedServerText(_ text: String) -> String {
        let bounded = String(text.prefix(maximumServerTextLength))
        let words = bounded.split(separator: " ", omittingEmptySubsequences: false).map { word -> String in
            let core = word.trimmingCharacters(
                in: .punctuationCharacters.union(.symbols).union(.whitespacesAndNewlines))
            var digitRun = 0
            var longestRun = 0
            for character in core {
                digitRun = character.isASCIIDigit ? digitRun + 1 : 0
                longestRun = max(longestRun, digitRun)
            }
            return longestRun >= 4 || (!core.isEmpty && HTTPRequest.looksLikeCredential(core))
                ? "<redacted>" : String(word)
        }
        return words.joined(separator: " ")
    }

    /// This error without `secret` (the code the user just submitted) in ``providerCode`` or
    /// ``message``: a server that echoes the submitted one-time code as its error code or in its
    /// text (a 4-digit OTP passes ``plausibleProviderCode(_:)`` like a numeric error code) must
    /// not put it into an error's renderings. `AuthClient` applies it to every submit error.
    /// Codes shorter than 4 characters are left alone (they cannot be told from other text).
    package func withoutEcho(of secret: String) -> AuthError {
        guard secret.count >= 4 else { return self }
        var error = self
        if error.providerCode == secret { error.providerCode = nil }
        if error.message.contains(secret) {
            error.message = error.message.replacingOccurrences(of: secret, with: "<redacted>")
        }
        return error
    }
}
