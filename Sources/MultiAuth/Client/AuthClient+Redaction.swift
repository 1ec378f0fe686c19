import Foundation

// The client's mirror: it reaches secrets through what it holds (a transport, a store, its
// memory of flows and refresh credentials). Docs/Security.md, "Redaction". A
// debugger or `dump` shows these children only.

extension AuthClient: CustomReflectable {
    /// A mirror with the provider ids and the refresh margin only: never the pending
    /// challenges, the sessions it remembers or the refresh credentials it keys them by.
    public nonisolated var customMirror: Mirror {
        Mirror(self, children: ["providerIDs": providerIDs, "refreshMargin": refreshMargin], displayStyle: .class)
    }
}
