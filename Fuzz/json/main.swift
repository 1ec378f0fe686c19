// libFuzzer target: the bounded JSON front door (JSONValue(parsing:limits:), the parser behind
// every JWT and JWKS). Properties: any bytes either parse or throw CryptoError .malformedToken
// or .limitExceeded (never another error, never a crash or a stack overflow); a parsed value
// stays within the limits it was parsed with; encoding a parsed value and parsing it again
// gives the same value; the same bytes as a JWT claims segment and as a JWKS document behave
// the same way. The committed corpus holds the hostile shapes: 300 levels of
// arrays and of objects, deep-and-wide documents and inputs past the size limit.
import Foundation
import MultiAuthCrypto

/// Tight limits, so the corpus's 4 KiB inputs also exercise the size and count refusals.
let tight = JSONLimits(maximumBytes: 2_048, maximumDepth: 16, maximumValues: 256)

/// The nesting depth and value count of `value`, counted without recursion.
func shape(of value: JSONValue) -> (depth: Int, values: Int) {
    var stack = [(value, 1)]
    var depth = 0
    var values = 0
    while let (current, level) = stack.popLast() {
        values += 1
        switch current {
        case .array(let elements):
            depth = max(depth, level)
            stack += elements.map { ($0, level + 1) }
        case .object(let members):
            depth = max(depth, level)
            stack += members.values.map { ($0, level + 1) }
        default: break
        }
    }
    return (depth, values)
}

/// Parses `bytes` with `limits`; checks the outcome is a value within them or a typed refusal.
func parse(_ bytes: [UInt8], _ limits: JSONLimits) -> JSONValue? {
    do {
        let value = try JSONValue(parsing: bytes, limits: limits)
        let (depth, values) = shape(of: value)
        fuzzCheck(bytes.count <= limits.maximumBytes, "parsed \(bytes.count) bytes past the size limit")
        fuzzCheck(depth <= limits.maximumDepth, "parsed depth \(depth) past the limit \(limits.maximumDepth)")
        fuzzCheck(values <= limits.maximumValues, "parsed \(values) values past the limit \(limits.maximumValues)")
        return value
    } catch let error as CryptoError {
        switch error {
        case .malformedToken, .limitExceeded: return nil
        default: fatalError("unexpected CryptoError \(error)")
        }
    } catch {
        fatalError("non-CryptoError \(type(of: error))")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    let loose = parse(bytes, .jwt)
    if let value = parse(bytes, tight) { fuzzCheck(value == loose, "tight and default limits parsed different values") }
    if let value = loose, let encoded = try? JSONEncoder().encode(value) {
        let reparsed = try? JSONValue(
            parsing: Array(encoded), limits: JSONLimits(maximumBytes: 1 << 20, maximumDepth: 32, maximumValues: 4_096))
        fuzzCheck(reparsed == value, "encode → parse is not the identity")
    }
    // As a token's claims segment: an object parses or a typed error comes back.
    let token = Base64URL.encode(Array(#"{"alg":"RS256"}"#.utf8)) + "." + Base64URL.encode(bytes) + ".c2ln"
    if let jwt = try? JWT(parsing: token) {
        fuzzCheck(loose?.objectValue == jwt.claims.members, "JWT claims differ from the parsed object")
    }
    // As a JWKS document.
    _ = try? JWKSet(jsonData: Data(bytes))
    return 0
}
