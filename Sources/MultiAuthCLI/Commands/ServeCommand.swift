import Dispatch
import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthLocking
import MultiAuthSandboxKit
import MultiAuthSandboxServer

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `multiauth serve`: the four emulated backends as one loopback HTTP server with a control API
/// and an inspector page (Docs/Emulator.md).
struct ServeCommand: Command {
    let name = "serve"
    let summary = "Serve the four emulated backends on loopback HTTP, with a control API and an inspector page"
    let options: [CommandOption] = [
        .value("port", "N", "the port (default 0: a free one, printed on the first line)"),
        .value(
            "listen", "ADDRESS", "the address to bind (default 127.0.0.1; another interface, e.g.",
            "0.0.0.0, exposes the codes and sessions of the control API to that",
            "network: only for a device that cannot reach loopback)"),
        .value("seed", "N", "fixes every code, token and id (default 0)"),
        .flag(
            "real-time", "run the backends on the system clock (default: a manual clock that",
            "only moves through POST /_multiauth/clock/advance)"),
        .value(
            "signing-key", "FILE", "the RSA private key (PEM, PKCS #1) the backends sign with, e.g. to",
            "keep one key across restarts (default: a new sandbox key per process)"),
    ]
    var help: String {
        """
        Usage: multiauth serve [--port N] [--listen ADDRESS] [--seed N] [--real-time] [--signing-key FILE]

        Serves the emulated Dynamic, Truecaller, Portal and OTPLESS backends over HTTP/1.1, each
        under its host as a path prefix (http://127.0.0.1:PORT/app.dynamic.test/…) or by Host
        header, with the control API under /_multiauth/ (OpenAPI: /_multiauth/openapi.json) and
        the inspector page at /. Point an app at it with each provider's .sandbox(baseURL:)
        configuration (Docs/Emulator.md).

        The first line of the output is the server's base URL and nothing else, e.g.
          http://127.0.0.1:40123
        so a script can read it; the lines after it are for people. Ctrl-C (SIGINT) or SIGTERM
        stops the server cleanly: requests in progress finish, then it exits 0.

        \(optionsHelp)

        Examples:
          multiauth serve
          multiauth serve --port 4010 --seed 7
          url=$(multiauth serve | head -n 1)

        Exit codes:
           0  stopped by SIGINT or SIGTERM
           2  usage error (bad port, address, seed or key file)
          69  the port is already in use (choose another, or --port 0)
        \(ExitCode.outputFailedLine)
        """
    }

    func run(_ arguments: Arguments) async throws -> Int32 {
        guard arguments.positionals.isEmpty else {
            throw Arguments.UsageError(description: "unexpected argument '\(arguments.positionals[0])'")
        }
        var configuration = SandboxServer.Configuration()
        configuration.host = arguments.options["listen"] ?? "127.0.0.1"
        if let port = try arguments.integer("port", in: 0...65_535) { configuration.port = UInt16(port) }
        if let text = arguments.options["seed"] {
            guard let seed = UInt64(text) else {
                throw Arguments.UsageError(
                    description: "--seed must be a whole number from 0 to \(UInt64.max), got '\(text)'")
            }
            configuration.settings.seed = seed
        }
        if arguments.flags.contains("real-time") { configuration.settings.clock = .realTime }
        if let path = arguments.options["signing-key"] {
            guard let pem = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw Arguments.UsageError(description: "--signing-key: cannot read '\(path)'")
            }
            do { configuration.signingKey = try PrivateKey(pemRepresentation: pem) } catch {
                throw Arguments.UsageError(
                    description: "--signing-key: '\(path)' holds no RSA PRIVATE KEY block of 2048 bits or more")
            }
        }
        configuration.sessionIssuer = EmulatorSessions.issue
        let server = try SandboxServer(configuration: configuration)
        let url: URL
        do { url = try server.start() } catch let error as SandboxServerError {
            switch error {
            case .addressInUse:
                Terminal.err("multiauth serve: \(error.description)")
                return ExitCode.unavailable
            case .invalidAddress, .permissionDenied:
                throw Arguments.UsageError(description: error.description)
            default:
                Terminal.err("multiauth serve: cannot start: \(error.description)")
                return ExitCode.unavailable
            }
        }
        Terminal.out(url.absoluteString)
        let loopback = ["127.0.0.1", "::1"].contains(configuration.host) || configuration.host.hasPrefix("127.")
        if !loopback {
            Terminal.err(
                "multiauth serve: warning: listening on \(configuration.host): the control API hands out codes and sessions to anyone who can reach it"
            )
        }
        let clock: String
        switch configuration.settings.clock {
        case .manual(let start): clock = "manual clock at \(ISO8601DateFormatter().string(from: start))"
        case .realTime: clock = "real-time clock"
        }
        Terminal.out("MultiAuth sandbox server, seed \(configuration.settings.seed), \(clock)")
        Terminal.out("  inspector    \(url.absoluteString)/")
        Terminal.out("  control API  \(url.absoluteString)/_multiauth/ (OpenAPI: /_multiauth/openapi.json)")
        for family in EmulatorWorld.families {
            Terminal.out(
                "  \(family.name.padding(toLength: 11, withPad: " ", startingAt: 0))  "
                    + family.hosts.map { "\(url.absoluteString)/\($0)" }.joined(separator: "\n               "))
        }
        Terminal.out("Stop with Ctrl-C.")
        let signal = await Self.waitForTermination()
        Terminal.err("multiauth serve: \(signal), stopping")
        await server.stop(grace: .seconds(5))
        return ExitCode.ok
    }

    /// Suspends until SIGINT or SIGTERM arrives; returns its name.
    static func waitForTermination() async -> String {
        await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
            let queue = DispatchQueue(label: "multiauth.serve.signals")
            // Whether a signal already resumed the continuation.
            let done = Locked(false)
            // Every source exists before any handler can run, so a handler sees them all.
            let sources = [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")].map { number, name in
                signal(number, SIG_IGN)
                return (source: DispatchSource.makeSignalSource(signal: number, queue: queue), name: name)
            }
            for (source, name) in sources {
                source.setEventHandler {
                    let first = done.withLock { done in
                        defer { done = true }
                        return !done
                    }
                    guard first else { return }
                    for other in sources { other.source.cancel() }
                    continuation.resume(returning: name)
                }
            }
            for entry in sources { entry.source.resume() }
        }
    }
}
