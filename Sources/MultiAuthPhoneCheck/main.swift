// multiauth-phonecheck: reads JSON lines `{"input": "...", "region": "GB"|null}` on stdin and
// writes one JSON line per input: `{"e164": "+44…", "region": "GB"|null}` or
// `{"error": "<AuthError.Reason>"}`. Used by Scripts/crosscheck_phone.py (one process for all cases).
import Foundation
import MultiAuth

/// One request line.
struct CheckRequest: Decodable {
    /// The text to parse.
    let input: String
    /// The default region, if any.
    let region: String?
}

/// One response line.
struct CheckResponse: Encodable {
    /// The E.164 form, on success.
    var e164: String?
    /// The detected region, on success.
    var region: String?
    /// The `AuthError.Reason` raw value (or `"badRequest"`), on failure.
    var error: String?
}

let decoder = JSONDecoder()
let encoder = JSONEncoder()
encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
var output = FileHandle.standardOutput

while let line = readLine(strippingNewline: true) {
    guard !line.trimmingCharacters(in: .whitespaces).isEmpty else { continue }
    var response = CheckResponse()
    if let request = try? decoder.decode(CheckRequest.self, from: Data(line.utf8)) {
        do {
            let number = try PhoneNumber(request.input, defaultRegion: request.region)
            response.e164 = number.e164
            response.region = number.regionCode
        } catch let error as AuthError {
            response.error = error.reason?.rawValue ?? error.code.rawValue
        } catch {
            response.error = "unexpected"
        }
    } else {
        response.error = "badRequest"
    }
    let data = (try? encoder.encode(response)) ?? Data(#"{"error":"encoding"}"#.utf8)
    output.write(data + Data("\n".utf8))
}
