/// The few DER (X.690) structures the Apple backend needs to move RSA keys between JWK,
/// SubjectPublicKeyInfo (RFC 5280 §4.1.2.7) and the PKCS#1 `RSAPublicKey` (RFC 8017 §A.1.1)
/// that Security.framework reads and writes. libcrypto parses DER itself on Linux; this
/// code is platform-neutral so it is tested there too.
enum DER {
    /// `rsaEncryption` (1.2.840.113549.1.1.1), DER-encoded with tag and length.
    static let rsaEncryptionOID: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01]
    /// `id-ecPublicKey` (1.2.840.10045.2.1), DER-encoded with tag and length.
    static let ecPublicKeyOID: [UInt8] = [0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01]

    /// The algorithm of a SubjectPublicKeyInfo and its key bytes.
    enum PublicKeyInfo: Equatable {
        /// An RSA key; the value is the PKCS#1 `RSAPublicKey` DER.
        case rsa([UInt8])
        /// An EC key (the curve is checked by whoever imports it).
        case ec
    }

    // MARK: Reading

    /// One tag-length-value element: the tag and the range of its contents in the input.
    struct Element {
        let tag: UInt8
        let contents: Range<Int>
        let end: Int
    }

    /// Reads the element starting at `offset`; only definite lengths up to 4 length bytes.
    static func element(in bytes: [UInt8], at offset: Int) -> Element? {
        guard offset + 2 <= bytes.count else { return nil }
        let tag = bytes[offset]
        var index = offset + 1
        let first = bytes[index]
        index += 1
        var length = 0
        if first < 0x80 {
            length = Int(first)
        } else {
            let count = Int(first & 0x7F)
            guard (1...4).contains(count), index + count <= bytes.count else { return nil }
            for byte in bytes[index..<index + count] { length = length << 8 | Int(byte) }
            // DER uses the shortest length form.
            guard length >= 0x80, bytes[index] != 0 else { return nil }
            index += count
        }
        guard length <= bytes.count - index else { return nil }
        return Element(tag: tag, contents: index..<index + length, end: index + length)
    }

    /// The children of a constructed element.
    static func children(of parent: Element, in bytes: [UInt8]) -> [Element]? {
        var result: [Element] = []
        var offset = parent.contents.lowerBound
        while offset < parent.contents.upperBound {
            guard let child = element(in: bytes, at: offset), child.end <= parent.contents.upperBound else {
                return nil
            }
            result.append(child)
            offset = child.end
        }
        return result
    }

    /// Reads a SubjectPublicKeyInfo: `SEQUENCE { SEQUENCE { OID, params }, BIT STRING }`.
    static func publicKeyInfo(_ spki: [UInt8]) -> PublicKeyInfo? {
        guard let outer = element(in: spki, at: 0), outer.tag == 0x30, outer.end == spki.count,
            let parts = children(of: outer, in: spki), parts.count == 2,
            parts[0].tag == 0x30, parts[1].tag == 0x03,
            let algorithm = children(of: parts[0], in: spki), let oid = algorithm.first, oid.tag == 0x06
        else {
            return nil
        }
        let oidBytes = Array(spki[oid.contents.lowerBound - 2..<oid.end])
        let bits = parts[1].contents
        guard !bits.isEmpty, spki[bits.lowerBound] == 0 else { return nil }
        switch oidBytes {
        case rsaEncryptionOID: return .rsa(Array(spki[bits.lowerBound + 1..<bits.upperBound]))
        case ecPublicKeyOID: return .ec
        default: return nil
        }
    }

    /// The modulus and exponent of a PKCS#1 `RSAPublicKey`, big-endian without sign bytes.
    static func rsaComponents(pkcs1: [UInt8]) -> (modulus: [UInt8], exponent: [UInt8])? {
        guard let outer = element(in: pkcs1, at: 0), outer.tag == 0x30, outer.end == pkcs1.count,
            let parts = children(of: outer, in: pkcs1), parts.count == 2,
            parts.allSatisfy({ $0.tag == 0x02 && !$0.contents.isEmpty })
        else { return nil }
        func unsigned(_ element: Element) -> [UInt8] {
            Array(pkcs1[element.contents].drop(while: { $0 == 0 }))
        }
        return (unsigned(parts[0]), unsigned(parts[1]))
    }

    // MARK: Writing

    static func encode(tag: UInt8, _ contents: [UInt8]) -> [UInt8] {
        var length: [UInt8] = []
        if contents.count < 0x80 {
            length = [UInt8(contents.count)]
        } else {
            var count = contents.count
            var bytes: [UInt8] = []
            while count > 0 {
                bytes.insert(UInt8(count & 0xFF), at: 0)
                count >>= 8
            }
            length = [0x80 | UInt8(bytes.count)] + bytes
        }
        return [tag] + length + contents
    }

    /// A non-negative INTEGER: leading zeros dropped, one added when the high bit is set.
    static func unsignedInteger(_ bytes: [UInt8]) -> [UInt8] {
        var value = Array(bytes.drop(while: { $0 == 0 }))
        if value.isEmpty || value[0] & 0x80 != 0 { value.insert(0, at: 0) }
        return encode(tag: 0x02, value)
    }

    /// A PKCS#1 `RSAPublicKey ::= SEQUENCE { modulus INTEGER, publicExponent INTEGER }`.
    static func rsaPublicKey(modulus: [UInt8], exponent: [UInt8]) -> [UInt8] {
        encode(tag: 0x30, unsignedInteger(modulus) + unsignedInteger(exponent))
    }

    /// A SubjectPublicKeyInfo around a PKCS#1 RSA public key (parameters NULL, RFC 3279 §2.3.1).
    static func subjectPublicKeyInfo(rsaPublicKey pkcs1: [UInt8]) -> [UInt8] {
        let algorithm = encode(tag: 0x30, rsaEncryptionOID + [0x05, 0x00])
        return encode(tag: 0x30, algorithm + encode(tag: 0x03, [0x00] + pkcs1))
    }
}
