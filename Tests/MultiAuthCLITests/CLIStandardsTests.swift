import Foundation
import MultiAuthSpawn
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The standards rules through the real binary: write failures, exit codes, `--qr` limits,
/// Steam Guard codes and encoded-colon issuers. Rules: Docs/Standards.md.
extension CLI {
    /// How the child's standard output is set up.
    enum OutputTarget {
        /// `/dev/full`: every write fails with ENOSPC.
        case full
        /// A pipe whose read end is closed before the child starts: every write fails with EPIPE.
        case closedPipe
        /// Descriptor 1 closed (`>&-`), through `/bin/sh`.
        case closed
    }

    struct Ended {
        enum Reason { case exit, uncaughtSignal }
        /// The exit status, or the number of the signal that ended it.
        var status: Int32
        var reason: Reason
        var stderr: String
    }

    static func run(_ arguments: [String], output: OutputTarget) throws -> Ended {
        var executable = Self.executable
        var arguments = arguments
        var standardOutput = SpawnedProcess.Output.null
        var descriptor: Int32 = -1
        defer { if descriptor >= 0 { close(descriptor) } }
        switch output {
        case .full:
            descriptor = open("/dev/full", O_WRONLY | O_CLOEXEC)
            standardOutput = .descriptor(descriptor)
        case .closedPipe:
            var ends: [Int32] = [-1, -1]
            #expect(pipe(&ends) == 0)
            close(ends[0])
            descriptor = ends[1]
            standardOutput = .descriptor(descriptor)
        case .closed:
            arguments = ["-c", #"exec "$0" "$@" >&-"#, executable] + arguments
            executable = "/bin/sh"
        }
        let child = try SpawnedProcess(
            executable: executable, arguments: arguments, standardOutput: standardOutput, standardError: .pipe)
        if descriptor >= 0 {
            close(descriptor)  // only the child holds it now
            descriptor = -1
        }
        let errData = child.standardError?.readDataToEndOfFile() ?? Data()
        let (status, reason): (Int32, Ended.Reason) =
            switch child.wait() {
            case .exited(let status): (status, .exit)
            case .signalled(let signal): (signal, .uncaughtSignal)
            }
        return Ended(status: status, reason: reason, stderr: String(decoding: errData, as: UTF8.self))
    }
}

@Suite(.serialized, .timeLimit(.minutes(10)))
struct CLIStandardsTests {
    static let steamURI =
        "otpauth://totp/Steam:alice?secret=FMXNK4QEGKVPULRTADY6JIDK5VHUBGZW&issuer=Steam&encoder=steam"

    static let writers: [[String]] = [
        ["--help"], ["totp", "--help"], ["totp", "JBSWY3DPEHPK3PXP", "--time", "59"],
        ["otpauth", "otpauth://totp/Acme:me@example.com?secret=JBSWY3DPEHPK3PXP&issuer=Acme", "--qr", "--show-secret"],
        ["phone", "+44 20 7946 0958", "--json"], ["conformance", "--provider", "reference"],
        ["demo", "--provider", "dynamic", "--json"],
    ]

    @Test("stdout is /dev/full: one line on stderr, exit 74, no trap", arguments: writers)
    func deviceFull(_ arguments: [String]) throws {
        let ended = try CLI.run(arguments, output: .full)
        #expect(ended.reason == .exit, "\(arguments): \(ended.stderr)")
        #expect(ended.status == 74, "\(arguments): \(ended.stderr)")
        #expect(
            ended.stderr
                == "multiauth: cannot write to standard output (No space left on device); the output is incomplete\n")
    }

