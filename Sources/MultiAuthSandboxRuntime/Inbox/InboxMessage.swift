import Foundation
import MultiAuth

/// One code or link an emulated backend "sent", as it landed in the ``Inbox``.
///
/// `description` never shows the code or the link (they are secrets); read ``code`` and
/// ``link`` directly.
public struct InboxMessage: Sendable, Hashable, Identifiable, CustomStringConvertible {
    /// Position in the inbox, starting at 1, rising by one per message.
    public let id: Int
    /// The host of the backend that sent it.
    public let host: String
    /// Where it went: an E.164 number or an e-mail identity key (lower-cased).
    public let destination: String
    /// The channel it was sent on.
    public let channel: DeliveryChannel
    /// The one-time code, if the message carries one. Secret.
    public let code: String?
    /// The magic link / redirect URL, if the message carries one. Secret.
    public let link: URL?
    /// `.sent` while in transit, `.delivered` once it reached the destination, `.failed` when
    /// the channel could not deliver it (see ``FaultPlan/failDelivery(on:destination:repeat:)``).
    public internal(set) var status: DeliveryStatus
    /// When the backend sent it (the sandbox's server clock).
    public let sentAt: Date
    /// When ``status`` last changed (equal to ``sentAt`` for an immediate outcome).
    public internal(set) var statusChangedAt: Date

    /// Creates a message (the ``Inbox`` assigns ``id``).
    public init(
        id: Int, host: String, destination: String, channel: DeliveryChannel, code: String?, link: URL?,
        status: DeliveryStatus, sentAt: Date, statusChangedAt: Date? = nil
    ) {
        self.id = id
        self.host = host
        self.destination = destination
        self.channel = channel
        self.code = code
        self.link = link
        self.status = status
        self.sentAt = sentAt
        self.statusChangedAt = statusChangedAt ?? sentAt
    }

    /// `InboxMessage(#3 sms → +1 •••••• 0100, delivered, code: <redacted>)`: the destination
    /// masked like every phone number and e-mail address MultiAuth prints.
    public var description: String {
        var parts = ["#\(id) \(channel) → \(maskedDestination)", status.rawValue]
        if code != nil { parts.append("code: <redacted>") }
        if link != nil { parts.append("link: <redacted>") }
        return "InboxMessage(" + parts.joined(separator: ", ") + ")"
    }

    /// The destination as renderings show it: a phone number or e-mail address masked, any
    /// other destination (an OAuth provider name) as is.
    public var maskedDestination: String {
        if let phone = try? PhoneNumber(destination) { return phone.masked }
        if destination.contains("@"), let email = try? EmailAddress(destination) { return email.masked }
        return destination
    }
}
