import Foundation
import MultiAuth
import MultiAuthSandboxRuntime

extension OTPlessBackend: SandboxBackend {
    /// Serves one request in a ``/MultiAuthSandboxRuntime/Sandbox``: server time from the context (clock offset
    /// included), codes and tokens from its seeded random source, deliveries into its
    /// ``/MultiAuthSandboxRuntime/Inbox`` (a channel the ``/MultiAuthSandboxRuntime/FaultPlan`` fails drives the SmartAuth fallback).
    /// - Returns: The response (any status); never throws.
    public func handle(_ request: HTTPRequest, context: SandboxContext) async throws -> HTTPResponse {
        let environment = Environment(
            now: context.time.now, digits: { context.random.digits($0) }, hex: { context.random.hex(bytes: $0) },
            deliver: { code, link, destination, channel in
                context.deliver(code: code, link: link, to: destination, channel: channel).status == .delivered
            }, code: { context.oneTimeCode(digits: $0, for: $1) })
        return handle(request, environment: environment)
    }

    /// Registers this backend under every host it answers (``hosts``).
    public func install(in sandbox: Sandbox) {
        for host in Self.hosts { sandbox.register(self, host: host) }
    }
}
