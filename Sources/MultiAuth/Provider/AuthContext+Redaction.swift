import Foundation

// The context's mirror: it reaches secrets through what it holds (a transport such as a
// sandbox with its inbox, an event sink). Docs/Security.md, "Redaction". A debugger
// or `dump` shows these children only.

extension AuthContext: CustomReflectable {
    /// A mirror with the flow id and the transport's type name only: the transport (e.g. a
    /// sandbox with its inbox) and the event sink are not opened.
    public var customMirror: Mirror {
        Mirror(
            self, children: ["flowID": flowID as Any, "transport": String(describing: type(of: transport))],
            displayStyle: .struct)
    }
}
