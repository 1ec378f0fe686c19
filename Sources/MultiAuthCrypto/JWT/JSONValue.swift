import Foundation

/// A JSON value (RFC 8259), for JWT headers and claims of any shape.
///
/// Numbers are `Double`, so integers above 2^53 lose precision (JWT NumericDates are far
/// below that). Encoding writes whole numbers without a fraction (`1700000000`, not
/// `1700000000.0`).
public enum JSONValue: Sendable, Hashable, Codable, CustomStringConvertible {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number.
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object.
    case object([String: JSONValue])

    /// Decodes any JSON value.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// Encodes the value; whole numbers within ±2^53 are written as integers.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value):
            if value.rounded() == value, abs(value) <= 9_007_199_254_740_992 {
                try container.encode(Int64(value))
            } else {
                try container.encode(value)
            }
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The string, if this is a string.
    public var stringValue: String? {
        if case .string(let value) = self { value } else { nil }
    }

    /// The number, if this is a number.
    public var doubleValue: Double? {
        if case .number(let value) = self { value } else { nil }
    }

    /// The number as `Int64`, if this is a whole number in range.
    public var int64Value: Int64? {
        guard case .number(let value) = self, value.rounded() == value, abs(value) <= 9_007_199_254_740_992 else { return nil }
        return Int64(value)
    }

    /// The Boolean, if this is `true` or `false`.
    public var boolValue: Bool? {
        if case .bool(let value) = self { value } else { nil }
    }

    /// The elements, if this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { value } else { nil }
    }

    /// The members, if this is an object.
    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { value } else { nil }
    }

    /// The member `key`, if this is an object that has it.
    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }

    /// The value's JSON kind only (`string`, `number`, …), never its content, since claims
    /// may hold personal data.
    public var description: String {
        switch self {
        case .null: "null"
        case .bool: "bool"
        case .number: "number"
        case .string: "string"
        case .array(let values): "array(\(values.count))"
        case .object(let members): "object(\(members.count))"
        }
    }

    /// Compact JSON with sorted keys and unescaped slashes.
    func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// Parses a JSON object whose objects (at any depth) have unique member names, nested at
    /// most ``JSONParser/maximumDepth`` levels.
    /// - Throws: ``CryptoError/malformedToken`` when `data` is not a JSON object, or when an
    ///   object repeats a member name (RFC 7519 §4).
    static func object(from data: [UInt8]) throws -> [String: JSONValue] {
        try JSONParser.object(from: data)
    }

    /// The previous implementation of ``object(from:)`` (Foundation's `JSONDecoder`, then
    /// ``JSONMemberNames``), kept for the tests that compare the two.
    static func objectThroughFoundation(from data: [UInt8]) throws -> [String: JSONValue] {
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(data)), case .object(let members) = value else {
            throw CryptoError.malformedToken
        }
        try JSONMemberNames.requireUnique(in: data)
        return members
    }
}
