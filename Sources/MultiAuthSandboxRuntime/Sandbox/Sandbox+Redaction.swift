import Foundation
import MultiAuth

// Redacted renderings of the sandbox's types (Docs/Security.md, "Redaction"). The
// sandbox holds every code, token and key it issued; test code reads them through the
// public API (`inbox.latest(for:)?.code`, …). `Sandbox`, `SandboxTransport`,
// `SandboxContext`, `Inbox` and `FaultPlan` keep their state in a `Locked` box, whose
// rendering hides its contents, and `InboxMessage`, `SandboxLogEntry` and
// `ScriptedTransport.Exchange` keep their codes, links and paths as `Secret`s, so their default
// mirrors show no secret. A fault action holds an injected body and headers as plain values
// and hides them here.

extension FaultAction: CustomReflectable {

    /// A mirror with the ``description`` only.
    public var customMirror: Mirror { Mirror(self, children: ["action": description], displayStyle: .enum) }
}
