import Foundation
import MultiAuth
import MultiAuthSandboxRuntime

// Redacted renderings of the emulated backends' types (Docs/Security.md,
// "Redaction"); the runtime's types have theirs in MultiAuthSandboxRuntime. The backends hold
// every code, token and key they issued; test code reads them through the
// public API (`inbox.latest(for:)?.code`, …), but a failure message, `dump` or a debugger's
// variables view shows only what these mirrors list.

extension TruecallerSignedProfile: CustomReflectable {

    /// A mirror with the algorithm only: no payload, signature or nonce.
    public var customMirror: Mirror {
        Mirror(self, children: ["signatureAlgorithm": signatureAlgorithm], displayStyle: .struct)
    }
}

extension OTPlessMerchant: CustomStringConvertible, CustomReflectable {
    /// The app and client ids and the enabled methods; the client secret is `<redacted>`.
    public var description: String {
        "OTPlessMerchant(appID: \(appID), clientID: \(clientID), clientSecret: \(HTTPRequest.redactionMarker), phone: \(phoneAuthType.rawValue))"
    }

    /// A mirror without the client secret.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "appID": appID, "clientID": clientID, "clientSecret": HTTPRequest.redactionMarker,
                "phoneChannels": phoneChannels,
                "emailEnabled": emailEnabled, "phoneAuthType": phoneAuthType.rawValue,
                "emailAuthType": emailAuthType.rawValue,
                "otpLength": otpLength,
            ], displayStyle: .struct)
    }
}

extension DynamicBackend: CustomStringConvertible, CustomReflectable {
    /// `DynamicBackend(environment: …, kid: …)`; no key, code or token.
    public var description: String { "DynamicBackend(environment: \(environmentID), kid: \(keyID))" }

    /// A mirror with the public configuration only.
    public var customMirror: Mirror {
        Mirror(
            self, children: ["environmentID": environmentID, "keyID": keyID, "audience": audience], displayStyle: .class
        )
    }
}

extension TruecallerBackend: CustomStringConvertible, CustomReflectable {
    /// `TruecallerBackend(otpLength: 6, tokenTtl: 300)`; no key, code or token.
    public var description: String { "TruecallerBackend(otpLength: \(otpLength), tokenTtl: \(tokenTtl))" }

    /// A mirror with the public configuration only (not the accepted app keys).
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "otpLength": otpLength, "tokenTtl": tokenTtl, "maximumAttempts": maximumAttempts, "lockout": lockout,
            ],
            displayStyle: .class)
    }
}

extension PortalBackend: CustomStringConvertible, CustomReflectable {
    /// `PortalBackend(environment: …)`; no secret, grant or token.
    public var description: String { "PortalBackend(environment: \(environmentID))" }

    /// A mirror with the public configuration only.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "environmentID": environmentID, "allowedRedirectURLs": allowedRedirectURLs.sorted(),
                "totpRequired": totpRequired,
            ],
            displayStyle: .class)
    }
}

extension OTPlessBackend: CustomStringConvertible, CustomReflectable {
    /// `OTPlessBackend(<the merchant, secret redacted>)`.
    public var description: String { "OTPlessBackend(\(merchant))" }

    /// A mirror with the (redacted) merchant and the key id only.
    public var customMirror: Mirror {
        Mirror(self, children: ["merchant": merchant, "keyID": keyID], displayStyle: .class)
    }
}
