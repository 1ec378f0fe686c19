import Foundation
import MultiAuth

// Redacted renderings of the OTPLESS types that hold a credential
// (Docs/Security.md, "Redaction").

extension OTPlessTokenVerifier: CustomStringConvertible, CustomReflectable {
    /// The client id, the host and the issuer; the client secret is shown as `<redacted>`.
    public var description: String {
        "OTPlessTokenVerifier(clientID: \(clientID), clientSecret: \(HTTPRequest.redactionMarker), host: \(baseURL.host ?? ""), issuer: \(issuer))"
    }

    /// A mirror without the client secret; the transport and the key cache are not opened.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "clientID": clientID, "clientSecret": HTTPRequest.redactionMarker, "baseURL": baseURL, "issuer": issuer,
                "jwksURL": jwksURL as Any, "leeway": leeway,
            ], displayStyle: .struct)
    }
}

extension OTPlessProvider: CustomStringConvertible, CustomReflectable {
    /// The provider id, the app id and the hosts; the per-flow state it keeps (transaction
    /// tokens, consumed deep-link codes, the device's session state) is never shown.
    public var description: String {
        "OTPlessProvider(id: \(id), appID: \(configuration.appID), host: \(configuration.baseURL.host ?? ""), "
            + "sessionHost: \(configuration.sessionBaseURL.host ?? ""))"
    }

    /// A mirror with the id and the configuration only: the flow registry and the device state
    /// hold transaction tokens and consumed codes.
    public var customMirror: Mirror {
        Mirror(self, children: ["id": id, "configuration": configuration], displayStyle: .struct)
    }
}
