import Foundation

/// Hex helpers and fixture loading shared by the test suites.
enum Hex {
    static func decode(_ hex: String) -> [UInt8] {
        var bytes = [UInt8]()
        var iterator = hex.utf8.makeIterator()
        while let high = iterator.next(), let low = iterator.next() {
            bytes.append(UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)!)
        }
        return bytes
    }

    static func encode(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}

/// The key fixtures of Docs/Cases.md (`K20`, `K32`, `K16`, `KH`).
enum Keys {
    static let k20 = Array("12345678901234567890".utf8)
    static let k32 = Array("12345678901234567890123456789012".utf8)
    static let k16 = Array("1234567890123456".utf8)
    static let kh = Hex.decode("48656c6c6f21deadbeef")
}
