import Foundation
import MultiAuthSpawn
import Testing

/// Runs the built `multiauth` executable as a subprocess and checks exit codes and output.
struct CLI {
    /// The directory holding the built products (next to the test bundle).
    static var productsDirectory: URL {
        #if os(macOS)
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            return bundle.bundleURL.deletingLastPathComponent()
        }
        #endif
        return Bundle.main.bundleURL
    }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static var executable: String { productsDirectory.appendingPathComponent("multiauth").path }

    static func run(_ arguments: [String], stdin: String? = nil) throws -> Result {
        let completed = try SpawnedProcess.run(executable, arguments: arguments, input: Data((stdin ?? "").utf8))
        return Result(status: completed.termination.status, stdout: completed.output, stderr: completed.errors)
    }
}

@Suite(.serialized, .timeLimit(.minutes(10)))
struct CLITests {
    @Test func helpListsCommandsAndExitCodes() throws {
        let result = try CLI.run(["--help"])
        #expect(result.status == 0)
        for command in ["demo", "conformance", "serve", "totp", "otpauth", "jwt", "phone"] {
            #expect(result.stdout.contains("  \(command) "))
        }
        #expect(result.stdout.contains("2  usage or input error"))
        #expect(try CLI.run([]).status == 2)
        let unknown = try CLI.run(["frobnicate"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("unknown command 'frobnicate'"))
    }

    @Test func versionPrintsTheLibraryVersion() throws {
        for arguments in [["--version"], ["version"]] {
            let result = try CLI.run(arguments)
            #expect(result.status == 0)
            #expect(
                result.stdout.range(of: #"^multiauth \d+\.\d+\.\d+(-[0-9A-Za-z.]+)?\n$"#, options: .regularExpression)
                    != nil, "\(result.stdout)")
        }
        #expect(try CLI.run(["--version", "extra"]).status == 2)
        #expect(try CLI.run(["--help"]).stdout.contains("--version"))
    }

    /// `version` answers `--help` like every other command (exit 0, its usage), and still
    /// refuses other arguments (exit 2).
    @Test func versionHelpIsItsUsage() throws {
        for arguments in [["version", "--help"], ["version", "-h"], ["--version", "--help"], ["help", "version"]] {
            let result = try CLI.run(arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(result.stdout.contains("Usage: multiauth version"), "\(arguments): \(result.stdout)")
            #expect(result.stderr.isEmpty, "\(arguments)")
        }
        #expect(try CLI.run(["version", "extra"]).status == 2)
    }

    @Test func helpAsAWordShowsACommandsHelp() throws {
        for arguments in [["demo", "help"], ["help", "demo"]] {
            let result = try CLI.run(arguments)
            #expect(result.status == 0)
            #expect(result.stdout.contains("Usage: multiauth demo"))
        }
    }

    @Test(arguments: ["demo", "conformance", "serve", "totp", "otpauth", "jwt", "phone"])
    func everyCommandHasHelpWithExamples(_ command: String) throws {
        let result = try CLI.run([command, "--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("Usage: multiauth \(command)"))
        #expect(result.stdout.contains("Examples:"))
        #expect(result.stdout.contains("Exit codes:"))
    }

    /// `serve`'s bad options are exit 2 with a sentence, before anything is bound.
    @Test func serveRefusesBadOptionsBeforeBinding() throws {
        for (arguments, fragment) in [
            (["serve", "--port", "70000"], "--port must be a whole number from 0 to 65535"),
            (["serve", "--seed", "-1"], "--seed must be a whole number"),
            (["serve", "--listen", "not-an-address"], "is not an IP address of this machine"),
            (["serve", "--signing-key", "/nonexistent/key.pem"], "--signing-key: cannot read"),
        ] {
            let result = try CLI.run(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr.contains(fragment), "\(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty, "\(arguments)")
        }
    }

    @Test func totpMatchesTheRFCVectors() throws {
        #expect(
            try CLI.run(["totp", "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ", "--time", "59", "--digits", "8"]).stdout
                == "94287082\n")
        #expect(try CLI.run(["totp", "gezd gnbv gy3t qojq gezd gnbv gy3t qojq", "--time", "59"]).stdout == "287082\n")
        let uri =
            "otpauth://totp/Example:user%40example.com?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZA&issuer=Example&algorithm=SHA256&digits=8&period=30"
        #expect(try CLI.run(["totp", uri, "--time", "59"]).stdout == "46119246\n")
        #expect(try CLI.run(["totp", "JBSWY3DPEHPK3PXP", "--verify", "324550", "--time", "1700000000"]).status == 0)
        #expect(try CLI.run(["totp", "JBSWY3DPEHPK3PXP", "--verify", "324551", "--time", "1700000000"]).status == 1)
        #expect(try CLI.run(["totp", "JBSWY3DPEHPK3PX1"]).status == 2)
        #expect(try CLI.run(["totp", "JBSWY3DPEHPK3PXP", "--digits", "9"]).status == 2)
    }

    @Test func otpauthMasksTheSecretAndRejectsBadEscapes() throws {
        let ok = try CLI.run([
            "otpauth", "otpauth://totp/Example+Corp%3Auser%40example.com?secret=JBSWY3DPEHPK3PXP&issuer=Microsoft",
        ])
        #expect(ok.status == 0)
        #expect(ok.stdout.contains("Microsoft"))
        #expect(!ok.stdout.contains("JBSWY3DPEHPK3PXP"))
        #expect(try CLI.run(["otpauth", "otpauth://totp/A:b?secret=JBSWY3DPEHPK3PXP&algorithm=%SHA1"]).status == 2)
        #expect(try CLI.run(["otpauth", "otpauth://totp/a?secret=JBSWY3DPEHPK3PXP&period=0"]).status == 2)
        let qr = try CLI.run([
            "otpauth", "otpauth://totp/Acme:me@example.com?secret=JBSWY3DPEHPK3PXP&issuer=Acme", "--qr",
            "--show-secret",
        ])
        #expect(qr.status == 0)
        #expect(qr.stdout.contains("▀") && qr.stdout.contains("error correction M"))
    }

    @Test func jwtReportsExpiryWithLeeway() throws {
        let token = "eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyLTEyIiwiZXhwIjoxNzAwMDAwMDAwfQ.c2ln"
        // Claims fine, but no --jwks: never "valid", exit 1.
        let unchecked = try CLI.run(["jwt", token, "--time", "1700000059", "--any-audience"])
        #expect(unchecked.status == 1)
        #expect(unchecked.stdout.contains("not checked"))
        #expect(!unchecked.stdout.contains("expired"))
        let expired = try CLI.run(["jwt", token, "--time", "1700000060", "--any-audience"])
        #expect(expired.status == 1)
        #expect(expired.stdout.contains("expired"))
        #expect(!expired.stdout.contains("c2ln"))
        #expect(try CLI.run(["jwt", "eyJhY.eyJhY", "--any-audience"]).status == 2)
        #expect(try CLI.run(["jwt", "a.b", "--json", "--any-audience"]).stdout.contains(#""valid":false"#))
    }

    /// The audience line reads as words, never as the enum's raw rendering
    /// (`expected(my-app)`, `anyAudience`); `--json` carries the audience itself and whether it
    /// was checked.
    @Test func jwtPrintsTheAudienceInWords() throws {
        let token = "eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyLTEyIiwiZXhwIjoxNzAwMDAwMDAwfQ.c2ln"
        let expected = try CLI.run(["jwt", token, "--time", "1700000000", "--audience", "my-app"])
        #expect(expected.stdout.contains("audience   must name my-app"), "\(expected.stdout)")
        let any = try CLI.run(["jwt", token, "--time", "1700000000", "--any-audience"])
        #expect(any.stdout.contains("audience   not checked (--any-audience)"), "\(any.stdout)")
        let json = try CLI.run(["jwt", token, "--time", "1700000000", "--audience", "my-app", "--json"])
        #expect(json.stdout.contains(#""audience":"my-app""#) && json.stdout.contains(#""audienceChecked":true"#))
        let anyJSON = try CLI.run(["jwt", token, "--time", "1700000000", "--any-audience", "--json"])
        #expect(anyJSON.stdout.contains(#""audience":null"#) && anyJSON.stdout.contains(#""audienceChecked":false"#))
        for output in [expected.stdout, any.stdout, json.stdout, anyJSON.stdout] {
            #expect(!output.contains("expected(") && !output.contains("anyAudience"), "\(output)")
        }
    }

    /// PyJWT-made ES256 token (kid ec-1, sub user-2, exp 1700003600.5, no aud) and its JWKS:
    /// the crypto tests' peer fixtures.
    static let peerES256Token =
        "eyJhbGciOiJFUzI1NiIsImtpZCI6ImVjLTEiLCJ0eXAiOiJKV1QifQ.eyJzdWIiOiJ1c2VyLTIiLCJleHAiOjE3MDAwMDM2MDAuNSwiaWF0IjoxNzAwMDAwMDAwfQ.V52nDumXxdxpZXv9j3KdGmWWWil7MlRch6mE3soxTP9sSY1suygXxxoqqj8SaPzeuLtAsJdEvcoDJ79nzKI56w"
    static let peerJWKS =
        #"{"keys": [{"kty": "EC", "crv": "P-256", "x": "RkSg7CfgkaZlzHiQ1Eb5-wGYKINg4Cnlf8vgarM7lys", "y": "W_bBeF1dwgNIFcg3j4NhY9KJ1WRti4mCBToQMwbA3c0", "kid": "ec-1"}]}"#

    @Test func jwtIsValidOnlyWithACheckedSignatureAndAnAudienceChoice() throws {
        let token = Self.peerES256Token
        // Without --jwks: JSON says valid false, signature not checked, exit 1.
        let decoded = try CLI.run(["jwt", token, "--time", "1700000100", "--any-audience", "--json"])
        #expect(decoded.status == 1)
        #expect(decoded.stdout.contains(#""valid":false"#) && decoded.stdout.contains(#""signatureChecked":false"#))
        #expect(decoded.stdout.contains(#""claimsValid":true"#) && decoded.stdout.contains("signature not checked"))
        #expect(!decoded.stdout.contains(#""valid":true"#))
        // With the key set the same token is valid, exit 0.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "multiauth-jwks-\(UUID().uuidString).json")
        try Data(Self.peerJWKS.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let verified = try CLI.run([
            "jwt", token, "--time", "1700000100", "--any-audience", "--jwks", file.path, "--json",
        ])
        #expect(verified.status == 0, "\(verified.stdout)\(verified.stderr)")
        #expect(verified.stdout.contains(#""valid":true"#))
        // The audience is required: the token has no aud, so an expected one fails (exit 1).
        #expect(
            try CLI.run(["jwt", token, "--time", "1700000100", "--audience", "app", "--jwks", file.path]).status == 1)
        let missing = try CLI.run(["jwt", token, "--time", "1700000100", "--jwks", file.path])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("--audience") && missing.stderr.contains("--any-audience"))
        #expect(try CLI.run(["jwt", token, "--audience", "a", "--any-audience"]).status == 2)
        #expect(try CLI.run(["jwt", "--help"]).stdout.contains("--any-audience"))
    }

    @Test(arguments: ["-inf", "inf", "nan", "-nan", "infinity", "1e400", "soon"])
    func jwtRefusesATimeThatIsNotFinite(_ time: String) throws {
        let result = try CLI.run(["jwt", Self.peerES256Token, "--any-audience", "--time=\(time)"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--time must be a finite number"))
        #expect(result.stdout.isEmpty)
    }

    @Test func jwtRefusesHostileTokensAsInputErrors() throws {
        func b64(_ text: String) -> String {
            Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(
                of: "/", with: "_"
            )
            .replacingOccurrences(of: "=", with: "")
        }
        let nested =
            b64(#"{"alg":"RS256"}"#) + "."
            + b64(#"{"a":"# + String(repeating: "[", count: 300) + String(repeating: "]", count: 300) + "}") + ".c2ln"
        let deep = try CLI.run(["jwt", nested, "--any-audience"])
        #expect(deep.status == 2)
        #expect(deep.stderr.contains("nesting depth exceeds the limit of 32"))
        let long = try CLI.run(["jwt", String(repeating: "A", count: 65_537), "--any-audience", "--json"])
        #expect(long.status == 2)
        #expect(long.stdout.contains("token length exceeds the limit of 65536"))
        let kid = b64(#"{"alg":"RS256","kid":1}"#) + "." + b64("{}") + ".c2ln"
        #expect(try CLI.run(["jwt", kid, "--any-audience"]).stderr.contains("invalid JOSE header parameter 'kid'"))
    }

    @Test func otpauthDrawsTheQRCodeOnlyWithShowSecret() throws {
        let uri = "otpauth://totp/Acme:me@example.com?secret=JBSWY3DPEHPK3PXP&issuer=Acme"
        let refused = try CLI.run(["otpauth", uri, "--qr"])
        #expect(refused.status == 2)
        #expect(!refused.stdout.contains("▀") && !refused.stdout.contains("█"))
        #expect(refused.stderr.contains("--show-secret"))
        #expect(try CLI.run(["otpauth", "--help"]).stdout.contains("--qr needs --show-secret"))
    }

    @Test func phoneParsesAndExplainsErrors() throws {
        let result = try CLI.run(["phone", "+44 (0) 20 7946 0958", "--json"])
        #expect(result.stdout.contains(#""e164":"+442079460958""#))
        let national = try CLI.run(["phone", "020 7946 0958"])
        #expect(national.status == 2)
        #expect(national.stderr.contains("regionRequired"))
        #expect(try CLI.run(["phone", "020 7946 0958", "--region", "GB"]).stdout.contains("+442079460958"))
    }

    @Test func conformancePrintsTheReportAndJSON() throws {
        let table = try CLI.run(["conformance", "--provider", "reference"])
        #expect(table.status == 0, "\(table.stdout)\(table.stderr)")
        #expect(table.stdout.contains("C23  passed"))
        #expect(table.stdout.contains("C24  passed"))
        #expect(table.stdout.contains("reference: 24 checks, 24 passed, 0 failed, 0 skipped"))
        let json = try CLI.run(["conformance", "--provider", "portal", "--json"])
        #expect(json.status == 0)
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(object?["provider"] as? String == "portal")
        #expect(try CLI.run(["conformance", "--provider", "nope"]).status == 2)
    }

    @Test func demoSignsInWithEveryProvider() throws {
        let result = try CLI.run(["demo", "--no-qr"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        for provider in ["otpless", "dynamic", "truecaller", "portal", "passkeys"] {
            #expect(result.stdout.contains("  \(provider)"))
        }
        #expect(result.stdout.contains("registration ceremony for sandbox.test"))
        #expect(result.stdout.contains("fallbackTriggered"))
        #expect(result.stdout.contains("verificationStateChanged"))
        #expect(result.stdout.contains("✔ signed in"))
        #expect(!result.stdout.contains("✗ not signed in"))
        #expect(!result.stdout.contains("accessToken: ey"))
    }

    @Test func demoJSONIsOneObjectPerLine() throws {
        let result = try CLI.run(["demo", "--provider", "dynamic", "--json"])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n")
        #expect(!lines.isEmpty)
        for line in lines {
            #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) is [String: Any], "not JSON: \(line)")
        }
        #expect(lines.last?.contains(#""signedIn":true"#) == true)
    }

    @Test func demoStoreRestoresOnTheSecondRun() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "multiauth-cli-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(try CLI.run(["demo", "--provider", "truecaller", "--store", directory.path]).status == 0)
        let second = try CLI.run(["demo", "--provider", "truecaller", "--store", directory.path])
        #expect(second.stdout.contains("sessionRestored"))
        #expect(second.stdout.contains("restored from"))
    }

    @Test func interactiveDemoAcceptsTypedInput() throws {
        let result = try CLI.run(
            ["demo", "--interactive", "--provider", "dynamic"], stdin: "me@example.com\n12\nquit\n")
        #expect(result.stdout.contains("invalidCodeFormat"))
        #expect(result.stdout.contains("flowCancelled"))
        #expect(result.status == 1)
    }
}