    @Test("the reader closed the pipe: SIGPIPE does not kill it; one line on stderr, exit 74", arguments: writers)
    func closedPipe(_ arguments: [String]) throws {
        let ended = try CLI.run(arguments, output: .closedPipe)
        #expect(ended.reason == .exit, "\(arguments): killed by signal \(ended.status)")
        #expect(ended.status == 74, "\(arguments): \(ended.stderr)")
        #expect(
            ended.stderr
                == "multiauth: cannot write to standard output (the reader closed the pipe); the output is incomplete\n"
        )
    }

    @Test("standard output closed (>&-): exit 74 with a message, nothing written elsewhere")
    func closedStandardOutput() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "multiauth-closed-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        for arguments in [
            ["totp", "JBSWY3DPEHPK3PXP", "--time", "59"],
            ["demo", "--provider", "truecaller", "--store", directory.path],
        ] {
            let ended = try CLI.run(arguments, output: .closed)
            #expect(ended.reason == .exit)
            #expect(ended.status == 74, "\(arguments): \(ended.stderr)")
            #expect(
                ended.stderr
                    == "multiauth: cannot write to standard output (standard output is closed); the output is incomplete\n"
            )
        }
    }

    @Test("otpauth --qr on a URI too large for any QR version: exit 2, one sentence, nothing printed")
    func qrTooLarge() throws {
        let account = String(repeating: "a", count: 2400)
        let result = try CLI.run([
            "otpauth", "otpauth://totp/Acme:\(account)?secret=JBSWY3DPEHPK3PXP&issuer=Acme", "--qr", "--show-secret",
        ])
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(
            result.stderr.hasPrefix(
                "multiauth otpauth: the canonical URI is 2490 bytes, more than the 2331 bytes the largest QR code"))
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(!result.stderr.contains("AuthError("))
        // Without --qr the same URI is fine.
        #expect(
            try CLI.run(["otpauth", "otpauth://totp/Acme:\(account)?secret=JBSWY3DPEHPK3PXP&issuer=Acme"]).status == 0)
    }

    @Test("encoder=steam through totp and otpauth: Steam Guard codes, never 6 digits")
    func steamThroughTheCLI() throws {
        #expect(try CLI.run(["totp", Self.steamURI, "--time", "0"]).stdout == "C5V56\n")
        #expect(try CLI.run(["totp", Self.steamURI, "--time", "1662884261"]).stdout == "V6WKJ\n")
        #expect(
            try CLI.run(["totp", "FMXNK4QEGKVPULRTADY6JIDK5VHUBGZW", "--encoder", "steam", "--time", "30"]).stdout
                == "QJY8Y\n")
        let json = try CLI.run(["totp", Self.steamURI, "--time", "0", "--json"])
        #expect(json.stdout.contains(#""code":"C5V56""#) && json.stdout.contains(#""encoder":"steam""#))
        #expect(try CLI.run(["totp", Self.steamURI, "--time", "0", "--verify", "c5v56"]).status == 0)
        #expect(try CLI.run(["totp", Self.steamURI, "--time", "0", "--verify", "QJY8Y", "--window", "0"]).status == 1)
        let badSteam = try CLI.run(["totp", Self.steamURI, "--time", "0", "--verify", "123456"])
        #expect(badSteam.status == 2)
        #expect(
            badSteam.stderr
                == "multiauth totp: --verify needs 5 characters of 23456789BCDFGHJKMNPQRTVWXY (a Steam Guard code); the code was not compared\n"
        )
        #expect(badSteam.stdout.isEmpty)
        #expect(try CLI.run(["totp", Self.steamURI, "--digits", "6"]).status == 2)
        let unknown = try CLI.run(["totp", "FMXNK4QEGKVPULRTADY6JIDK5VHUBGZW", "--encoder", "yandex"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("--encoder must be 'steam'"))
        let refused = try CLI.run(["totp", "otpauth://totp/x?secret=FMXNK4QEGKVPULRTADY6JIDK5VHUBGZW&encoder=yandex"])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("invalid parameter 'encoder'"))
        #expect(refused.stdout.isEmpty)
        let shown = try CLI.run(["otpauth", Self.steamURI])
        #expect(shown.status == 0)
        #expect(shown.stdout.contains("encoder    steam (5-character Steam Guard codes)"))
        #expect(shown.stdout.contains("&digits=5&period=30&encoder=steam"))
    }

    @Test("otpauth: an encoded colon inside the issuer is kept whole")
    func encodedColonIssuer() throws {
        let result = try CLI.run([
            "otpauth", "otpauth://totp/Acme%3A%20Payments:alice?secret=JBSWY3DPEHPK3PXP&issuer=Acme%3A%20Payments",
            "--json",
        ])
        #expect(result.status == 0)
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        #expect(object?["issuer"] as? String == "Acme: Payments")
        #expect(object?["labelIssuer"] as? String == "Acme: Payments")
        #expect(object?["account"] as? String == "alice")
        #expect(object?["issuerMismatch"] as? Bool == false)
        #expect((object?["canonical"] as? String)?.hasPrefix("otpauth://totp/Acme%3A%20Payments:alice?secret=") == true)
    }

    @Test("exit codes follow --help in every command: 0 success, 1 verification failed, 2 bad input")
    func exitCodesFollowTheHelp() throws {
        let cases: [([String], Int32)] = [
            (["totp", "JBSWY3DPEHPK3PXP", "--time", "1700000000"], 0),
            (["totp", "JBSWY3DPEHPK3PXP", "--verify", "324551", "--time", "1700000000"], 1),
            (["totp", "JBSWY3DPEHPK3PXP", "--verify", "32455", "--time", "1700000000"], 2),
            (["totp", "JBSWY3DPEHPK3PXP", "--verify", "32455", "--time", "1700000000", "--json"], 2),
            (["totp", "JBSWY3DPEHPK3PX1"], 2),
            (["totp", "otpauth://hotp/x?secret=JBSWY3DPEHPK3PXP&counter=1"], 2),
            (["totp", "JBSWY3DPEHPK3PXP", "--time", "-5"], 2),
            (["totp"], 2),
            (["otpauth", "otpauth://totp/a?secret=JBSWY3DPEHPK3PXP"], 0),
            (["otpauth", "otpauth://totp/a?secret=JBSWY3DPEHPK3PXP&digits=9"], 2),
            (["otpauth", "otpauth://totp/a?secret=JBSWY3DPEHPK3PXP", "extra"], 2),
            (["otpauth", "--frobnicate"], 2),
            (["phone", "+44 20 7946 0958"], 0),
            (["phone", "+44 20 7946 0958 ext. 123"], 2),
            (["phone", "+52 1 55 1234 5678"], 2),
            (["phone", "12", "--region", "XX"], 2),
            (["jwt", "not-a-token"], 2),
            (["conformance", "--provider", "nope"], 2),
            (["conformance", "extra"], 2),
            (["demo", "--provider", "nope"], 2),
            (["demo", "--seed", "-1"], 2),
            (["frobnicate"], 2),
            ([], 2),
            (["--help"], 0),
        ]
        for (arguments, status) in cases {
            let result = try CLI.run(arguments)
            #expect(result.status == status, "\(arguments): \(result.stdout)\(result.stderr)")
            if status == 2 {
                // Bad input says what is wrong, on stderr (or as JSON/a verdict on stdout), and
                // never as a debug dump of an error value.
                #expect(!(result.stderr + result.stdout).isEmpty, "\(arguments)")
                #expect(!result.stderr.contains("AuthError("), "\(arguments): \(result.stderr)")
            }
        }
        let badFormat = try CLI.run(["totp", "JBSWY3DPEHPK3PXP", "--verify", "32455", "--time", "1700000000"])
        #expect(
            badFormat.stderr
                == "multiauth totp: --verify needs exactly 6 digits (spaces are ignored); the code was not compared\n")
        #expect(badFormat.stdout.isEmpty)
        for command in ["", "demo", "conformance", "serve", "totp", "otpauth", "jwt", "phone"] {
            let help = try CLI.run(command.isEmpty ? ["--help"] : [command, "--help"])
            #expect(help.stdout.contains("74  output could not be written"), "\(command)")
        }
    }

    @Test("phone: an extension is named in the message; Mexico's retired +52 1 form is explained")
    func phoneMessages() throws {
        let ext = try CLI.run(["phone", "+1 650 253 0000 ext. 123"])
        #expect(ext.status == 2)
        #expect(ext.stderr.contains("(extensionNotSupported)"))
        #expect(ext.stderr.contains("an extension (\"ext.\" and 3 digits)"))
        let mexico = try CLI.run(["phone", "+52 1 55 1234 5678", "--json"])
        #expect(mexico.status == 2)
        #expect(mexico.stdout.contains(#""error":"tooLong""#))
        #expect(mexico.stdout.contains("+52 1"))
    }
}
