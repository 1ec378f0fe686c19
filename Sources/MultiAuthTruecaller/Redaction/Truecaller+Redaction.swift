import Foundation
import MultiAuth

// Redacted renderings of the Truecaller types that hold a payload, a signature, a nonce, a
// verifier, personal data or the app key (Docs/Security.md, "Redaction"). A
// debugger, `dump` or `String(reflecting:)` shows only what these mirrors list.

extension TruecallerProfileResponse: CustomReflectable {

    /// A mirror with the algorithm and the sizes of the payload and signature, never their
    /// text or the nonce.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "signatureAlgorithm": signatureAlgorithm, "payloadCharacters": payload.count,
                "signatureCharacters": signature.count,
                "requestNonce": HTTPRequest.redactionMarker,
            ], displayStyle: .struct)
    }
}

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

extension TruecallerConfiguration: CustomStringConvertible, CustomReflectable {
    /// The endpoints and regions; the app key is shown as `<redacted>`.
    public var description: String {
        "TruecallerConfiguration(appKey: \(HTTPRequest.redactionMarker), otp: \(otpBaseURL.host ?? ""), "
            + "profile: \(profileBaseURLNonEU.host ?? "")/\(profileBaseURLEU.host ?? ""), keys: \(keyEndpoint.host ?? ""))"
    }

    /// A mirror without the app key.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "appKey": HTTPRequest.redactionMarker, "appLink": appLink, "otpBaseURL": otpBaseURL,
                "profileBaseURLEU": profileBaseURLEU,
                "profileBaseURLNonEU": profileBaseURLNonEU, "keyEndpoint": keyEndpoint, "otpRegions": otpRegions as Any,
                "otpLength": otpLength,
            ], displayStyle: .struct)
    }
}

extension TruecallerTokenVerifier: CustomStringConvertible, CustomReflectable {
    /// The credential kind and the host; never the key.
    public var description: String { "TruecallerTokenVerifier(\(credential), \(baseURL.host ?? ""))" }

    /// A mirror with the redacted credential and the base URL; the transport is not opened.
    public var customMirror: Mirror {
        Mirror(self, children: ["credential": credential, "baseURL": baseURL], displayStyle: .struct)
    }
}
