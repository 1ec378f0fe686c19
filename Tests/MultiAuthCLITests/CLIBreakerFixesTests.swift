import Foundation
import MultiAuthSpawn
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads one pipe to its end on a thread of its own.
final class ErrorsReader: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var data = Data()

    init(_ handle: FileHandle?) {
        Thread { [self] in
            data = handle?.readDataToEndOfFile() ?? Data()
            done.signal()
        }.start()
    }

    /// Waits for the end of the pipe and returns everything read.
    func finish() -> Data {
        done.wait()
        return data
    }
}

extension CLI {
    /// Runs the binary like ``run(_:stdin:)`` but stops it once its standard output passes
    /// `limit` bytes, so a run that would print forever ends the test instead of hanging it.
    /// - Returns: The result, and whether the child had to be stopped.
    static func run(_ arguments: [String], outputLimit limit: Int) throws -> (Result, stopped: Bool) {
        let child = try SpawnedProcess(
            executable: executable, arguments: arguments, standardOutput: .pipe, standardError: .pipe)
        let stdout = try #require(child.standardOutput)
        // Standard error is read on a thread of its own, so neither pipe can fill up and block the child.
        let errors = ErrorsReader(child.standardError)
        var output = Data()
        var stopped = false
        while true {
            let chunk = stdout.availableData
            if chunk.isEmpty { break }
            output.append(chunk)
            if output.count > limit, !stopped {
                stopped = true
                child.send(SIGTERM)
            }
        }
        let termination = child.wait()
        let result = Result(
            status: termination.status, stdout: String(decoding: output, as: UTF8.self),
            stderr: String(decoding: errors.finish(), as: UTF8.self))
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
                == "multiauth help: unknown command 'nosuchcmd'. Commands: demo, conformance, serve, totp, otpauth, jwt, phone.\n"
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

    @Test("help --help and help -h show the help command's own usage, exit 0")
    func helpOfHelp() throws {
        for flag in ["--help", "-h"] {
            let result = try CLI.run(["help", flag])
            #expect(result.status == 0, "\(flag): \(result.stderr)")
            #expect(result.stdout.hasPrefix("Usage: multiauth help [COMMAND]\n"), "\(result.stdout)")
            #expect(result.stderr.isEmpty, "\(flag): \(result.stderr)")
        }
    }

    @Test("otpauth/totp: encoder=steam with digits that are not a number says what Steam needs")
    func steamDigitsNotANumber() throws {
        for digits in ["abc", "-5", ""] {
            let uri = "otpauth://totp/a?secret=JBSWY3DPEHPK3PXP&encoder=steam&digits=\(digits)"
            for command in ["otpauth", "totp"] {
                let result = try CLI.run([command, uri])
                #expect(result.status == 2, "\(command) digits=\(digits)")
                #expect(
                    result.stderr.contains(
                        "invalid digits for encoder=steam: Steam Guard codes have 5 characters; write digits=5 or leave digits out"
                    ), "\(command) digits=\(digits): \(result.stderr)")
                #expect(!result.stderr.contains("6, 7 or 8"), "\(command) digits=\(digits)")
            }
        }
        // Without encoder=steam the decimal rule still speaks.
        let decimal = try CLI.run(["otpauth", "otpauth://totp/a?secret=JBSWY3DPEHPK3PXP&digits=abc"])
        #expect(decimal.stderr.contains("invalid digits: must be 6, 7 or 8"), "\(decimal.stderr)")
    }

    @Test("jwt --jwks: a file that is not a JWK set, an empty file and an empty argument are one sentence, exit 2")
    func jwtKeySetContentErrors() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "multiauth-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let notASet = directory.appendingPathComponent("not-a-set.json")
        try Data("{}".utf8).write(to: notASet)
        let empty = directory.appendingPathComponent("empty.json")
        try Data().write(to: empty)
        let cases: [(String, String)] = [
            (
                notASet.path,
                "multiauth jwt: the key set file \(notASet.path) is not a JWK set: malformed JWKS: expected {\"keys\": [...]}\n"
            ),
            (empty.path, "multiauth jwt: the key set file \(empty.path) is empty, not a JWK set\n"),
            ("/dev/null", "multiauth jwt: the key set file /dev/null is empty, not a JWK set\n"),
            ("", "multiauth jwt: --jwks needs an https URL or a file path; it was empty\n"),
        ]
        for (source, expected) in cases {
            let result = try CLI.run(["jwt", Self.token, "--jwks", source, "--any-audience"])
            #expect(result.status == 2, "\(source): \(result.stdout)\(result.stderr)")
            #expect(result.stderr == expected)
            #expect(!result.stdout.contains("INVALID"), "\(source): \(result.stdout)")
        }
    }

    @Test("jwt --jwks: an upper-case HTTPS scheme is https (no raw URLError); refused connections are a sentence")
    func jwtKeySetSchemeIsCaseInsensitive() throws {
        // Port 1 on the loopback address: the connection is refused at once, no network needed.
        for source in ["HTTPS://127.0.0.1:1/jwks.json", "Https://127.0.0.1:1/jwks.json"] {
            let result = try CLI.run(["jwt", Self.token, "--jwks", source, "--any-audience"])
            #expect(result.status == 2, "\(source)")
            #expect(
                result.stderr.hasPrefix("multiauth jwt: cannot fetch the key set from \(source): "), "\(result.stderr)")
            #expect(result.stderr.contains("cannot connect"), "\(result.stderr)")
            #expect(!result.stderr.contains("URLError") && !result.stderr.contains("-1002"), "\(result.stderr)")
        }
    }
}
