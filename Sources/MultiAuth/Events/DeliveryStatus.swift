import Foundation

/// The delivery status of a code or link as the provider reports it.
public struct DeliveryStatus: RawRepresentable, Hashable, Sendable, Codable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    /// The string form, e.g. `"delivered"`.
    public let rawValue: String
    /// Creates a status from its string form.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Creates a status from a literal.
    public init(stringLiteral value: String) { self.rawValue = value }
    /// The string form.
    public var description: String { rawValue }
    /// Accepted for sending (not yet delivered, Docs/Cases.md, B29).
    public static let sent: DeliveryStatus = "sent"
    /// Delivered to the device.
    public static let delivered: DeliveryStatus = "delivered"
    /// Read by the user.
    public static let read: DeliveryStatus = "read"
    /// Delivery failed on this channel.
    public static let failed: DeliveryStatus = "failed"
}
