import Foundation
import MultiAuth
import MultiAuthBuiltInConformance
import MultiAuthConformance

/// `multiauth conformance`: runs the provider conformance kit (every ``ConformanceCheck``) against the reference
/// provider and the built-in providers, each against its emulated backend.
struct ConformanceCommand: Command {
    let name = "conformance"
    let summary =
        "Run the provider conformance kit (\(ConformanceCheck.allCases.count) checks) against the built-in providers"
    let valueOptions: Set<String> = ["provider"]
    let flags: Set<String> = ["json"]
    var help: String {
        """
        Usage: multiauth conformance [--provider NAME] [--json]

        Runs the conformance kit's \(ConformanceCheck.allCases.count) checks against each provider wired to its emulated
        backend in a fresh sandbox, and prints one aligned table per provider: passed, failed
        (with the first failure), or skipped with the reason the check does not apply.

        Providers: \(BuiltInConformance.all().map(\.id.rawValue).joined(separator: ", "))

        Options:
          --provider NAME  run one provider only
          --json           one JSON report per provider, one per line

        Examples:
          multiauth conformance
          multiauth conformance --provider portal
          multiauth conformance --json | jq '.results[] | select(.status == "failed")'

        Exit codes:
           0  every check passed or was skipped with a reason
           1  a check failed
           2  usage error (unknown provider)
        \(ExitCode.outputFailedLine)
        """
    }

    func run(_ arguments: Arguments) async throws -> Int32 {
        guard arguments.positionals.isEmpty else {
            throw Arguments.UsageError(
                description: "unexpected argument '\(arguments.positionals[0])'; use --provider NAME")
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
}
