import Foundation

/// PEM armour (RFC 7468): base64 DER between `-----BEGIN label-----` and `-----END label-----`.
enum PEM {
    /// Extracts the DER bytes of the first block labelled `label`.
    ///
    /// - Throws: ``CryptoError/invalidKey`` when no such block exists or its body is not base64.
    static func decode(_ text: String, label: String) throws -> [UInt8] {
        let begin = "-----BEGIN \(label)-----"
        let end = "-----END \(label)-----"
        guard let start = text.range(of: begin), let stop = text.range(of: end, range: start.upperBound..<text.endIndex)
        else {
            throw CryptoError.invalidKey
        }
        let body = text[start.upperBound..<stop.lowerBound].filter { !$0.isWhitespace }
        do {
            return try Base64.decode(body)
        } catch {
            throw CryptoError.invalidKey
        }
    }

    /// Wraps `der` in a PEM block with 64-character lines.
    static func encode(_ der: [UInt8], label: String) -> String {
        let body = Base64.encode(der)
        var lines = ["-----BEGIN \(label)-----"]
        var index = body.startIndex
        while index < body.endIndex {
            let next = body.index(index, offsetBy: 64, limitedBy: body.endIndex) ?? body.endIndex
            lines.append(String(body[index..<next]))
            index = next
        }
        lines.append("-----END \(label)-----")
        return lines.joined(separator: "\n") + "\n"
    }
}
