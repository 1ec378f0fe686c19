import Foundation
import MultiAuth

// Redacted renderings of the sandbox's types (Docs/Security.md, "Redaction"). The
// sandbox holds every code, token and key it issued; test code reads them through the
// public API (`inbox.latest(for:)?.code`, …). `Sandbox`, `SandboxTransport`,
// `SandboxContext`, `Inbox` and `FaultPlan` keep their state in a `Locked` box, whose
// rendering hides its contents, so their default renderings show no secret; the types
// below hold a code, link or injected body as a plain value and hide it here.

extension InboxMessage: CustomReflectable {

    /// A mirror with the masked destination, without the code or the link.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "id": id, "host": host, "destination": maskedDestination, "channel": channel, "hasCode": code != nil,
                "hasLink": link != nil,
                "status": status, "sentAt": sentAt,
            ], displayStyle: .struct)
    }
}

extension FaultAction: CustomReflectable {

    /// A mirror with the ``description`` only.
    public var customMirror: Mirror { Mirror(self, children: ["action": description], displayStyle: .enum) }
}
