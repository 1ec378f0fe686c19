// libFuzzer target: the otpauth:// Key URI parser. Property: a parsed URI's canonical string
// parses again to the same secret, digits, period and algorithm; its TOTP computes a code.
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
            fuzzCheck(
                again.secretBytes == uri.secretBytes && again.digits == uri.digits && again.period == uri.period
                    && again.algorithm == uri.algorithm, "the canonical URI string parses to something else")
        }
        if let totp = try? uri.makeTOTP() { _ = try? totp.code(at: Date(timeIntervalSince1970: 1_700_000_000)) }
    }
    return 0
}
