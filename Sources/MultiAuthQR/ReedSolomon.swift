/// Reed–Solomon error correction over GF(2^8) with the QR code field polynomial
/// x^8 + x^4 + x^3 + x^2 + 1 (0x11D) and generator roots α^0 … α^(n−1)
/// (ISO/IEC 18004:2015 §7.5.2, Annex A).
enum ReedSolomon {
    /// exp[i] = α^i for i in 0..<510 (doubled so products need no modulo).
    private static let tables: (exp: [UInt8], log: [Int]) = {
        var exp = [UInt8](repeating: 0, count: 512)
        var log = [Int](repeating: 0, count: 256)
        var value = 1
        for i in 0..<255 {
            exp[i] = UInt8(value)
            log[value] = i
            value <<= 1
            if value & 0x100 != 0 { value ^= 0x11D }
        }
        for i in 255..<512 { exp[i] = exp[i - 255] }
        return (exp, log)
    }()

    /// The product of `a` and `b` in GF(256).
    static func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        guard a != 0, b != 0 else { return 0 }
        return tables.exp[tables.log[Int(a)] + tables.log[Int(b)]]
    }

    /// The generator polynomial of degree `degree`, coefficients from the highest power down,
    /// the leading 1 omitted.
    static func generator(degree: Int) -> [UInt8] {
        var coefficients = [UInt8](repeating: 0, count: degree)
        coefficients[degree - 1] = 1
        var root: UInt8 = 1
        for _ in 0..<degree {
            for j in 0..<degree {
                coefficients[j] = multiply(coefficients[j], root)
                if j + 1 < degree { coefficients[j] ^= coefficients[j + 1] }
            }
            root = multiply(root, 2)
        }
        return coefficients
    }

    /// The `degree` error-correction codewords of `data`: the remainder of
    /// data(x)·x^degree divided by the generator polynomial.
    static func remainder(of data: [UInt8], degree: Int) -> [UInt8] {
        let divisor = generator(degree: degree)
        var result = [UInt8](repeating: 0, count: degree)
        for byte in data {
            let factor = byte ^ result[0]
            result.removeFirst()
            result.append(0)
            for i in 0..<degree { result[i] ^= multiply(divisor[i], factor) }
        }
        return result
    }
}
