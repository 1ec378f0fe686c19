import Foundation
import Testing

extension CLI {
    /// Runs the binary like ``run(_:stdin:)`` but stops it once its standard output passes
    /// `limit` bytes, so a run that would print forever ends the test instead of hanging it.
    /// - Returns: The result, and whether the child had to be stopped.
    static func run(_ arguments: [String], outputLimit limit: Int) throws -> (Result, stopped: Bool) {
        let process = Process()
        process.executableURL = productsDirectory.appendingPathComponent("multiauth")
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        try process.run()
        var output = Data()
        var stopped = false
        while true {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            output.append(chunk)
            if output.count > limit, !stopped {
                stopped = true
                process.terminate()
            }
        }
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let result = Result(
            status: process.terminationStatus, stdout: String(decoding: output, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
        return (result, stopped)
    }
}

/// Breaker findings in the CLI, through the real binary.
@Suite(.serialized, .timeLimit(.minutes(10)))
struct CLIBreakerFixesTests {
    @Test("demo: a store that cannot be written ends the flow once with one sentence, exit 1")
    func demoStoreFailureEndsTheFlowOnce() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "multiauth-cli-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        // A directory where the session file should be: every save fails with storageFailure.
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("dynamic.session.json"), withIntermediateDirectories: true)
        let (result, stopped) = try CLI.run(
            ["demo", "--provider", "dynamic", "--store", directory.path], outputLimit: 1 << 20)
        #expect(!stopped, "the demo kept printing: \(result.stdout.suffix(400))")
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        // The wrong code first, then the right one: two submits, and one storage failure line.
        #expect(result.stdout.components(separatedBy: "→ submit(code:").count - 1 == 2, "\(result.stdout)")
        #expect(result.stdout.components(separatedBy: "✗ storageFailure").count - 1 == 1, "\(result.stdout)")
        #expect(result.stdout.contains("✗ not signed in"))
    }

    /// A syntactically valid RS256 token (the signature is not checked in these cases).
    static let token = "eyJhbGciOiAiUlMyNTYiLCAia2lkIjogImsifQ.eyJzdWIiOiAiMSIsICJleHAiOiA5OTk5OTk5OTk5fQ.c2ln"

    @Test("jwt --jwks: a missing file, a directory, http and a URL without host are one sentence, exit 2")
    func jwtKeySetSourceErrors() throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent(
            "multiauth-no-such-\(UUID().uuidString)"
        ).path
        let directory = FileManager.default.temporaryDirectory.path
        let cases: [(String, String)] = [
            (missing, "multiauth jwt: cannot read the key set file \(missing): no such file\n"),
            (directory, "multiauth jwt: cannot read the key set file \(directory): it is a directory\n"),
            (
                "http://example.com/jwks.json",
                "multiauth jwt: --jwks takes an https URL or a file path; http://example.com/jwks.json is not https\n"
            ),
            ("https://", "multiauth jwt: --jwks: the URL https:// has no host\n"),
        ]
        for (source, expected) in cases {
            let result = try CLI.run(["jwt", Self.token, "--jwks", source, "--any-audience"])
            #expect(result.status == 2, "\(source)")
            #expect(result.stderr == expected)
            #expect(result.stdout.isEmpty, "\(source): \(result.stdout)")
        }
    }

    @Test("demo --store with an empty path: exit 2 and one sentence, nothing written to the current directory")
    func demoRefusesAnEmptyStorePath() throws {
        for arguments in [["demo", "--store", ""], ["demo", "--store="], ["demo", "--store", "  "]] {
            let result = try CLI.run(arguments + ["--provider", "dynamic"])
            #expect(result.status == 2, "\(arguments)")
            #expect(
                result.stderr.hasPrefix(
                    "multiauth demo: --store needs a directory path (an empty one would silently mean the current directory)\n"
                ))
            #expect(result.stdout.isEmpty, "\(arguments): \(result.stdout)")
        }
    }

    @Test("help NAME: an unknown name is exit 2 naming the commands; --help wins over other argument errors")
    func helpForAnUnknownCommandAndHelpFirst() throws {
        let unknown = try CLI.run(["help", "nosuchcmd"])
        #expect(unknown.status == 2)
        #expect(
            unknown.stderr
                == "multiauth help: unknown command 'nosuchcmd'. Commands: demo, conformance, totp, otpauth, jwt, phone.\n"
        )
        #expect(unknown.stdout.isEmpty)
        let extra = try CLI.run(["help", "demo", "extra"])
        #expect(extra.status == 2)
        #expect(extra.stderr.hasPrefix("multiauth help: takes one command name"))
        let known = try CLI.run(["help", "totp"])
        #expect(known.status == 0)
        #expect(known.stdout.hasPrefix("Usage: multiauth totp"))
        for arguments in [
            ["totp", "X", "--help", "--bogus"], ["totp", "--bogus", "--help"], ["phone", "--region", "--help"],
            ["jwt", "-h", "--nope"],
        ] {
            let result = try CLI.run(arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(result.stdout.hasPrefix("Usage: multiauth \(arguments[0])"), "\(arguments)")
            #expect(result.stderr.isEmpty, "\(arguments): \(result.stderr)")
        }
        // After `--` a "--help" is a positional, not a request for help.
        #expect(try CLI.run(["phone", "--", "--help"]).status == 2)
    }

    @Test("otpauth/totp: encoder=steam with digits=6 says what Steam needs, not 'must be 6, 7 or 8'")
    func steamDigitsMessage() throws {
        let uri = "otpauth://totp/a?secret=JBSWY3DPEHPK3PXP&encoder=steam&digits=6"
        for command in ["otpauth", "totp"] {
            let result = try CLI.run([command, uri])
            #expect(result.status == 2, "\(command)")
            #expect(
                result.stderr.contains(
                    "invalid digits for encoder=steam: Steam Guard codes have 5 characters; write digits=5 or leave digits out"
                ), "\(result.stderr)")
            #expect(!result.stderr.contains("6, 7 or 8"), "\(command)")
        }
    }
}
