import Foundation

/// One step a user must complete, normalized across providers: a code on a channel, a TOTP,
/// silent network auth, a magic link, an OAuth redirect or a profile consent.
///
/// A challenge is `Codable`: save it (e.g. with the app's state restoration), and after the
/// process dies hand it to a fresh `AuthClient`'s `submit(_:for:)`; the ``providerState``
/// carries what the provider needs to finish. Its `description` and mirror never show the
/// provider state or enrollment secrets.
public struct Challenge: Sendable, Codable, Hashable, Identifiable, CustomStringConvertible, CustomReflectable {
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

    /// The stable identity of the challenge: its flow id.
    public var id: FlowID { flowID }

    /// Creates a challenge.
    public init(
        flowID: FlowID, provider: AuthProviderID, kind: Kind, destination: String? = nil, issuedAt: Date,
        expiresAt: Date? = nil, resendAvailableAt: Date? = nil, attemptsRemaining: Int? = nil,
        providerState: ProviderState = ProviderState()
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
    /// the TOTP secret: `description`, `debugDescription` and the mirror show the kind, the
    /// redirect host and the enrollment's display fields only.
    public enum Kind: Sendable, Codable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
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
            }
        }

        /// Same as ``description``.
        public var debugDescription: String { description }

        /// A mirror with the secret-free parts only: lengths, channels, the redirect host, the
        /// (already redacted) enrollment; never the redirect URL's path or query.
        public var customMirror: Mirror {
            switch self {
            case .oneTimeCode(let length, let channel, let link):
                Mirror(self, children: ["length": length, "channel": channel, "linkAlsoSent": link], displayStyle: .enum)
            case .totp(let digits, let enrollment):
                Mirror(self, children: ["digits": digits, "enrollment": enrollment as Any], displayStyle: .enum)
            case .magicLink(let channel):
                Mirror(self, children: ["channel": channel], displayStyle: .enum)
            case .oauthRedirect(let url):
                Mirror(self, children: ["host": url.host ?? "", "url": HTTPRequest.redactionMarker], displayStyle: .enum)
            case .silentNetworkAuth, .profileConsent:
                Mirror(self, children: [], displayStyle: .enum)
            }
        }
    }

    /// A secret-free summary: provider, flow, kind, masked destination, expiry, attempts.
    public var description: String {
        var parts = ["provider: \(provider)", "flow: \(flowID)", "kind: \(kind)"]
        if let destination { parts.append("destination: \(destination)") }
        if let expiresAt { parts.append("expiresAt: \(expiresAt.formatted(.iso8601))") }
        if let attemptsRemaining { parts.append("attemptsRemaining: \(attemptsRemaining)") }
        return "Challenge(" + parts.joined(separator: ", ") + ")"
    }

    /// A mirror without the provider state.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "flowID": flowID, "provider": provider, "kind": kind.description, "destination": destination as Any,
                "issuedAt": issuedAt, "expiresAt": expiresAt as Any, "attemptsRemaining": attemptsRemaining as Any,
                "providerState": providerState,
            ], displayStyle: .struct)
    }
}

/// What a user needs to add an authenticator (TOTP) on first sign-in: the otpauth URI (with the
/// secret) to show as a QR code or link.
///
/// The URI contains the shared secret: `description` and the mirror never show it.
public struct TOTPEnrollment: Sendable, Codable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The `otpauth://totp/…` Key URI, secret included. Treat as secret.
    public var otpauthURI: String
    /// The issuer to display, if known.
    public var issuer: String?
    /// The account name to display, if known.
    public var account: String?

    /// Creates an enrollment.
    public init(otpauthURI: String, issuer: String? = nil, account: String? = nil) {
        self.otpauthURI = otpauthURI
        self.issuer = issuer
        self.account = account
    }

    /// `TOTPEnrollment(issuer: …, account: …, uri: <redacted>)`.
    public var description: String {
        "TOTPEnrollment(issuer: \(issuer ?? "-"), account: \(account ?? "-"), uri: <redacted>)"
    }
    /// Same as ``description``.
    public var debugDescription: String { description }
    /// A mirror without the URI.
    public var customMirror: Mirror {
        Mirror(self, children: ["issuer": issuer as Any, "account": account as Any, "otpauthURI": "<redacted>"], displayStyle: .struct)
    }
}
