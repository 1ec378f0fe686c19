import Foundation
import MultiAuth

// Redacted renderings of the Truecaller types that hold personal data or an installation id
// (Docs/Security.md, "Redaction"). A debugger, `dump`, `String(reflecting:)` and Swift's default
// `description` show only what these mirrors list. `TruecallerProfileResponse` and
// `TruecallerTokenVerifier` need none: their secrets are `Secret` values.

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

extension TruecallerConfiguration: CustomReflectable {
    /// A mirror without the device id (an installation identifier); the app key is a
    /// ``/MultiAuth/Secret`` and shows `<redacted>`.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "appKey": appKey, "appLink": appLink, "otpBaseURL": otpBaseURL,
                "profileBaseURLEU": profileBaseURLEU,
                "profileBaseURLNonEU": profileBaseURLNonEU, "keyEndpoint": keyEndpoint, "otpRegions": otpRegions as Any,
                "otpLength": otpLength,
            ], displayStyle: .struct)
    }
}
