/// Punycode (RFC 3492): the Bootstring encoding that IDNA uses to write a Unicode domain
/// label (U-label) in ASCII (the part of an A-label after `xn--`).
///
/// Foundation has no IDNA conversion on Linux, so ``EmailAddress`` checks its `xn--` labels
/// with this. Internal; pure functions, safe from any thread.
enum Punycode {
    // RFC 3492 §5: the parameter values for Punycode.
    private static let base: UInt32 = 36
    private static let tMin: UInt32 = 1
    private static let tMax: UInt32 = 26
    private static let skew: UInt32 = 38
    private static let damp: UInt32 = 700
    private static let initialBias: UInt32 = 72
    private static let initialN: UInt32 = 0x80
    private static let delimiter = UInt8(ascii: "-")

    /// Decodes a Punycode string (RFC 3492 §6.2) into Unicode scalars.
    ///
    /// - Parameter input: ASCII only, e.g. `"bcher-kva"`; letters in either case.
    /// - Returns: the decoded scalars, or `nil` when `input` is not valid Punycode: a
    ///   non-ASCII character before the last delimiter, a character that is not a base-36
    ///   digit after it (a leading delimiter with nothing before it counts as such), a
    ///   truncated number, an overflow, or a code point that is not a Unicode scalar (a
    ///   surrogate or above U+10FFFF).
    static func decode(_ input: String) -> [Unicode.Scalar]? {
        let bytes = Array(input.utf8)
        var output: [UInt32] = []
        var position = 0
        // The basic code points before the last delimiter; the delimiter itself is consumed
        // only when something precedes it (RFC 3492 §6.2), so "-9ca" does not decode.
        if let last = bytes.lastIndex(of: delimiter), last > 0 {
            for byte in bytes[..<last] {
                guard byte < 0x80 else { return nil }
                output.append(UInt32(byte))
            }
            position = last + 1
        }
        var n = initialN
        var i: UInt32 = 0
        var bias = initialBias
        while position < bytes.count {
            let oldI = i
            var weight: UInt32 = 1
            var k = base
            while true {
                guard position < bytes.count, let digit = digitValue(bytes[position]) else { return nil }
                position += 1
                let (product, productOverflow) = digit.multipliedReportingOverflow(by: weight)
                let (sum, sumOverflow) = i.addingReportingOverflow(product)
                guard !productOverflow, !sumOverflow else { return nil }
                i = sum
                let threshold = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                if digit < threshold { break }
                let (nextWeight, weightOverflow) = weight.multipliedReportingOverflow(by: base - threshold)
                guard !weightOverflow else { return nil }
                weight = nextWeight
                k += base
            }
            let count = UInt32(output.count + 1)
            bias = adapt(i - oldI, count: count, first: oldI == 0)
            let (nextN, nOverflow) = n.addingReportingOverflow(i / count)
            guard !nOverflow else { return nil }
            n = nextN
            i %= count
            guard Unicode.Scalar(n) != nil else { return nil }
            output.insert(n, at: Int(i))
            i += 1
        }
        return output.compactMap(Unicode.Scalar.init)
    }

    /// Encodes Unicode scalars as Punycode (RFC 3492 §6.3): the basic (ASCII) code points as
    /// they are, a `-` when there are any, then the others as base-36 digits in lower case.
    ///
    /// - Returns: the encoding, or `nil` on overflow (only for inputs far longer than a DNS
    ///   label).
    static func encode(_ scalars: [Unicode.Scalar]) -> String? {
        let input = scalars.map(\.value)
        var output = input.filter { $0 < 0x80 }.map { UInt8($0) }
        let basicCount = UInt32(output.count)
        var handled = basicCount
        if basicCount > 0 { output.append(delimiter) }
        var n = initialN
        var delta: UInt32 = 0
        var bias = initialBias
        while handled < UInt32(input.count) {
            guard let m = input.filter({ $0 >= n }).min() else { return nil }
            let (product, productOverflow) = (m - n).multipliedReportingOverflow(by: handled + 1)
            let (sum, sumOverflow) = delta.addingReportingOverflow(product)
            guard !productOverflow, !sumOverflow else { return nil }
            delta = sum
            n = m
            for value in input {
                if value < n {
                    guard delta < UInt32.max else { return nil }
                    delta += 1
                }
                guard value == n else { continue }
                var q = delta
                var k = base
                while true {
                    let threshold = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                    if q < threshold { break }
                    output.append(digitCharacter(threshold + (q - threshold) % (base - threshold)))
                    q = (q - threshold) / (base - threshold)
                    k += base
                }
                output.append(digitCharacter(q))
                bias = adapt(delta, count: handled + 1, first: handled == basicCount)
                delta = 0
                handled += 1
            }
            delta += 1
            n += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Bias adaptation (RFC 3492 §6.1).
    private static func adapt(_ delta: UInt32, count: UInt32, first: Bool) -> UInt32 {
        var delta = first ? delta / damp : delta / 2
        delta += delta / count
        var k: UInt32 = 0
        while delta > ((base - tMin) * tMax) / 2 {
            delta /= base - tMin
            k += base
        }
        return k + (base - tMin + 1) * delta / (delta + skew)
    }

    /// The value of a base-36 digit: `a`–`z` (either case) are 0–25, `0`–`9` are 26–35.
    private static func digitValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"): UInt32(byte - UInt8(ascii: "a"))
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): UInt32(byte - UInt8(ascii: "A"))
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0")) + 26
        default: nil
        }
    }

    /// The lower-case character of base-36 digit `value` (0...35).
    private static func digitCharacter(_ value: UInt32) -> UInt8 {
        value < 26 ? UInt8(ascii: "a") + UInt8(value) : UInt8(ascii: "0") + UInt8(value - 26)
    }
}
