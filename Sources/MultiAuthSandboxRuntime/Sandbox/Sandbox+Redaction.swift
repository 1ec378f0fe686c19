import Foundation
import MultiAuth

// Redacted renderings of the sandbox's types (Docs/Security.md, "Redaction"). The
// sandbox holds every code, token and key it issued; test code reads them through the
// public API (`inbox.latest(for:)?.code`, …), but a failure message, `dump` or a debugger's
// variables view shows only what these mirrors list.

extension Sandbox: CustomStringConvertible, CustomReflectable {
    /// `Sandbox(seed: 7, hosts: [...], requests: 12)`.
    public var description: String {
        "Sandbox(seed: \(seed), hosts: [\(hosts.joined(separator: ", "))], requests: \(requestCount))"
    }

    /// A mirror with the seed, the hosts and the (redacted) request log; the backends, the
    /// inbox and the fault plan are not opened.
    public var customMirror: Mirror {
        Mirror(
            self, children: ["seed": seed, "hosts": hosts, "requestLog": requestLog, "clock": clock],
            displayStyle: .class)
    }
}

extension SandboxTransport: CustomStringConvertible, CustomReflectable {
    /// `SandboxTransport(<the sandbox's description>)`.
    public var description: String { "SandboxTransport(\(sandbox))" }

    /// A mirror with the sandbox's seed only.
    public var customMirror: Mirror { Mirror(self, children: ["seed": sandbox.seed], displayStyle: .struct) }
}

extension SandboxContext: CustomStringConvertible, CustomReflectable {
    /// `SandboxContext(host: …)`.
    public var description: String { "SandboxContext(host: \(host))" }

    /// A mirror with the host only: the inbox, random source and fault plan are not opened.
    public var customMirror: Mirror { Mirror(self, children: ["host": host], displayStyle: .struct) }
}

extension Inbox: CustomStringConvertible, CustomReflectable {
    /// `Inbox(3 messages)`.
    public var description: String { "Inbox(\(count) messages)" }

    /// A mirror with the (redacted) messages.
    public var customMirror: Mirror { Mirror(self, children: ["messages": allMessages], displayStyle: .class) }
}

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

extension FaultPlan: CustomStringConvertible, CustomReflectable {
    /// `FaultPlan(2 active rules)`.
    public var description: String { "FaultPlan(\(activeRuleCount) active rules)" }

    /// A mirror with the number of active rules only (injected bodies are not shown).
    public var customMirror: Mirror {
        Mirror(self, children: ["activeRuleCount": activeRuleCount], displayStyle: .class)
    }
}

extension FaultAction: CustomReflectable {

    /// A mirror with the ``description`` only.
    public var customMirror: Mirror { Mirror(self, children: ["action": description], displayStyle: .enum) }
}
