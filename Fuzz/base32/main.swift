// libFuzzer target: RFC 4648 base32. Properties: decoding any text never crashes; encoding
// the input bytes decodes back to them; decoded text re-encodes to a string that decodes to
// the same bytes.
import MultiAuthCrypto

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBase32(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    let encoded = Base32.encode(bytes)
    fuzzCheck((try? Base32.decode(encoded)) == bytes, "encode → decode is not the identity")
    if let decoded = try? Base32.decode(String(decoding: bytes, as: UTF8.self)) {
        fuzzCheck((try? Base32.decode(Base32.encode(decoded))) == decoded, "decode → encode → decode changed the bytes")
    }
    return 0
}
