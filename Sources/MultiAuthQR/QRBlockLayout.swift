/// The block structure of QR code symbols at error-correction level M (ISO/IEC 18004:2015
/// §7.5.1, Table 9): for each version, the error-correction codewords per block and the two
/// block groups (count, data codewords per block).
struct QRBlockLayout: Sendable {
    /// Error-correction codewords in every block.
    let ecCodewordsPerBlock: Int
    /// Blocks of the first group and their data codewords.
    let shortBlocks: Int
    /// Data codewords per block of the first group.
    let shortBlockData: Int
    /// Blocks of the second group (one more data codeword each); 0 when there is none.
    let longBlocks: Int
    /// Data codewords per block of the second group.
    let longBlockData: Int

    /// All data codewords of the symbol.
    var dataCodewords: Int { shortBlocks * shortBlockData + longBlocks * longBlockData }
    /// Number of blocks.
    var blockCount: Int { shortBlocks + longBlocks }

    /// The layout of `version` (1...40) at level M.
    static func levelM(version: Int) -> QRBlockLayout {
        let row = table[version - 1]
        return QRBlockLayout(
            ecCodewordsPerBlock: row.0, shortBlocks: row.1, shortBlockData: row.2, longBlocks: row.3,
            longBlockData: row.4)
    }

    /// ISO/IEC 18004:2015 Table 9, level M, versions 1...40:
    /// (EC codewords per block, group-1 blocks, group-1 data codewords, group-2 blocks,
    /// group-2 data codewords).
    private static let table: [(Int, Int, Int, Int, Int)] = [
        (10, 1, 16, 0, 0),
        (16, 1, 28, 0, 0),
        (26, 1, 44, 0, 0),
        (18, 2, 32, 0, 0),
        (24, 2, 43, 0, 0),
        (16, 4, 27, 0, 0),
        (18, 4, 31, 0, 0),
        (22, 2, 38, 2, 39),
        (22, 3, 36, 2, 37),
        (26, 4, 43, 1, 44),
        (30, 1, 50, 4, 51),
        (22, 6, 36, 2, 37),
        (22, 8, 37, 1, 38),
        (24, 4, 40, 5, 41),
        (24, 5, 41, 5, 42),
        (28, 7, 45, 3, 46),
        (28, 10, 46, 1, 47),
        (26, 9, 43, 4, 44),
        (26, 3, 44, 11, 45),
        (26, 3, 41, 13, 42),
        (26, 17, 42, 0, 0),
        (28, 17, 46, 0, 0),
        (28, 4, 47, 14, 48),
        (28, 6, 45, 14, 46),
        (28, 8, 47, 13, 48),
        (28, 19, 46, 4, 47),
        (28, 22, 45, 3, 46),
        (28, 3, 45, 23, 46),
        (28, 21, 45, 7, 46),
        (28, 19, 47, 10, 48),
        (28, 2, 46, 29, 47),
        (28, 10, 46, 23, 47),
        (28, 14, 46, 21, 47),
        (28, 14, 46, 23, 47),
        (28, 12, 47, 26, 48),
        (28, 6, 47, 34, 48),
        (28, 29, 46, 14, 47),
        (28, 13, 46, 32, 47),
        (28, 40, 47, 7, 48),
        (28, 18, 47, 31, 48),

    ]
}
