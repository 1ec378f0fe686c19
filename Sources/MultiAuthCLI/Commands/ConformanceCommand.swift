import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthCrypto
import MultiAuthHTTP
import MultiAuthSandboxKit

/// `multiauth conformance`: runs the provider conformance kit (every ``ConformanceCheck``) against the reference
/// provider and the built-in providers, each against its emulated backend.
struct ConformanceCommand: Command {
    let name = "conformance"
    let summary =
        "Run the provider conformance kit (\(ConformanceCheck.allCases.count) checks) against the built-in providers"
    let options: [CommandOption] = [
        .value("provider", "NAME", "run one provider only"),
        .flag("json", "one JSON report per provider, one per line"),
        .value("server", "URL", "compare against the server at URL (e.g. http://127.0.0.1:40123)"),
        .value("signing-key", "FILE", "the RSA key (PEM) the server signs with (required with --server)"),
    ]
    var help: String {
        """
        Usage: multiauth conformance [--provider NAME] [--json]
               multiauth conformance --server URL --signing-key FILE [--provider NAME] [--json]

        Runs the conformance kit's \(ConformanceCheck.allCases.count) checks against each provider wired to its emulated
        backend in a fresh sandbox, and prints one aligned table per provider: passed, failed
        (with the first failure), or skipped with the reason the check does not apply.

        Providers: \(BuiltInConformance.all().map(\.id.rawValue).joined(separator: ", "))

        With --server, proves a running 'multiauth serve' (started with the same --signing-key)
        answers as the in-process sandbox does: each built-in provider's checks run in-process
        and against the server over HTTP (URLSessionTransport); the results must be equal, and
        every answer the server gave must be byte for byte what the in-process backends answer
        to the same request in the same state (replayed in its order, at its clock reading)
        (Docs/Emulator.md, "Proving the server equivalent"). The server is reset for every check.

        \(optionsHelp)

        Examples:
          multiauth conformance
          multiauth conformance --provider portal
          multiauth conformance --json | jq '.results[] | select(.status == "failed")'
          multiauth conformance --server http://127.0.0.1:40123 --signing-key key.pem

        Exit codes:
           0  every check passed or was skipped with a reason
           1  a check failed (with --server: or the server answered differently)
           2  usage error (unknown provider)
        \(ExitCode.outputFailedLine)
        """
    }

    func run(_ arguments: Arguments) async throws -> Int32 {
        guard arguments.positionals.isEmpty else {
            throw Arguments.UsageError(
                description: "unexpected argument '\(arguments.positionals[0])'; use --provider NAME")
        }
        if let server = arguments.options["server"] {
            return try await compare(server: server, arguments)
        }
        var kits = BuiltInConformance.all()
        if let name = arguments.options["provider"] {
            kits = kits.filter { $0.id.rawValue == name.lowercased() }
            guard !kits.isEmpty else {
                throw Arguments.UsageError(
                    description:
                        "unknown provider '\(name)'; choose one of \(BuiltInConformance.all().map(\.id.rawValue).joined(separator: ", "))"
                )
            }
        }
        var conforming = true
        for (id, kit) in kits {
            let report = await kit.run()
            conforming = conforming && report.failed.isEmpty
            if arguments.flags.contains("json") {
                let data = try report.jsonData()
                var object = (try JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
                object["provider"] = id.rawValue
                Terminal.out(Terminal.jsonLine(object))
            } else {
                Terminal.out("\(id)")
                Terminal.out(report.renderTable())
                Terminal.out("")
            }
        }
        return conforming ? ExitCode.ok : ExitCode.verificationFailed
    }

    /// `--server`: the equivalence run of every built-in provider against a running server.
    private func compare(server text: String, _ arguments: Arguments) async throws -> Int32 {
        guard let url = URL(string: text), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
            throw Arguments.UsageError(description: "--server must be the server's URL, e.g. http://127.0.0.1:40123")
        }
        guard let path = arguments.options["signing-key"] else {
            throw Arguments.UsageError(
                description:
                    "--server needs --signing-key FILE, the key the server was started with (multiauth serve --signing-key FILE)"
            )
        }
        guard let pem = try? String(contentsOfFile: path, encoding: .utf8),
            let key = try? PrivateKey(pemRepresentation: pem)
        else { throw Arguments.UsageError(description: "--signing-key: '\(path)' holds no readable RSA PRIVATE KEY") }
        var providers = EquivalenceRun.providers
        if let name = arguments.options["provider"] {
            providers = providers.filter { $0.rawValue == name.lowercased() }
            guard !providers.isEmpty else {
                throw Arguments.UsageError(
                    description:
                        "unknown provider '\(name)'; choose one of \(EquivalenceRun.providers.map(\.rawValue).joined(separator: ", "))"
                )
            }
        }
        let transport = URLSessionTransport(defaultTimeout: .seconds(60))
        var rows: [[String]] = []
        var equivalent = true
        for provider in providers {
            let comparison = await EquivalenceRun.compare(provider, server: url, transport: transport, signingKey: key)
            let counts = comparison.counts
            equivalent = equivalent && comparison.isEquivalent && counts.failed == 0
            if arguments.flags.contains("json") {
                Terminal.out(
                    Terminal.jsonLine([
                        "provider": comparison.provider, "passed": counts.passed, "failed": counts.failed,
                        "skipped": counts.skipped, "replayedExchanges": comparison.replayedExchanges,
                        "identicalChecks": comparison.identicalChecks.count, "differences": comparison.differences,
                        "equivalent": comparison.isEquivalent,
                    ]))
            } else {
                rows.append([
                    comparison.provider, "\(counts.passed)/\(counts.failed)/\(counts.skipped)",
                    "\(comparison.replayedExchanges)",
                    "\(comparison.identicalChecks.count) of \(comparison.server.count)",
                    comparison.isEquivalent ? "equivalent" : "DIFFERENT",
                ])
                for difference in comparison.differences { Terminal.err("  \(comparison.provider): \(difference)") }
            }
        }
        if !arguments.flags.contains("json") {
            Terminal.out("server \(url.absoluteString) against the in-process sandbox")
            Terminal.out(
                Terminal.table(
                    rows,
                    header: [
                        "provider", "passed/failed/skipped", "answers replayed byte for byte", "same exchange sequence",
                        "verdict",
                    ]))
        }
        return equivalent ? ExitCode.ok : ExitCode.verificationFailed
    }
}
