import Foundation

extension Decoder {
    /// Decodes a single string and parses it again with `parse`, so a decoded identity passed
    /// the same validation as one built in code; a string `parse` rejects becomes
    /// `DecodingError.dataCorrupted` described by `describe(error)`, the parse error kept as
    /// its underlying error.
    func decodeParsedString<Value>(
        _ parse: (String) throws -> Value, describingFailure describe: (any Error) -> String
    ) throws -> Value {
        let string = try singleValueContainer().decode(String.self)
        do {
            return try parse(string)
        } catch {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: codingPath, debugDescription: describe(error), underlyingError: error)
            )
        }
    }
}
