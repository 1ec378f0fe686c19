/// The canonical ("low-S") form of P-256 ECDSA signatures.
///
/// For any valid signature `(r, s)`, `(r, n − s)` verifies too (`n` is the group order), so
/// every ECDSA signature has a second encoding anyone can make without the key. No standard
/// requires one of the two (RFC 7518 §3.4 and RFC 8725 do not); choosing `s ≤ n / 2` as the
/// canonical form is our choice (the rule Bitcoin's BIP 62 and libsecp256k1 made common).
/// Verification maps a high `s` to `n − s` before the backend check, so both encodings of a
/// signature verify alike on every backend, and signers that do not normalise (OpenSSL, Go,
/// Java, PyJWT) interoperate; our own signer emits low `s`. The signature bytes are therefore
/// not an identity of a token: replay caches key on the `jti` or the claims, never on the
/// signature (Docs/Security.md).
enum ECDSASignature {
    /// The P-256 group order `n`, big-endian (FIPS 186-4 §D.1.2.3, SEC 2 §2.4.2).
    static let p256Order: [UInt8] = [
        0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
        0xBC, 0xE6, 0xFA, 0xAD, 0xA7, 0x17, 0x9E, 0x84, 0xF3, 0xB9, 0xCA, 0xC2, 0xFC, 0x63, 0x25, 0x51,
    ]

    /// `⌊n / 2⌋` for P-256, big-endian: the largest `s` in canonical form.
    static let p256HalfOrder: [UInt8] = [
        0x7F, 0xFF, 0xFF, 0xFF, 0x80, 0x00, 0x00, 0x00, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
        0xDE, 0x73, 0x7D, 0x56, 0xD3, 0x8B, 0xCF, 0x42, 0x79, 0xDC, 0xE5, 0x61, 0x7E, 0x31, 0x92, 0xA8,
    ]

    /// Whether a raw 64-byte JWS signature `r || s` (RFC 7518 §3.4) has `s ≤ n / 2`.
    static func isLowS(_ raw: [UInt8]) -> Bool {
        guard raw.count == 64 else { return false }
        // Equal-length big-endian integers compare like their byte strings: s ≤ n/2 ⇔ ¬(n/2 < s).
        return !p256HalfOrder.lexicographicallyPrecedes(raw[32...])
    }

    /// The same signature with `s` replaced by `n − s` when `n / 2 < s < n`; unchanged
    /// otherwise (a wrong length, or an `s ≥ n` the backend refuses anyway).
    static func normalizedLowS(_ raw: [UInt8]) -> [UInt8] {
        guard raw.count == 64, !isLowS(raw), raw[32...].lexicographicallyPrecedes(p256Order) else { return raw }
        var result = Array(raw[..<32])
        var s = [UInt8](repeating: 0, count: 32)
        var borrow = 0
        for index in stride(from: 31, through: 0, by: -1) {
            var difference = Int(p256Order[index]) - Int(raw[32 + index]) - borrow
            borrow = difference < 0 ? 1 : 0
            if difference < 0 { difference += 256 }
            s[index] = UInt8(difference)
        }
        result += s
        return result
    }

    /// A DER `Ecdsa-Sig-Value ::= SEQUENCE { r INTEGER, s INTEGER }` (RFC 3279 §2.2.3, the
    /// form WebAuthn signatures use, W3C WebAuthn Level 3 §6.5.5) as raw `r || s`, each
    /// left-padded to 32 bytes; `nil` unless it is one strict DER structure with two positive
    /// minimally encoded integers of at most 32 significant bytes and nothing after it.
    static func raw(fromDER der: [UInt8]) -> [UInt8]? {
        guard der.count <= 72, let outer = DER.element(in: der, at: 0), outer.tag == 0x30, outer.end == der.count,
            let parts = DER.children(of: outer, in: der), parts.count == 2
        else { return nil }
        var raw: [UInt8] = []
        for part in parts {
            let value = der[part.contents]
            guard part.tag == 0x02, let first = value.first, first & 0x80 == 0 else { return nil }
            // Minimal: a leading zero only when the next byte has its high bit set.
            if first == 0, value.count == 1 || value[value.startIndex + 1] & 0x80 == 0 { return nil }
            let magnitude = value.drop(while: { $0 == 0 })
            guard !magnitude.isEmpty, magnitude.count <= 32 else { return nil }
            raw += [UInt8](repeating: 0, count: 32 - magnitude.count) + magnitude
        }
        return raw
    }

    /// The longest DER `Ecdsa-Sig-Value` of a P-256 signature: a SEQUENCE header and two
    /// INTEGERs of 32 bytes plus a leading `00` each (2 + 2 × (2 + 33)).
    static var maximumDERLength: Int { 72 }

    /// Writes raw `r || s` (64 bytes) as a DER `Ecdsa-Sig-Value` (RFC 3279 §2.2.3) into `out`,
    /// without allocating: each half becomes a positive minimal INTEGER (leading zero bytes
    /// dropped, one `00` added when the first remaining byte has its high bit set, a zero
    /// value encoded as the single byte `00`). Byte-for-byte what libcrypto's
    /// `i2d_ECDSA_SIG` and ``der(fromRaw:)`` produce.
    ///
    /// - Returns: the number of bytes written, or `nil` when `raw` is not 64 bytes or `out`
    ///   has room for fewer than ``maximumDERLength``.
    static func writeDER(fromRaw raw: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableBufferPointer<UInt8>)
        -> Int?
    {
        guard raw.count == 64, out.count >= maximumDERLength else { return nil }
        var written = 2
        for half in 0..<2 {
            let start = half * 32
            var first = start
            while first < start + 32, raw[first] == 0 { first += 1 }
            out[written] = 0x02
            if first == start + 32 {
                out[written + 1] = 1
                out[written + 2] = 0
                written += 3
                continue
            }
            let pad = raw[first] & 0x80 != 0 ? 1 : 0
            let magnitude = start + 32 - first
            out[written + 1] = UInt8(magnitude + pad)
            written += 2
            if pad == 1 {
                out[written] = 0
                written += 1
            }
            for index in 0..<magnitude { out[written + index] = raw[first + index] }
            written += magnitude
        }
        out[0] = 0x30
        out[1] = UInt8(written - 2)
        return written
    }

    /// Raw `r || s` (64 bytes) as a DER `Ecdsa-Sig-Value` (RFC 3279 §2.2.3), or `nil` for
    /// another length.
    static func der(fromRaw raw: [UInt8]) -> [UInt8]? {
        guard raw.count == 64 else { return nil }
        return DER.encode(
            tag: 0x30, DER.unsignedInteger(Array(raw[..<32])) + DER.unsignedInteger(Array(raw[32...])))
    }
}
