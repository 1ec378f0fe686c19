/// Builds the module matrix of one QR code symbol (ISO/IEC 18004:2015 §6.3, §7.7–§7.10):
/// function patterns, codeword placement, data masking with penalty evaluation, format and
/// version information. Modules are row-major, `true` is dark.
struct QRMatrix {
    let version: Int
    let size: Int
    private(set) var modules: [Bool]
    private var isFunction: [Bool]

    /// A matrix of `version` with every function pattern drawn and the format and version
    /// areas (and the dark module) reserved as light, ready for codeword placement.
    init(version: Int) {
        self.version = version
        size = version * 4 + 17
        modules = Array(repeating: false, count: size * size)
        isFunction = Array(repeating: false, count: size * size)
        drawFunctionPatterns()
    }

    private mutating func set(_ x: Int, _ y: Int, _ dark: Bool) {
        modules[y * size + x] = dark
        isFunction[y * size + x] = true
    }

    /// §6.3.3 finder patterns with separators, §6.3.5 timing, §6.3.6 alignment patterns,
    /// §7.9/§7.10 reserved format and version areas.
    private mutating func drawFunctionPatterns() {
        for i in 0..<size {
            set(6, i, i % 2 == 0)
            set(i, 6, i % 2 == 0)
        }
        for (cx, cy) in [(3, 3), (size - 4, 3), (3, size - 4)] {
            for dy in -4...4 {
                for dx in -4...4 {
                    let x = cx + dx
                    let y = cy + dy
                    guard (0..<size).contains(x), (0..<size).contains(y) else { continue }
                    let distance = max(abs(dx), abs(dy))
                    set(x, y, distance != 2 && distance != 4)
                }
            }
        }
        let positions = Self.alignmentPositions(version: version)
        let last = positions.count - 1
        for (i, cx) in positions.enumerated() {
            for (j, cy) in positions.enumerated()
            where !(i == 0 && j == 0) && !(i == 0 && j == last) && !(i == last && j == 0) {
                for dy in -2...2 {
                    for dx in -2...2 { set(cx + dx, cy + dy, max(abs(dx), abs(dy)) != 1) }
                }
            }
        }
        // Format information areas (and the dark module at row size-8), light for now.
        for i in 0...8 where i != 6 {
            set(8, i, false)
            set(i, 8, false)
        }
        for i in 0..<8 {
            set(size - 1 - i, 8, false)
            set(8, size - 1 - i, false)
        }
        if version >= 7 {
            for i in 0..<18 {
                set(size - 11 + i % 3, i / 3, false)
                set(i / 3, size - 11 + i % 3, false)
            }
        }
    }

    /// Alignment pattern centre coordinates (ISO/IEC 18004:2015 Annex E): 6, then evenly
    /// spaced (even steps) up to `size - 7`.
    static func alignmentPositions(version: Int) -> [Int] {
        guard version > 1 else { return [] }
        let count = version / 7 + 2
        let step = version == 32 ? 26 : (version * 4 + count * 2 + 1) / (count * 2 - 2) * 2
        var positions = [6]
        var position = version * 4 + 10
        var tail: [Int] = []
        for _ in 0..<(count - 1) {
            tail.insert(position, at: 0)
            position -= step
        }
        positions += tail
        return positions
    }

    /// Places the final codeword sequence in the two-module-wide upward/downward columns from
    /// the bottom-right corner, skipping the vertical timing column (§7.7.3); remainder bits
    /// stay light.
    mutating func place(_ codewords: [UInt8]) {
        var bit = 0
        let total = codewords.count * 8
        var right = size - 1
        while right >= 1 {
            if right == 6 { right = 5 }
            let upward = (right + 1) & 2 == 0
            for vertical in 0..<size {
                let y = upward ? size - 1 - vertical : vertical
                for j in 0..<2 {
                    let x = right - j
                    let index = y * size + x
                    guard !isFunction[index], bit < total else { continue }
                    modules[index] = (codewords[bit >> 3] >> (7 - UInt8(bit & 7))) & 1 == 1
                    bit += 1
                }
            }
            right -= 2
        }
    }

    /// Whether data mask `mask` (§7.8.2, Table 10) inverts the module at column `x`, row `y`.
    static func maskInverts(_ mask: Int, x: Int, y: Int) -> Bool {
        switch mask {
        case 0: (x + y) % 2 == 0
        case 1: y % 2 == 0
        case 2: x % 3 == 0
        case 3: (x + y) % 3 == 0
        case 4: (x / 3 + y / 2) % 2 == 0
        case 5: x * y % 2 + x * y % 3 == 0
        case 6: (x * y % 2 + x * y % 3) % 2 == 0
        default: ((x + y) % 2 + x * y % 3) % 2 == 0
        }
    }

    /// The modules with data mask `mask` applied to the encoding region.
    func masked(_ mask: Int) -> [Bool] {
        var result = modules
        for y in 0..<size {
            for x in 0..<size where !isFunction[y * size + x] && Self.maskInverts(mask, x: x, y: y) {
                result[y * size + x].toggle()
            }
        }
        return result
    }

