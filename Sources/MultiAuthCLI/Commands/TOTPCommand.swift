import Foundation
import MultiAuthCrypto

/// `multiauth totp SECRET|URI …`: prints the current code (like `oathtool --totp`) or verifies one.
struct TOTPCommand: Command {
    let name = "totp"
    let summary = "Generate or verify a TOTP code (RFC 6238) from a base32 secret or otpauth:// URI"
    let options: [CommandOption] = [
        .value("time", "T", "Unix time in seconds (default: now)"),
        .value("digits", "N", "code length, 6 to 8 (default 6, or the URI's)"),
        .value("period", "S", "time step in seconds (default 30, or the URI's)"),
        .value("algorithm", "A", "SHA1, SHA256 or SHA512 (default SHA1, or the URI's)"),
        .value("verify", "CODE", "check CODE instead of printing one (exit 1 when it does not match)"),
        .value("window", "N", default: "1", "steps accepted either side when verifying"),
        .value("encoder", "steam", "Steam Guard codes for a base32 secret (as encoder=steam in a URI)"),
        .flag("json", "print one JSON object"),
    ]
    var help: String {
        """
        Usage: multiauth totp SECRET|URI [--time T] [--digits N] [--period S] [--algorithm A]
               multiauth totp SECRET|URI --verify CODE [--window N] [--time T] …

        Prints the TOTP code for a base32 secret (spaces, dashes and case ignored) or for an
        otpauth://totp/ URI (its algorithm, digits and period are used unless overridden).
        A URI with encoder=steam, or --encoder steam, gives Steam Guard codes: 5 characters
        of 23456789BCDFGHJKMNPQRTVWXY (HMAC-SHA1, 30 s steps); any other encoder is refused.

        \(optionsHelp)

        Examples:
          multiauth totp GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ --time 59 --digits 8      # 94287082
          multiauth totp "otpauth://totp/Acme:me@example.com?secret=JBSWY3DPEHPK3PXP&issuer=Acme"
          multiauth totp JBSWY3DPEHPK3PXP --verify 324550 --time 1700000000
          multiauth totp "otpauth://totp/Steam:me?secret=FMXNK4QEGKVPULRTADY6JIDK5VHUBGZW&encoder=steam" --time 0   # C5V56

        \(ExitCode.helpText)
        """
    }

    func run(_ arguments: Arguments) async throws -> Int32 {
        guard arguments.positionals.count == 1 else {
            throw Arguments.UsageError(description: "give exactly one base32 secret or otpauth:// URI")
        }
        let input = arguments.positionals[0]
        var secret: [UInt8]
        var algorithm = DigestAlgorithm.sha1
        var digits = 6
        var period: Int64 = 30
        var encoding = OTPAuthURI.CodeEncoding.decimal
        if input.lowercased().hasPrefix("otpauth://") {
            let uri: OTPAuthURI
            do { uri = try OTPAuthURI(parsing: input) } catch {
                throw Arguments.UsageError(description: "not a valid otpauth URI: \(error)")
            }
            guard uri.kind == .totp else {
                throw Arguments.UsageError(description: "the URI is HOTP; this command computes TOTP")
            }
            secret = uri.secretBytes
            algorithm = uri.algorithm
            digits = uri.digits
            period = uri.period
            encoding = uri.encoding
        } else {
            do { secret = try Base32.decode(input) } catch {
                throw Arguments.UsageError(
                    description: "not a valid base32 secret (\(error)); use A–Z and 2–7, spaces and dashes are ignored")
            }
        }
        if let name = arguments.options["encoder"] {
            guard name.lowercased() == "steam" else {
                throw Arguments.UsageError(
                    description:
                        "--encoder must be 'steam' (Steam Guard codes), got '\(name)'; leave it out for decimal codes")
            }
            encoding = .steam
        }
        if encoding == .steam {
            return try runSteam(secret: secret, period: period, arguments: arguments)
        }
        if let value = try arguments.integer("digits", in: 6...8) { digits = value }
        if let value = try arguments.integer("period", in: 1...86_400) { period = Int64(value) }
        if let name = arguments.options["algorithm"] {
            do { algorithm = try DigestAlgorithm(name: name.uppercased()) } catch {
                throw Arguments.UsageError(description: "--algorithm must be SHA1, SHA256 or SHA512, got '\(name)'")
            }
        }
        let time = try Self.time(arguments)
        let totp: TOTP
        do { totp = try TOTP(secret: secret, algorithm: algorithm, digits: digits, period: period) } catch {
            throw Arguments.UsageError(description: "cannot build a TOTP generator: \(error)")
        }
        return try Self.printOrVerify(
            arguments: arguments, details: ["algorithm": algorithm.rawValue, "digits": digits, "period": period],
            verifiedDetails: [:],
            formatHint: "--verify needs exactly \(digits) digits (spaces are ignored); the code was not compared",
            code: { try totp.code(at: time) }, timeStep: { try totp.timeStep(at: time) },
            secondsRemaining: { try totp.secondsRemaining(at: time) },
            verify: { try totp.verify($0, at: time, window: $1) })
    }

