// libFuzzer target: base64url (RFC 4648 §5, unpadded as in JWTs) and standard base64.
// Properties as for base32.
import MultiAuthCrypto

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBase64URL(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    fuzzCheck(
        (try? Base64URL.decode(Base64URL.encode(bytes))) == bytes, "base64url encode → decode is not the identity")
    fuzzCheck((try? Base64.decode(Base64.encode(bytes))) == bytes, "base64 encode → decode is not the identity")
    let text = String(decoding: bytes, as: UTF8.self)
    if let decoded = try? Base64URL.decode(text) {
        fuzzCheck(
            (try? Base64URL.decode(Base64URL.encode(decoded))) == decoded, "base64url round trip changed the bytes")
    }
    _ = try? Base64.decode(text)
    return 0
}
