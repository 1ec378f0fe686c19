/// A QR code symbol (ISO/IEC 18004:2015) encoding bytes in byte mode at error-correction
/// level M, as the Portal SDK renders TOTP enrollment links (PortalSwift `TotpQrCode`).
///
/// The encoder picks the smallest version (1...40) that holds the data, splits the codewords
/// into the blocks of Table 9, adds Reed–Solomon error correction over GF(256) (§7.5), places
/// them (§7.7), chooses the data mask with the lowest penalty score (§7.8.3), and writes the
/// format (§7.9) and version (§7.10) information. Tests compare its matrices module for
/// module with the `segno` and python-qrcode reference encoders (`Scripts/crosscheck_qr.py`
/// writes and checks the fixture `Tests/Fixtures/QR/qr_reference.json`).
///
/// The modules encode the link, a secret: they are kept in a box that renders as its count only,
/// so every rendering (Swift's default ones) shows the version, mask, size and module count.
public struct QRCode: Sendable, Hashable {
    /// The symbol version, 1...40; the symbol is `17 + 4 × version` modules wide.
    public let version: Int
    /// The data mask pattern reference, 0...7 (§7.8.2).
    public let mask: Int
    /// The width and height of the symbol in modules, without quiet zone.
    public let size: Int
    /// Row-major modules, `true` for dark.
    private let modules: Modules

    /// The quiet zone ISO/IEC 18004 requires around the symbol: 4 modules (§6.3.8).
    public static let defaultQuietZone = 4
    /// The error-correction level, always `"M"` (about 15 % of codewords recoverable).
    public var errorCorrectionLevel: String { "M" }

    /// Encodes `text` as UTF-8 bytes in byte mode, level M.
    /// - Parameters:
    ///   - text: The text, e.g. an `otpauth://` link; 1 to 2331 UTF-8 bytes.
    ///   - minimumVersion: The smallest version to use, 1...40.
    ///   - mask: A data mask 0...7 to use instead of the one with the lowest penalty, or `nil`.
    /// - Throws: ``QRCodeError`` for empty text, text too long for version 40 at level M, or a
    ///   version or mask out of range.
    public init(encoding text: String, minimumVersion: Int = 1, mask: Int? = nil) throws {
        try self.init(encoding: Array(text.utf8), minimumVersion: minimumVersion, mask: mask)
    }

    /// Encodes `bytes` in byte mode, level M; see ``init(encoding:minimumVersion:mask:)-(String,_,_)``.
    /// - Throws: ``QRCodeError`` as for the text initializer.
    public init(encoding bytes: [UInt8], minimumVersion: Int = 1, mask: Int? = nil) throws {
        guard !bytes.isEmpty else { throw QRCodeError.empty }
        guard (1...40).contains(minimumVersion) else { throw QRCodeError.versionOutOfRange(minimumVersion) }
        if let mask, !(0...7).contains(mask) { throw QRCodeError.maskOutOfRange(mask) }
        guard let version = (minimumVersion...40).first(where: { bytes.count <= Self.byteCapacity(version: $0) }) else {
            throw QRCodeError.tooLong(byteCount: bytes.count)
        }
        let layout = QRBlockLayout.levelM(version: version)
        var matrix = QRMatrix(version: version)
        matrix.place(Self.finalCodewords(Self.dataCodewords(bytes, version: version, layout: layout), layout: layout))
        self.mask = matrix.applyBestMask(forcedMask: mask)
        self.version = version
        self.size = matrix.size
        self.modules = Modules(values: matrix.modules)
    }

    /// The most bytes a symbol of `version` (1...40) holds in byte mode at level M.
    public static func byteCapacity(version: Int) -> Int {
        let bits = QRBlockLayout.levelM(version: version).dataCodewords * 8 - 4 - countBits(version: version)
        return bits / 8
    }

    /// Character count indicator length for byte mode (§7.4.1, Table 3): 8 bits up to version
    /// 9, 16 bits from version 10.
    private static func countBits(version: Int) -> Int { version <= 9 ? 8 : 16 }

    /// §7.4: mode indicator `0100`, count, data, terminator, zero bits to a byte boundary, pad
    /// codewords `0xEC 0x11` alternately.
    private static func dataCodewords(_ bytes: [UInt8], version: Int, layout: QRBlockLayout) -> [UInt8] {
        var bits: [Bool] = []
        func append(_ value: Int, _ count: Int) {
            for i in stride(from: count - 1, through: 0, by: -1) { bits.append((value >> i) & 1 == 1) }
        }
        let capacity = layout.dataCodewords * 8
        append(0b0100, 4)
        append(bytes.count, countBits(version: version))
        for byte in bytes { append(Int(byte), 8) }
        append(0, min(4, capacity - bits.count))
        while bits.count % 8 != 0 { bits.append(false) }
        var codewords = stride(from: 0, to: bits.count, by: 8).map { start in
            (0..<8).reduce(UInt8(0)) { $0 << 1 | (bits[start + $1] ? 1 : 0) }
        }
        var pad: UInt8 = 0xEC
        while codewords.count < layout.dataCodewords {
            codewords.append(pad)
            pad = pad == 0xEC ? 0x11 : 0xEC
        }
        return codewords
    }

    /// §7.6: blocks with their Reed–Solomon codewords, data codewords interleaved block by
    /// block, then error-correction codewords likewise.
    private static func finalCodewords(_ data: [UInt8], layout: QRBlockLayout) -> [UInt8] {
        var blocks: [[UInt8]] = []
        var offset = 0
        for index in 0..<layout.blockCount {
            let length = index < layout.shortBlocks ? layout.shortBlockData : layout.longBlockData
            blocks.append(Array(data[offset..<offset + length]))
            offset += length
        }
        let ec = blocks.map { ReedSolomon.remainder(of: $0, degree: layout.ecCodewordsPerBlock) }
        var result: [UInt8] = []
        for i in 0..<max(layout.shortBlockData, layout.longBlockData) {
            for block in blocks where i < block.count { result.append(block[i]) }
        }
        for i in 0..<layout.ecCodewordsPerBlock {
            for block in ec { result.append(block[i]) }
        }
        return result
    }

    /// Whether the module at `row`, `column` (0-based, top-left origin) is dark; modules
    /// outside the symbol (the quiet zone) are light.
    public func isDark(row: Int, column: Int) -> Bool {
        guard (0..<size).contains(row), (0..<size).contains(column) else { return false }
        return modules.values[row * size + column]
    }

    /// The module matrix with a light quiet zone: `size + 2 × quietZone` rows of as many
    /// modules, `true` for dark.
    /// - Parameter quietZone: Light modules on each side, 0 or more; 4 by default (§6.3.8).
    public func matrix(quietZone: Int = QRCode.defaultQuietZone) -> [[Bool]] {
        let zone = max(0, quietZone)
        return (-zone..<(size + zone)).map { row in (-zone..<(size + zone)).map { isDark(row: row, column: $0) } }
    }
}

extension QRCode {
    /// The module matrix, which encodes the content: it renders as `841 modules`, with no
    /// mirror children, so `QRCode`'s default renderings never show the content.
    private struct Modules: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
        /// Row-major modules, `true` for dark.
        let values: [Bool]
        var description: String { "\(values.count) modules" }
        var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
    }
}
