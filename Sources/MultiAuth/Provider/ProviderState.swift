import Foundation

/// Opaque, `Codable` state a provider keeps inside a ``Challenge`` so that a pending challenge
/// can be saved and resumed after the process dies (request ids, `verificationUUID`,
/// `userJwt`, nonces…).
///
/// Values are strings keyed by provider-chosen names; a provider stores structured state with
/// ``encode(_:forKey:)``. Because the values often are secrets, `description`,
/// `debugDescription` and `customMirror` print only the number of keys.
public struct ProviderState: Sendable, Codable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The raw values. Treat as secret.
    public var values: [String: String]

    /// Creates a state from raw values.
    public init(_ values: [String: String] = [:]) { self.values = values }

    /// Reads or writes one value.
    public subscript(key: String) -> String? {
        get { values[key] }
        set { values[key] = newValue }
    }

    /// Stores `value` as JSON under `key`.
    /// - Throws: `AuthError` `.invalidInput` when it cannot be encoded.
    public mutating func encode<T: Encodable>(_ value: T, forKey key: String) throws {
        do { values[key] = String(decoding: try JSONEncoder.multiAuth.encode(value), as: UTF8.self) } catch {
            throw AuthError(.invalidInput, "provider state '\(key)' could not be encoded")
        }
    }

    /// Reads a JSON value stored by ``encode(_:forKey:)``; `nil` when absent.
    /// - Throws: `AuthError` `.malformedResponse` when the stored value is not a `T`.
    public func decode<T: Decodable>(_ type: T.Type, forKey key: String) throws -> T? {
        guard let text = values[key] else { return nil }
        do { return try JSONDecoder.multiAuth.decode(T.self, from: Data(text.utf8)) } catch {
            throw AuthError(.malformedResponse, "provider state '\(key)' is not readable")
        }
    }

    /// `ProviderState(<redacted, N keys>)`.
    public var description: String { "ProviderState(<redacted, \(values.count) keys>)" }
    /// Same as ``description``.
    public var debugDescription: String { description }
    /// A mirror that shows only the key count.
    public var customMirror: Mirror { Mirror(self, children: ["keys": values.count], displayStyle: .struct) }
}
