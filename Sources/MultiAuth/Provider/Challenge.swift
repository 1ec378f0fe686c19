import Foundation

/// One step a user must complete, normalized across providers: a code on a channel, a TOTP,
/// silent network auth, a magic link, an OAuth redirect, a profile consent or a passkey
/// ceremony.
///
/// A challenge is `Codable`: save it (e.g. with the app's state restoration), and after the
/// process dies hand it to a fresh `AuthClient`'s `submit(_:for:)`; the ``providerState``
/// carries what the provider needs to finish. Its renderings are the default ones: the provider
/// state's values and the enrollment URI are ``Secret``s and ``Kind`` shows no redirect URL, so
/// none shows a secret.
///
/// ``requirements`` says up front what the answer must bring besides the code (for example a
/// person's name for Truecaller), so a screen can ask for everything at once.
///
/// Where to keep a saved challenge: it holds the identity in clear (the full phone number or
/// e-mail address inside ``providerState``, and a TOTP enrollment secret when present), so
/// keep it where you keep sessions (the keychain, or a file with data protection) and delete
/// it when the flow ends; never in `UserDefaults` or logs (Docs/GettingStarted.md, "Where to
/// keep a pending challenge").
public struct Challenge: Sendable, Codable, Hashable, Identifiable {
    /// The flow this challenge belongs to.
    public var flowID: FlowID
    /// The provider that issued it.
    public var provider: AuthProviderID
    /// What the user must do.
    public var kind: Kind
    /// Where the code or link went, masked for display (e.g. `"+91 •••••• 3210"`).
    public var destination: String?
    /// When the challenge was issued (wall clock of the injected `TimeSource`).
    public var issuedAt: Date
    /// When it stops being answerable; `nil` when the provider gives no expiry.
    public var expiresAt: Date?
    /// The earliest time a resend is accepted; `nil` when resending is not supported.
    public var resendAvailableAt: Date?
    /// Attempts left before the challenge is exhausted; `nil` when unknown.
    public var attemptsRemaining: Int?
    /// Opaque provider state (redacted in descriptions).
    public var providerState: ProviderState
    /// What the answer must carry besides the code (e.g. ``Requirement/name``); empty when the
    /// code alone completes the challenge. Providers set it before the code is sent, so a UI
    /// can ask for everything on one screen.
    public var requirements: Set<Requirement>

    /// The stable identity of the challenge: its flow id.
    public var id: FlowID { flowID }

    /// Creates a challenge.
    public init(
        flowID: FlowID, provider: AuthProviderID, kind: Kind, destination: String? = nil, issuedAt: Date,
        expiresAt: Date? = nil, resendAvailableAt: Date? = nil, attemptsRemaining: Int? = nil,
        providerState: ProviderState = ProviderState(), requirements: Set<Requirement> = []
    ) {
        self.flowID = flowID
        self.provider = provider
        self.kind = kind
        self.destination = destination
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.resendAvailableAt = resendAvailableAt
        self.attemptsRemaining = attemptsRemaining
        self.providerState = providerState
        self.requirements = requirements
    }

    private enum CodingKeys: String, CodingKey {
        case flowID, provider, kind, destination, issuedAt, expiresAt, resendAvailableAt, attemptsRemaining,
            providerState
        case requirements
    }