    /// Applies the mask with the lowest penalty (the first on a tie), evaluated before the
    /// format and version information is placed (§7.8.3), then writes the format and version
    /// information and the dark module.
    /// - Parameter forcedMask: A mask to use without evaluation, or `nil`.
    /// - Returns: The mask used, 0...7.
    mutating func applyBestMask(forcedMask: Int?) -> Int {
        var chosen = forcedMask ?? 0
        if forcedMask == nil {
            var best = Int.max
            for mask in 0..<8 {
                let score = Self.penalty(masked(mask), size: size)
                if score < best {
                    best = score
                    chosen = mask
                }
            }
        }
        modules = masked(chosen)
        drawFormat(mask: chosen)
        if version >= 7 { drawVersion() }
        return chosen
    }

    /// §7.9.1: level M (bits 00) and the mask, BCH(15,5) with generator 0x537, XOR 0x5412;
    /// two copies, plus the dark module at column 8, row size-8.
    private mutating func drawFormat(mask: Int) {
        let data = 0b00 << 3 | mask
        var remainder = data
        for _ in 0..<10 { remainder = (remainder << 1) ^ ((remainder >> 9) * 0x537) }
        let bits = (data << 10 | remainder) ^ 0x5412
        func bit(_ i: Int) -> Bool { (bits >> i) & 1 == 1 }
        for i in 0...5 { set(8, i, bit(i)) }
        set(8, 7, bit(6))
        set(8, 8, bit(7))
        set(7, 8, bit(8))
        for i in 9..<15 { set(14 - i, 8, bit(i)) }
        for i in 0..<8 { set(size - 1 - i, 8, bit(i)) }
        for i in 8..<15 { set(8, size - 15 + i, bit(i)) }
        set(8, size - 8, true)
    }

    /// §7.10: the 6-bit version with a BCH(18,6) remainder (generator 0x1F25), two copies.
    private mutating func drawVersion() {
        var remainder = version
        for _ in 0..<12 { remainder = (remainder << 1) ^ ((remainder >> 11) * 0x1F25) }
        let bits = version << 12 | remainder
        for i in 0..<18 {
            let dark = (bits >> i) & 1 == 1
            set(size - 11 + i % 3, i / 3, dark)
            set(i / 3, size - 11 + i % 3, dark)
        }
    }

    /// The penalty score N1 + N2 + N3 + N4 of §7.8.3.1, Table 11 (N1 = 3, N2 = 3, N3 = 40,
    /// N4 = 10): runs of five or more, 2×2 blocks, 1:1:3:1:1 finder-like patterns with four
    /// light modules (or the symbol edge) on either side, and the dark proportion's distance
    /// from 50 % in 5 % steps.
    static func penalty(_ modules: [Bool], size: Int) -> Int {
        var score = 0
        var dark = 0
        var row = [Bool](repeating: false, count: size)
        var column = [Bool](repeating: false, count: size)
        for i in 0..<size {
            for j in 0..<size {
                row[j] = modules[i * size + j]
                column[j] = modules[j * size + i]
                if row[j] { dark += 1 }
                if i > 0, j > 0 {
                    let value = row[j]
                    if modules[i * size + j - 1] == value, modules[(i - 1) * size + j] == value,
                        modules[(i - 1) * size + j - 1] == value
                    {
                        score += 3
                    }
                }
            }
            score += runPenalty(row) + runPenalty(column) + finderPenalty(row) + finderPenalty(column)
        }
        let proportion = Double(dark) / Double(size * size)
        score += 10 * Int(abs(proportion * 100 - 50) / 5)
        return score
    }

    /// N1: 3 + (length − 5) for each run of five or more same-coloured modules.
    private static func runPenalty(_ line: [Bool]) -> Int {
        var score = 0
        var run = 1
        for j in 1..<line.count {
            if line[j] == line[j - 1] {
                run += 1
            } else {
                if run >= 5 { score += run - 2 }
                run = 1
            }
        }
        if run >= 5 { score += run - 2 }
        return score
    }

    private static let finderPattern: [Bool] = [true, false, true, true, true, false, true]

    /// N3: 40 for each dark:light:dark×3:light:dark pattern with four light modules (the
    /// area outside the symbol counts as light) before or after it.
    private static func finderPenalty(_ line: [Bool]) -> Int {
        let size = line.count
        var score = 0
        var start = 0
        while start + 7 <= size {
            guard
                let index = (start...(size - 7)).first(where: { i in
                    (0..<7).allSatisfy { line[i + $0] == finderPattern[$0] }
                })
            else { break }
            let before = line[max(index - 4, 0)..<index]
            let after = line[min(index + 7, size)..<min(index + 11, size)]
            if index == 0 || index == size - 7 || !before.contains(true) || !after.contains(true) {
                score += 40
                start = index + 7
            } else {
                start = index + 4
            }
        }
        return score
    }
}
