import Foundation
import MultiAuth
import MultiAuthHTTP
import MultiAuthLocking
import MultiAuthSandbox
import MultiAuthSandboxServer
import MultiAuthTestKeys

/// One backend request (a Dynamic e-mail code send) through `multiauth serve`'s server on
/// loopback (URLSessionTransport, a kept-alive connection, the server's poll thread and
/// request task) against the same request through the in-process sandbox transport: what the
/// emulator costs per request. No goal; the figures are requests per second (Docs/Emulator.md).
enum ServeBench {
    final class Counter: Sendable {
        private let value = Locked(0)
        func next() -> Int {
            value.withLock { value in
                value += 1
                return value
            }
        }
    }

    static let path = "/api/v0/sdk/\(DynamicBackend.defaultEnvironmentID)/emailVerifications/create"

    static func request(base: String, counter: Counter) throws -> HTTPRequest {
        // A new address each time: the backend allows three sends per address per 10 minutes.
        try HTTPRequest.json(
            .post, URL(string: base + path)!, body: ["email": "bench\(counter.next())@example.com"])
    }

    static let loopback = Kernel("serve.loopback", batch: 200, instructions: 20) {
        let server = try SandboxServer(configuration: .init(signingKey: TestKeys.rsaA))
        let url = try server.start()
        let transport = URLSessionTransport()
        let counter = Counter()
        let base = url.absoluteString + "/" + DynamicBackend.defaultHost
        var runner = Kernel.timedAsync { count in
            for _ in 0..<count {
                let response = try await transport.send(try request(base: base, counter: counter))
                guard response.status == 201 else { throw BenchError("HTTP \(response.status)") }
            }
        }
        runner.close = { server.stopAndWait() }
        return runner
    }

    static let inProcess = Kernel("serve.in-process", batch: 200, instructions: 20) {
        let sandbox = Sandbox(seed: 7)
        sandbox.register(DynamicBackend(signingKey: TestKeys.rsaA), host: DynamicBackend.defaultHost)
        let transport = sandbox.transport
        let counter = Counter()
        let base = "https://" + DynamicBackend.defaultHost
        return Kernel.timedAsync { count in
            for _ in 0..<count {
                let response = try await transport.send(try request(base: base, counter: counter))
                guard response.status == 201 else { throw BenchError("HTTP \(response.status)") }
            }
        }
    }

    static let comparisons = [
        Comparison(
            group: "serve", label: "a backend request over loopback HTTP vs the in-process sandbox",
            ours: loopback, baseline: inProcess, goal: .none, judgedOnTime: true,
            note:
                "serve: most of a loopback request is system calls (two sockets, the poll thread), which callgrind does not see"
        )
    ]

    /// The requests per second of both sides of a measured row.
    static func info(_ result: InterleavedResult) -> InfoRow {
        let loopback = 1e9 / Stats.median(result.oursNanos)
        let inProcess = 1e9 / Stats.median(result.baselineNanos)
        return InfoRow(
            group: "serve", label: "requests/s, one client, sequential",
            value: String(format: "loopback %.0f/s, in-process %.0f/s", loopback, inProcess))
    }
}