    /// Decodes a challenge; one saved before ``requirements`` existed (no such key) decodes
    /// with none.
    /// - Throws: `DecodingError` when a field is missing or malformed.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        flowID = try container.decode(FlowID.self, forKey: .flowID)
        provider = try container.decode(AuthProviderID.self, forKey: .provider)
        kind = try container.decode(Kind.self, forKey: .kind)
        destination = try container.decodeIfPresent(String.self, forKey: .destination)
        issuedAt = try container.decode(Date.self, forKey: .issuedAt)
        expiresAt = try container.decodeIfPresent(Date.self, forKey: .expiresAt)
        resendAvailableAt = try container.decodeIfPresent(Date.self, forKey: .resendAvailableAt)
        attemptsRemaining = try container.decodeIfPresent(Int.self, forKey: .attemptsRemaining)
        providerState = try container.decode(ProviderState.self, forKey: .providerState)
        requirements = try container.decodeIfPresent(Set<Requirement>.self, forKey: .requirements) ?? []
    }

    /// Encodes the challenge; ``requirements`` sorted, and left out when empty (so the encoding
    /// of a challenge without requirements is what earlier builds wrote).
    /// - Throws: `EncodingError` from the encoder.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(flowID, forKey: .flowID)
        try container.encode(provider, forKey: .provider)
        try container.encode(kind, forKey: .kind)
        try container.encodeIfPresent(destination, forKey: .destination)
        try container.encode(issuedAt, forKey: .issuedAt)
        try container.encodeIfPresent(expiresAt, forKey: .expiresAt)
        try container.encodeIfPresent(resendAvailableAt, forKey: .resendAvailableAt)
        try container.encodeIfPresent(attemptsRemaining, forKey: .attemptsRemaining)
        try container.encode(providerState, forKey: .providerState)
        if !requirements.isEmpty { try container.encode(requirements.sorted(), forKey: .requirements) }
    }

    /// Something the answer to a challenge must carry besides the code. Extensible like
    /// `AuthError.Code`: compare with the static constants and ignore requirements you do not
    /// know.
    public struct Requirement: RawRepresentable, Hashable, Sendable, Codable, Comparable, CustomStringConvertible {
        /// The stable string form, e.g. `"name"`.
        public let rawValue: String
        /// Creates a requirement from its string form.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// Creates a requirement from its string form.
        public init(_ rawValue: String) { self.rawValue = rawValue }
        /// The string form.
        public var description: String { rawValue }
        /// Orders requirements by their string form (for stable display).
        public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

        /// A ``PersonName`` in ``ChallengeAnswer/name`` (first name required, last name
        /// optional): without it the provider refuses the right code with `.invalidInput`,
        /// reason `.answerMismatch`.
        public static let name = Requirement("name")

        /// A ``PasskeyResult`` in ``ChallengeAnswer/passkey``, from the platform authenticator
        /// run with the ``Kind/passkey(_:)`` options; the answer carries no code.
        public static let passkey = Requirement("passkey")
    }

    /// Whether the challenge is expired at `now` (`now >= expiresAt`).
    public func isExpired(at now: Date) -> Bool { expiresAt.map { now >= $0 } ?? false }

    /// The number of digits a code answer must have, for code and TOTP challenges.
    public var expectedCodeLength: Int? {
        switch kind {
        case .oneTimeCode(let length, _, _): length
        case .totp(let digits, _): digits
        default: nil
        }
    }

    /// What the user must do to answer a ``Challenge``.
    ///
    /// An OAuth redirect URL carries the `state` and the PKCE `code_challenge`, an enrollment
    /// the TOTP secret: `description`, `String(reflecting:)` and the mirror show the kind, the
    /// redirect host and the enrollment's display fields only.
    public enum Kind: Sendable, Codable, Hashable, CustomStringConvertible,
        CustomReflectable
    {
        /// A one-time code of `length` digits sent on `channel`; `linkAlsoSent` when a magic
        /// link carrying the same grant was sent too.
        case oneTimeCode(length: Int, channel: DeliveryChannel, linkAlsoSent: Bool)
        /// A code from an authenticator app (RFC 6238), `digits` long; `enrollment` is present
        /// on first use.
        case totp(digits: Int, enrollment: TOTPEnrollment?)
        /// Silent network authentication in progress via the carrier; may fall back to a code.
        case silentNetworkAuth
        /// A magic link was sent on `channel`; the app completes with `handleRedirect`.
        case magicLink(channel: DeliveryChannel)
        /// Open `url` in a browser; the app completes with `handleRedirect`.
        case oauthRedirect(url: URL)
        /// The user must consent to sharing a profile (one-tap); answer with a name if asked.
        case profileConsent
        /// A WebAuthn ceremony: run it with the platform authenticator and answer with its
        /// ``PasskeyResult`` (Docs/Passkeys.md).
        case passkey(PasskeyCeremony)

        /// A short label, e.g. `oneTimeCode(6 digits, whatsapp)`; never prints secrets.
        public var description: String {
            switch self {
            case .oneTimeCode(let length, let channel, let link):
                "oneTimeCode(\(length) digits, \(channel)\(link ? ", link" : ""))"
            case .totp(let digits, let enrollment): "totp(\(digits) digits\(enrollment == nil ? "" : ", enrollment"))"
            case .silentNetworkAuth: "silentNetworkAuth"
            case .magicLink(let channel): "magicLink(\(channel))"
            case .oauthRedirect(let url): "oauthRedirect(\(url.host ?? ""))"
            case .profileConsent: "profileConsent"
            case .passkey(let ceremony): ceremony.label
            }
        }

        /// A mirror with the secret-free parts only: lengths, channels, the redirect host, whether
        /// an enrollment came (not its account name or URI); never the redirect URL's path or query.
        public var customMirror: Mirror {
            switch self {
            case .oneTimeCode(let length, let channel, let link):
                Mirror(
                    self, children: ["length": length, "channel": channel, "linkAlsoSent": link], displayStyle: .enum)
            case .totp(let digits, let enrollment):
                Mirror(self, children: ["digits": digits, "enrollment": enrollment != nil], displayStyle: .enum)
            case .magicLink(let channel):
                Mirror(self, children: ["channel": channel], displayStyle: .enum)
            case .oauthRedirect(let url):
                Mirror(
                    self, children: ["host": url.host ?? "", "url": HTTPRequest.redactionMarker], displayStyle: .enum)
            case .passkey(let ceremony):
                Mirror(self, children: ["ceremony": ceremony], displayStyle: .enum)
            case .silentNetworkAuth, .profileConsent:
                Mirror(self, children: [], displayStyle: .enum)
            }
        }
    }
}
