// libFuzzer target: the e-mail address parser. Property: the identity key parses to itself.
import MultiAuth

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEmail(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = String(decoding: fuzzBytes(data, size), as: UTF8.self)
    guard let email = try? EmailAddress(input) else { return 0 }
    _ = email.masked
    _ = email.description
    let again = try? EmailAddress(email.identityKey)
    fuzzCheck(again?.identityKey == email.identityKey, "the identity key does not re-parse to itself")
    return 0
}
