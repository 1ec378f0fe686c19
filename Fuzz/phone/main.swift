// libFuzzer target: the phone number parser (E.164, national input with a default region).
// Property: whatever parses, its E.164 form parses too. (Not: to the same number. Like
// libphonenumber's `parse`, which the parser follows and Scripts/crosscheck_phone.py checks,
// an international number whose national part starts with the trunk prefix has it stripped,
// e.g. "+550215615670" → "+55215615670"; such numbers are invalid anyway. See
// Docs/Reliability.md, "Findings".)
import MultiAuth

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPhone(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    // Byte 0 picks a default region; the rest is the user's input.
    let regions: [String?] = [nil, "IN", "US", "GB", "DE", "IT", "BR", "AR", "MX", "CN", "JP", "ZZ", "", "in"]
    let region = bytes.first.map { regions[Int($0) % regions.count] } ?? nil
    let input = String(decoding: bytes.dropFirst(), as: UTF8.self)
    for candidate in [input, String(decoding: bytes, as: UTF8.self)] {
        guard let phone = try? PhoneNumber(candidate, defaultRegion: region) else { continue }
        _ = phone.masked
        _ = phone.description
        let again = try? PhoneNumber(phone.e164)
        fuzzCheck(again != nil, "\(phone.e164) (from a successful parse) does not parse")
    }
    return 0
}
