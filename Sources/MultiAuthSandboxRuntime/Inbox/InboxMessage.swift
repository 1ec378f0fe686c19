import Foundation
import MultiAuth

/// One code or link an emulated backend "sent", as it landed in the ``Inbox``.
///
/// The code, the link and the destination are kept as `Secret`s, so no rendering shows them:
/// `description` shows the destination masked, the mirror (Swift's default) `<redacted>`. Read
/// ``code``, ``link`` and ``destination`` directly.
public struct InboxMessage: Sendable, Hashable, Identifiable, CustomStringConvertible {
    /// Position in the inbox, starting at 1, rising by one per message.
    public let id: Int
    /// The host of the backend that sent it.
    public let host: String
    /// Where it went: an E.164 number or an e-mail identity key (lower-cased). Personal data.
    public var destination: String { destinationKey.reveal() }
    /// The channel it was sent on.
    public let channel: DeliveryChannel
    /// The one-time code, if the message carries one. Secret.
    public var code: String? { secretCode?.reveal() }
    /// The magic link / redirect URL, if the message carries one. Secret.
    public var link: URL? { secretLink.flatMap { URL(string: $0.reveal()) } }
    /// `.sent` while in transit, `.delivered` once it reached the destination, `.failed` when
    /// the channel could not deliver it (see ``FaultPlan/failDelivery(on:destination:repeat:)``).
    public internal(set) var status: DeliveryStatus
    /// When the backend sent it (the sandbox's server clock).
    public let sentAt: Date
    /// When ``status`` last changed (equal to ``sentAt`` for an immediate outcome).
    public internal(set) var statusChangedAt: Date
    /// ``destination``, as a `Secret` so that no rendering shows it.
    private let destinationKey: Secret
    /// ``code``, as a `Secret`.
    private let secretCode: Secret?
    /// ``link``'s absolute string, as a `Secret`.
    private let secretLink: Secret?

    /// Creates a message (the ``Inbox`` assigns ``id``).
    public init(
        id: Int, host: String, destination: String, channel: DeliveryChannel, code: String?, link: URL?,
        status: DeliveryStatus, sentAt: Date, statusChangedAt: Date? = nil
    ) {
        self.id = id
        self.host = host
        self.destinationKey = Secret(destination)
        self.channel = channel
        self.secretCode = code.map { Secret($0) }
        self.secretLink = link.map { Secret($0.absoluteString) }
        self.status = status
        self.sentAt = sentAt
        self.statusChangedAt = statusChangedAt ?? sentAt
    }

    /// `InboxMessage(#3 sms → +1 •••••• 0100, delivered, code: <redacted>)`: the destination
    /// masked like every phone number and e-mail address MultiAuth prints.
    public var description: String {
        var parts = ["#\(id) \(channel) → \(maskedDestination)", status.rawValue]
        if secretCode != nil { parts.append("code: <redacted>") }
        if secretLink != nil { parts.append("link: <redacted>") }
        return "InboxMessage(" + parts.joined(separator: ", ") + ")"
    }

    /// The destination as `description` shows it: a phone number or e-mail address masked, any
    /// other destination (an OAuth provider name) as is.
    public var maskedDestination: String {
        let destination = self.destination
        if let phone = try? PhoneNumber(destination) { return phone.masked }
        if destination.contains("@"), let email = try? EmailAddress(destination) { return email.masked }
        return destination
    }
}
