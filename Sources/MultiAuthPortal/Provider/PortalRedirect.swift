import Foundation

/// A parsed Portal redirect (PortalSwift `RedirectUrl`): `{redirectUrl}?token=<grant>&authMethod=…`,
/// `?token=<grant>&login_type=GOOGLE|APPLE`, or `?error=oauth_failed`.
struct PortalRedirect: Sendable {
    /// Links longer than this many UTF-16 units are ignored (PortalSwift `RedirectUrl`).
    static let maximumLength = 8192
    /// An `error` value is cut to this many characters.
    static let maximumErrorLength = 100

    /// What the redirect says.
    enum Outcome: Sendable {
        /// A single-use grant and the method that produced it: `EMAIL_MAGIC_LINK` from
        /// `authMethod`, or `GOOGLE` / `APPLE` from `login_type`.
        case grant(token: String, method: String)
        /// A grant without a method marker the SDK recognises (no `authMethod=EMAIL_MAGIC_LINK`,
        /// no `login_type=GOOGLE|APPLE`): PortalSwift ignores such a link, and so do we
        /// (Docs/Providers/Portal.md, "Mapping to the core model").
        case unmarked
        /// The backend reported a failure (the value, cut to 100 characters).
        case failure(String)
        /// Neither a token nor an error (the SDK's `CALLBACK_INCOMPLETE`).
        case incomplete
    }

    let outcome: Outcome

    /// Parses the query of `url`; the **last** occurrence of a key wins, because the backend
    /// appends to a redirect URL that may already carry parameters.
    init(_ url: URL) {
        var values: [String: String] = [:]
        for item in URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? [] {
            if let value = item.value { values[item.name] = value }
        }
        if let error = values["error"] {
            outcome = .failure(String(error.prefix(Self.maximumErrorLength)))
        } else if let token = values["token"], !token.isEmpty {
            // The SDK's routing, exact on the wire values: `authMethod` names a magic link only,
            // `login_type` an OAuth provider only; magic link first.
            if values["authMethod"] == PortalProvider.Method.magicLink {
                outcome = .grant(token: token, method: PortalProvider.Method.magicLink)
            } else if let type = values["login_type"],
                type == PortalProvider.Method.google || type == PortalProvider.Method.apple
            {
                outcome = .grant(token: token, method: type)
            } else {
                outcome = .unmarked
            }
        } else {
            outcome = .incomplete
        }
    }

    /// Whether `url` targets `redirectURL`: both compared without query and fragment, trimmed
    /// of whitespace and trailing slashes, scheme and authority lower-cased, the path
    /// case-sensitive; links over ``maximumLength`` never match.
    static func matches(_ url: URL, redirectURL: URL) -> Bool {
        let text = url.absoluteString
        guard text.utf16.count <= maximumLength else { return false }
        return normalized(text) == normalized(redirectURL.absoluteString)
    }

    static func normalized(_ text: String) -> String {
        var base = Substring(text)
        if let cut = base.firstIndex(where: { $0 == "?" || $0 == "#" }) { base = base[..<cut] }
        var trimmed = base.trimmingCharacters(in: .whitespacesAndNewlines)
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        guard let colon = trimmed.firstIndex(of: ":") else { return trimmed }
        let scheme = trimmed[..<colon].lowercased()
        var rest = trimmed[trimmed.index(after: colon)...]
        guard rest.hasPrefix("//") else { return scheme + ":" + rest }
        rest = rest.dropFirst(2)
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        return scheme + "://" + rest[..<slash].lowercased() + rest[slash...]
    }
}
