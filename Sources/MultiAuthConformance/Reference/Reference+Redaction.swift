import Foundation
import MultiAuth
import MultiAuthSandboxRuntime

// Redacted renderings of the reference backend's wire bodies (Docs/Security.md,
// "Redaction"), as for the emulated vendor backends in MultiAuthSandbox. `ReferenceBackend`
// keeps its users, flows and tokens in a `Locked` box, whose rendering hides its contents.

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
