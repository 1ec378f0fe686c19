import Foundation

/// Opaque, `Codable` state a provider keeps inside a ``Challenge`` so that a pending challenge
/// can be saved and resumed after the process dies (request ids, `verificationUUID`,
/// `userJwt`, nonces…).
///
/// Values are ``Secret``s keyed by provider-chosen names (the keys are not secret); a provider
/// stores structured state with ``encode(_:forKey:)``. Every rendering (`description`, `dump`,
/// the mirror) shows the keys and `<redacted>` for each value. `Codable` as a
/// `{"values": {key: string}}` object, the same bytes as when the values were `String`s.
public struct ProviderState: Sendable, Codable, Hashable {
    /// The values, each a ``Secret``.
    public var values: [String: Secret]

    /// Creates a state from `values`.
    public init(_ values: [String: Secret] = [:]) { self.values = values }

    /// Creates a state from plain-text values, each wrapped in a ``Secret``.
    public init(_ values: [String: String]) { self.values = values.mapValues { Secret($0) } }

    /// Reads or writes one value.
    public subscript(key: String) -> Secret? {
        get { values[key] }
        set { values[key] = newValue }
    }

    /// Reads or writes one value as plain text: reading reveals the ``Secret`` (for the wire or
    /// a comparison), writing wraps the text in one. `state[revealing: "flowId"]` is
    /// `state["flowId"]?.reveal()`.
    public subscript(revealing key: String) -> String? {
        get { values[key]?.reveal() }
        set { values[key] = newValue.map { Secret($0) } }
    }

    /// Stores `value` as JSON under `key`.
    /// - Throws: `AuthError` `.invalidInput` when it cannot be encoded.
    public mutating func encode<T: Encodable>(_ value: T, forKey key: String) throws {
        do { values[key] = Secret(String(decoding: try JSONEncoder.multiAuth.encode(value), as: UTF8.self)) } catch {
            throw AuthError(.invalidInput, "provider state '\(key)' could not be encoded")
        }
    }

    /// Reads a JSON value stored by ``encode(_:forKey:)``; `nil` when absent.
    /// - Throws: `AuthError` `.malformedResponse` when the stored value is not a `T`.
    public func decode<T: Decodable>(_ type: T.Type, forKey key: String) throws -> T? {
        guard let text = values[key]?.reveal() else { return nil }
        do { return try JSONDecoder.multiAuth.decode(T.self, from: Data(text.utf8)) } catch {
            throw AuthError(.malformedResponse, "provider state '\(key)' is not readable")
        }
    }
}
