// libFuzzer target: the otpauth:// Key URI parser. Property: a parsed URI's canonical string
// parses again to the same fields (issuer, label issuer, account, secret, digits, period,
// algorithm, encoding: `==`) and prints the same string; its TOTP or Steam Guard generator
// computes a code.
import Foundation
import MultiAuthCrypto

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOTPAuth(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = String(decoding: fuzzBytes(data, size), as: UTF8.self)
    for candidate in [input, "otpauth://totp/" + input] {
        guard let uri = try? OTPAuthURI(parsing: candidate) else { continue }
        _ = uri.description
        let again = try? OTPAuthURI(parsing: uri.uriString)
        fuzzCheck(again != nil, "the canonical URI string does not parse")
        if let again {
            fuzzCheck(again == uri, "the canonical URI string parses to other fields")
            fuzzCheck(again.uriString == uri.uriString, "the canonical URI string is not a fixed point")
        }
        if let totp = try? uri.makeTOTP() { _ = try? totp.code(at: Date(timeIntervalSince1970: 1_700_000_000)) }
        if let steam = try? uri.makeSteamGuard() { _ = try? steam.code(at: 1_700_000_000) }
    }
    return 0
}
