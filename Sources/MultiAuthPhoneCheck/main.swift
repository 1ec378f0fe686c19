// MultiAuthPhoneCheck: reads JSON lines `{"input": "...", "region": "GB"|null}` on stdin and
// writes one JSON line per input: `{"e164": "+44…", "region": "GB"|null}` or
// `{"error": "<AuthError.Reason>", "message": "…"}`. Used by Scripts/crosscheck_phone.py (one
// process for all cases). A line `{"email": "..."}` is checked as an EmailAddress instead:
// `{"identityKey": "…"}` or `{"error": "invalidEmail", "message": "…"}`
// (Scripts/crosscheck_email.py).
import Foundation
import MultiAuth

/// One request line.
struct CheckRequest: Decodable {
    /// The phone number text to parse.
    let input: String?
    /// An e-mail address to check instead.
    let email: String?
    /// The default region, if any.
    let region: String?
}

/// One response line.
struct CheckResponse: Encodable {
    /// The E.164 form, on success.
    var e164: String?
    /// The detected region, on success.
    var region: String?
    /// The e-mail identity key, on success.
    var identityKey: String?
    /// The `AuthError.Reason` raw value (or `"badRequest"`), on failure.
    var error: String?
    /// The error message, on failure.
    var message: String?
}

let decoder = JSONDecoder()
let encoder = JSONEncoder()
encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
let output = FileHandle.standardOutput

while let line = readLine(strippingNewline: true) {
    guard !line.trimmingCharacters(in: .whitespaces).isEmpty else { continue }
    var response = CheckResponse()
    if let request = try? decoder.decode(CheckRequest.self, from: Data(line.utf8)),
        request.input != nil || request.email != nil
    {
        do {
            if let email = request.email {
                response.identityKey = try EmailAddress(email).identityKey
            } else {
                let number = try PhoneNumber(request.input ?? "", defaultRegion: request.region)
                response.e164 = number.e164
                response.region = number.regionCode
            }
        } catch let error as AuthError {
            response.error = error.reason?.rawValue ?? error.code.rawValue
            response.message = error.message
        } catch {
            response.error = "unexpected"
        }
    } else {
        response.error = "badRequest"
    }
    let data = (try? encoder.encode(response)) ?? Data(#"{"error":"encoding"}"#.utf8)
    // `write(contentsOf:)` throws where `write(_:)` would trap (a full disk, a closed pipe).
    do { try output.write(contentsOf: data + Data("\n".utf8)) } catch {
        FileHandle.standardError.write(Data("multiauth-phonecheck: cannot write the answers: \(error)\n".utf8))
        exit(74)
    }
}
