import Foundation

/// Identifies one sign-in flow from `start` to its end; every event and challenge of the flow
/// carries it.
public struct FlowID: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The string form (a UUID unless a provider chose otherwise).
    public let rawValue: String
    /// Creates an id from its string form.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// A new random id (UUID v4).
    public static func random() -> FlowID { FlowID(rawValue: UUID().uuidString.lowercased()) }
    /// The string form.
    public var description: String { rawValue }
}