    /// Prints the code at the `--time`, or with `--verify` the verdict on the given code, as a
    /// sentence or (`--json`) a JSON line: the same output for decimal and Steam Guard codes.
    /// `details` are the code line's generator fields, `verifiedDetails` the verdict line's;
    /// `formatHint` is the stderr sentence for a code of the wrong shape (exit 2).
    private static func printOrVerify(
        arguments: Arguments, details: [String: Any], verifiedDetails: [String: Any], formatHint: String,
        code: () throws -> String, timeStep: () throws -> UInt64, secondsRemaining: () throws -> Int64,
        verify: (String, Int) throws -> UInt64
    ) throws -> Int32 {
        let json = arguments.flags.contains("json")
        if let code = arguments.options["verify"] {
            let window = try arguments.integerOrDefault("window", in: 0...10)
            do {
                let step = try verify(code, window)
                let current = try timeStep()
                let offset = Int64(bitPattern: step &- current)
                if json {
                    Terminal.out(
                        Terminal.jsonLine(
                            ["valid": true, "timeStep": step, "offset": offset].merging(verifiedDetails) { $1 }))
                } else {
                    Terminal.out(
                        "valid: matches time step \(step) (\(offset >= 0 ? "+" : "")\(offset) from now, window ±\(window))"
                    )
                }
                return ExitCode.ok
            } catch let error as CryptoError {
                if json {
                    Terminal.out(Terminal.jsonLine(["valid": false, "reason": "\(error)"]))
                } else if error == .invalidCodeFormat {
                    // Bad input, not a failed verification: a sentence on stderr, exit 2.
                    Terminal.err("multiauth totp: " + formatHint)
                } else {
                    Terminal.out("invalid: \(error) (window ±\(window))")
                }
                return error == .invalidCodeFormat ? ExitCode.usage : ExitCode.verificationFailed
            }
        }
        let code = try code()
        if json {
            let fields: [String: Any] = [
                "code": code, "timeStep": try timeStep(), "secondsRemaining": try secondsRemaining(),
            ]
            Terminal.out(Terminal.jsonLine(fields.merging(details) { $1 }))
        } else {
            Terminal.out(code)
        }
        return ExitCode.ok
    }

    /// The `--time` option, or now.
    private static func time(_ arguments: Arguments) throws -> Int64 {
        guard let text = arguments.options["time"] else { return Int64(Date().timeIntervalSince1970) }
        guard let value = Int64(text), value >= 0 else {
            throw Arguments.UsageError(description: "--time must be Unix seconds (a whole number ≥ 0), got '\(text)'")
        }
        return value
    }

    /// Steam Guard codes (`encoder=steam`): printed or verified like decimal ones.
    private func runSteam(secret: [UInt8], period: Int64, arguments: Arguments) throws -> Int32 {
        for option in ["digits", "algorithm"] where arguments.options[option] != nil {
            throw Arguments.UsageError(
                description: "--\(option) does not apply to Steam Guard codes (always 5 characters, HMAC-SHA1)")
        }
        var period = period
        if let value = try arguments.integer("period", in: 1...86_400) { period = Int64(value) }
        let time = try Self.time(arguments)
        let steam: SteamGuardTOTP
        do { steam = try SteamGuardTOTP(secret: secret, period: period) } catch {
            throw Arguments.UsageError(description: "cannot build a Steam Guard generator: \(error)")
        }
        return try Self.printOrVerify(
            arguments: arguments, details: ["encoder": "steam", "period": period],
            verifiedDetails: ["encoder": "steam"],
            formatHint:
                "--verify needs 5 characters of 23456789BCDFGHJKMNPQRTVWXY (a Steam Guard code); the code was not compared",
            code: { try steam.code(at: time) }, timeStep: { try steam.timeStep(at: time) },
            secondsRemaining: { try steam.secondsRemaining(at: time) },
            verify: { try steam.verify($0, at: time, window: $1) })
    }
}
