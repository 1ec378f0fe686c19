import Foundation
import MultiAuth

// The redacted rendering of the Truecaller profile, personal data (Docs/Security.md,
// "Redaction"). A debugger, `dump`, `String(reflecting:)` and Swift's default `description` show
// only what this mirror lists. `TruecallerProfileResponse`, `TruecallerTokenVerifier` and
// `TruecallerConfiguration` need none: their secrets are `Secret` values.

extension TruecallerProfile: CustomReflectable {

    /// A mirror with the masked number, the country, the flags and the names of the other
    /// fields: no name, e-mail, nonce, verifier or field value (personal data and secrets).
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "phoneNumber": (try? PhoneNumber(phoneNumber))?.masked ?? HTTPRequest.redactionMarker,
                "countryCode": countryCode as Any,
                "isTrueName": isTrueName, "isAmbassador": isAmbassador, "requestTime": requestTime as Any,
                "otherFieldNames": otherFields.keys.sorted(),
            ], displayStyle: .struct)
    }
}
