// libFuzzer target: the JWT decoder (compact serialization, header and claims JSON). Any input
// either parses or throws; the registered claims of a parsed token are readable.
import MultiAuthCrypto

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJWT(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    let text = String(decoding: bytes, as: UTF8.self)
    // Also try the bytes as a token's claims segment, so the JSON decoder is reached often.
    let built = Base64URL.encode(Array(#"{"alg":"RS256","typ":"JWT"}"#.utf8)) + "." + Base64URL.encode(bytes) + ".c2ln"
    for candidate in [text, built] {
        guard let jwt = try? JWT(parsing: candidate) else { continue }
        _ = (jwt.algorithm, jwt.keyID, jwt.type, String(describing: jwt))
        let claims = jwt.claims
        _ = (claims.subject, claims.issuer, claims.audience, claims.expiresAt, claims.notBefore, claims.issuedAt)
    }
    return 0
}
