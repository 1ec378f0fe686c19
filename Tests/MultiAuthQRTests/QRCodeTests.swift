import Foundation
import MultiAuthQR
import Testing

/// The committed reference matrices: python-qrcode matrices, segno's mask evaluation, every
/// one decoded by zxing-cpp (Scripts/crosscheck_qr.py writes and checks them).
struct QRFixture: Decodable {
    struct Symbol: Decodable {
        let mask: Int
        let rows: [String]
    }
    struct Case: Decodable {
        let text: String
        let version: Int
        let mask: Int
        let rows: [String]
        let forced: [Symbol]
    }
    let cases: [Case]

    static let shared: QRFixture = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/QR/qr_reference.json")
        // A missing fixture is a broken checkout: fail loudly.
        return try! JSONDecoder().decode(QRFixture.self, from: Data(contentsOf: url))
    }()
}

private func rows(_ code: QRCode) -> [String] {
    code.matrix(quietZone: 0).map { String($0.map { $0 ? "1" : "0" }) }
}

/// `nil` when equal, else the number of differing modules and the first one (row, column).
private func difference(_ ours: [String], _ reference: [String]) -> String? {
    guard ours.count == reference.count else { return "size \(ours.count) vs \(reference.count)" }
    var count = 0
    var first: (Int, Int)?
    for (r, (a, b)) in zip(ours, reference).enumerated() {
        for (c, (x, y)) in zip(a, b).enumerated() where x != y {
            count += 1
            if first == nil { first = (r, c) }
        }
    }
    return first.map { "\(count) modules differ, first at row \($0.0), column \($0.1)" }
}

@Suite struct QRCodeTests {
    @Test(arguments: QRFixture.shared.cases.indices)
    func matchesReferenceEncoder(index: Int) throws {
        let fixture = QRFixture.shared.cases[index]
        let code = try QRCode(encoding: fixture.text)
        #expect(code.version == fixture.version)
        #expect(code.mask == fixture.mask, "mask selection (penalty rules)")
        #expect(difference(rows(code), fixture.rows) == nil)
        for forced in fixture.forced {
            let masked = try QRCode(encoding: fixture.text, mask: forced.mask)
            #expect(difference(rows(masked), forced.rows) == nil, "forced mask \(forced.mask)")
        }
    }

    @Test func coversVersionsUpToAtLeastTen() {
        let versions = Set(QRFixture.shared.cases.map(\.version))
        #expect(versions.contains { $0 >= 10 })
        #expect(versions.contains { (7...9).contains($0) }, "a symbol with version information")
    }

    @Test func capacityAndLimits() throws {
        #expect(QRCode.byteCapacity(version: 1) == 14)
        #expect(QRCode.byteCapacity(version: 10) == 213)
        #expect(QRCode.byteCapacity(version: 40) == 2331)
        #expect(try QRCode(encoding: String(repeating: "a", count: 14)).version == 1)
        #expect(try QRCode(encoding: String(repeating: "a", count: 15)).version == 2)
        #expect(try QRCode(encoding: String(repeating: "a", count: 2331)).version == 40)
        #expect(throws: QRCodeError.tooLong(byteCount: 2332)) {
            try QRCode(encoding: String(repeating: "a", count: 2332))
        }
        #expect(throws: QRCodeError.empty) { try QRCode(encoding: "") }
        #expect(throws: QRCodeError.maskOutOfRange(8)) { try QRCode(encoding: "a", mask: 8) }
        #expect(throws: QRCodeError.versionOutOfRange(41)) { try QRCode(encoding: "a", minimumVersion: 41) }
        #expect(
            QRCodeError.tooLong(byteCount: 2332).description == "2332 bytes do not fit a version 40 QR code at level M")
    }

    @Test func quietZoneAndRenderings() throws {
        let code = try QRCode(encoding: "otpauth://totp/A?secret=JBSWY3DPEHPK3PXP")
        let grid = code.matrix()
        #expect(grid.count == code.size + 8)
        #expect(grid.allSatisfy { $0.count == code.size + 8 })
        #expect(grid.prefix(4).allSatisfy { !$0.contains(true) })
        #expect(grid.suffix(4).allSatisfy { !$0.contains(true) })
        #expect(grid.allSatisfy { !$0.prefix(4).contains(true) && !$0.suffix(4).contains(true) })
        #expect(grid[4][4], "finder pattern corner is dark")

        let terminal = code.terminalString()
        let lines = terminal.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == (code.size + 8 + 1) / 2)
        #expect(lines.allSatisfy { $0.count == code.size + 8 })
        #expect(terminal.unicodeScalars.allSatisfy { [" ", "\u{2580}", "\u{2584}", "\u{2588}", "\n"].contains($0) })
        // Row pair 4/5 at column 4: both dark (finder outer ring).
        #expect(Array(lines[2])[4] == "\u{2588}")
        #expect(code.terminalString(darkOnLight: false) != terminal)

        let svg = code.svg(moduleSize: 3)
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(svg.contains("viewBox=\"0 0 \(code.size + 8) \(code.size + 8)\""))
        #expect(svg.contains("width=\"\((code.size + 8) * 3)\""))
        #expect(svg.contains("M4 4h7v1h-7z"), "top finder row starts after the 4-module quiet zone")
        #expect(svg.hasSuffix("</svg>"))
    }

    @Test func descriptionsNeverShowContent() throws {
        let code = try QRCode(encoding: "otpauth://totp/A?secret=JBSWY3DPEHPK3PXP")
        var dumped = ""
        dump(code, to: &dumped)
        for text in [String(describing: code), String(reflecting: code), dumped] {
            #expect(!text.contains("JBSWY3DPEHPK3PXP"))
            #expect(!text.contains("otpauth"))
            #expect(!text.contains("true"), "a rendering lists the modules")
        }
        #expect(String(describing: code) == "QRCode(version: 3, mask: \(code.mask), size: 29, modules: 841 modules)")
        #expect(Mirror(reflecting: code).children.map(\.label) == ["version", "mask", "size", "modules"])
    }
}
