import Foundation

// Mirrors for core types that reach secrets through what they hold (a transport, a store,
// the client's memory of flows and refresh credentials). Issue 15; Docs/Security.md,
// "Redaction". A debugger or `dump` shows these children only.

extension AuthClient: CustomReflectable {
    /// A mirror with the provider ids and the refresh margin only: never the pending
    /// challenges, the sessions it remembers or the refresh credentials it keys them by.
    public nonisolated var customMirror: Mirror {
        Mirror(self, children: ["providerIDs": providerIDs, "refreshMargin": refreshMargin], displayStyle: .class)
    }
}

extension AuthContext: CustomReflectable {
    /// A mirror with the flow id and the transport's type name only: the transport (e.g. a
    /// sandbox with its inbox) and the event sink are not opened.
    public var customMirror: Mirror {
        Mirror(self, children: ["flowID": flowID as Any, "transport": String(describing: type(of: transport))], displayStyle: .struct)
    }
}

extension HTTPPathSegment: CustomDebugStringConvertible, CustomReflectable {
    /// Same as ``description``: `<redacted>` for a secret segment.
    public var debugDescription: String { description }

    /// A mirror with the printable text (``description``) and whether the segment is secret.
    public var customMirror: Mirror {
        Mirror(self, children: ["text": description, "isSecret": isSecret], displayStyle: .struct)
    }
}
