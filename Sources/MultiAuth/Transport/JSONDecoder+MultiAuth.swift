import Foundation

extension JSONDecoder {
    /// The decoder matching `JSONEncoder.multiAuth`: dates as Unix time in
    /// seconds, or as ISO 8601 strings (with or without fractional seconds).
    package static var multiAuth: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            if let seconds = try? container.decode(Double.self) { return Date(timeIntervalSince1970: seconds) }
            let text = try container.decode(String.self)
            if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) {
                return date
            }
            if let date = try? Date(text, strategy: .iso8601) { return date }
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a Unix time or ISO 8601 date")
        }
        return decoder
    }
}
