import Foundation
import MultiAuth
import MultiAuthSandboxRuntime

// Redacted renderings of the emulated backends' types (Docs/Security.md,
// "Redaction"); the runtime's types have theirs in MultiAuthSandboxRuntime. The backends hold
// every code, token and key they issued; test code reads them through the
// public API (`inbox.latest(for:)?.code`, …), but a failure message, `dump` or a debugger's
// variables view shows only what these mirrors list.

extension TruecallerSignedProfile: CustomDebugStringConvertible, CustomReflectable {
    /// Same as ``description``.
    public var debugDescription: String { description }

    /// A mirror with the algorithm only: no payload, signature or nonce.
    public var customMirror: Mirror {
        Mirror(self, children: ["signatureAlgorithm": signatureAlgorithm], displayStyle: .struct)
    }
}

extension OTPlessMerchant: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The app and client ids and the enabled methods; the client secret is `<redacted>`.
    public var description: String {
        "OTPlessMerchant(appID: \(appID), clientID: \(clientID), clientSecret: \(HTTPRequest.redactionMarker), phone: \(phoneAuthType.rawValue))"
    }

    /// Same as ``description``.
    public var debugDescription: String { description }

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

extension DynamicBackend: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `DynamicBackend(environment: …, kid: …)`; no key, code or token.
    public var description: String { "DynamicBackend(environment: \(environmentID), kid: \(keyID))" }

    /// Same as ``description``.
    public var debugDescription: String { description }

    /// A mirror with the public configuration only.
    public var customMirror: Mirror {
        Mirror(
            self, children: ["environmentID": environmentID, "keyID": keyID, "audience": audience], displayStyle: .class
        )
    }
}

extension TruecallerBackend: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `TruecallerBackend(otpLength: 6, tokenTtl: 300)`; no key, code or token.
    public var description: String { "TruecallerBackend(otpLength: \(otpLength), tokenTtl: \(tokenTtl))" }

    /// Same as ``description``.
    public var debugDescription: String { description }

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

extension PortalBackend: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `PortalBackend(environment: …)`; no secret, grant or token.
    public var description: String { "PortalBackend(environment: \(environmentID))" }

    /// Same as ``description``.
    public var debugDescription: String { description }

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

extension OTPlessBackend: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `OTPlessBackend(<the merchant, secret redacted>)`.
    public var description: String { "OTPlessBackend(\(merchant))" }

    /// Same as ``description``.
    public var debugDescription: String { description }

    /// A mirror with the (redacted) merchant and the key id only.
    public var customMirror: Mirror {
        Mirror(self, children: ["merchant": merchant, "keyID": keyID], displayStyle: .class)
    }
}

extension ReferenceBackend: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `ReferenceBackend(2 users)`.
    public var description: String { "ReferenceBackend(\(userCount) users)" }

    /// Same as ``description``.
    public var debugDescription: String { description }

    /// A mirror with the user count only.
    public var customMirror: Mirror { Mirror(self, children: ["userCount": userCount], displayStyle: .class) }
}

// The reference protocol's wire bodies carry codes, flow ids, state and tokens.

extension ReferenceProtocol.StartRequest: CustomStringConvertible, CustomReflectable {
    /// The channel and fallback flag; identity and state are `<redacted>`.
    public var description: String { "StartRequest(channel: \(channel), allowFallback: \(allowFallback))" }
    /// A mirror without the identity or the state.
    public var customMirror: Mirror {
        Mirror(self, children: ["channel": channel, "allowFallback": allowFallback], displayStyle: .struct)
    }
}

extension ReferenceProtocol.ChallengeResponse: CustomStringConvertible, CustomReflectable {
    /// The code length, channel and timing; the flow id is `<redacted>`.
    public var description: String {
        "ChallengeResponse(length: \(length), channel: \(channel), expiresIn: \(expiresIn))"
    }
    /// A mirror without the flow id.
    public var customMirror: Mirror {
        Mirror(
            self, children: ["length": length, "channel": channel, "expiresIn": expiresIn, "attempts": attempts],
            displayStyle: .struct)
    }
}

extension ReferenceProtocol.VerifyRequest: CustomStringConvertible, CustomReflectable {
    /// `VerifyRequest(<redacted>)`: neither the flow id nor the code.
    public var description: String { "VerifyRequest(\(HTTPRequest.redactionMarker))" }
    /// A mirror with no children.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

extension ReferenceProtocol.ResendRequest: CustomStringConvertible, CustomReflectable {
    /// The channel; the flow id is `<redacted>`.
    public var description: String { "ResendRequest(channel: \(channel ?? "-"))" }
    /// A mirror without the flow id.
    public var customMirror: Mirror { Mirror(self, children: ["channel": channel as Any], displayStyle: .struct) }
}

extension ReferenceProtocol.RefreshRequest: CustomStringConvertible, CustomReflectable {
    /// `RefreshRequest(<redacted>)`.
    public var description: String { "RefreshRequest(\(HTTPRequest.redactionMarker))" }
    /// A mirror with no children.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

extension ReferenceProtocol.LogoutRequest: CustomStringConvertible, CustomReflectable {
    /// `LogoutRequest(<redacted>)`.
    public var description: String { "LogoutRequest(\(HTTPRequest.redactionMarker))" }
    /// A mirror with no children.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

extension ReferenceProtocol.TokenResponse: CustomStringConvertible, CustomReflectable {
    /// The lifetime and the user id; the tokens are `<redacted>`.
    public var description: String { "TokenResponse(expiresIn: \(expiresIn), user: \(user.id))" }
    /// A mirror without the tokens.
    public var customMirror: Mirror {
        Mirror(
            self, children: ["expiresIn": expiresIn, "expiresAt": expiresAt, "userID": user.id], displayStyle: .struct)
    }
}
