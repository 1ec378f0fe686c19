import Foundation
import MultiAuthCrypto

/// `multiauth totp SECRET|URI …`: prints the current code (like `oathtool --totp`) or verifies one.
struct TOTPCommand: Command {
    let name = "totp"
    let summary = "Generate or verify a TOTP code (RFC 6238) from a base32 secret or otpauth:// URI"
    let valueOptions: Set<String> = ["time", "digits", "period", "algorithm", "verify", "window"]
    let flags: Set<String> = ["json"]
    var help: String {
        """
        Usage: multiauth totp SECRET|URI [--time T] [--digits N] [--period S] [--algorithm A]
               multiauth totp SECRET|URI --verify CODE [--window N] [--time T] …

        Prints the TOTP code for a base32 secret (spaces, dashes and case ignored) or for an
        otpauth://totp/ URI (its algorithm, digits and period are used unless overridden).

        Options:
          --time T        Unix time in seconds (default: now)
          --digits N      code length, 6 to 8 (default 6, or the URI's)
          --period S      time step in seconds (default 30, or the URI's)
          --algorithm A   SHA1, SHA256 or SHA512 (default SHA1, or the URI's)
          --verify CODE   check CODE instead of printing one (exit 1 when it does not match)
          --window N      steps accepted either side when verifying (default 1)
          --json          print one JSON object

        Examples:
          multiauth totp GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ --time 59 --digits 8      # 94287082
          multiauth totp "otpauth://totp/Acme:me@example.com?secret=JBSWY3DPEHPK3PXP&issuer=Acme"
          multiauth totp JBSWY3DPEHPK3PXP --verify 324550 --time 1700000000

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
        if input.lowercased().hasPrefix("otpauth://") {
            let uri: OTPAuthURI
            do { uri = try OTPAuthURI(parsing: input) } catch {
                throw Arguments.UsageError(description: "not a valid otpauth URI: \(error)")
            }
            guard uri.kind == .totp else { throw Arguments.UsageError(description: "the URI is HOTP; this command computes TOTP") }
            secret = uri.secretBytes
            algorithm = uri.algorithm
            digits = uri.digits
            period = uri.period
        } else {
            do { secret = try Base32.decode(input) } catch {
                throw Arguments.UsageError(description: "not a valid base32 secret (\(error)); use A–Z and 2–7, spaces and dashes are ignored")
            }
        }
        if let value = try arguments.integer("digits", in: 6...8) { digits = value }
        if let value = try arguments.integer("period", in: 1...86_400) { period = Int64(value) }
        if let name = arguments.options["algorithm"] {
            do { algorithm = try DigestAlgorithm(name: name.uppercased()) } catch {
                throw Arguments.UsageError(description: "--algorithm must be SHA1, SHA256 or SHA512, got '\(name)'")
            }
        }
        let time: Int64
        if let text = arguments.options["time"] {
            guard let value = Int64(text), value >= 0 else {
                throw Arguments.UsageError(description: "--time must be Unix seconds (a whole number ≥ 0), got '\(text)'")
            }
            time = value
        } else {
            time = Int64(Date().timeIntervalSince1970)
        }
        let totp: TOTP
        do { totp = try TOTP(secret: secret, algorithm: algorithm, digits: digits, period: period) } catch {
            throw Arguments.UsageError(description: "cannot build a TOTP generator: \(error)")
        }
        let json = arguments.flags.contains("json")
        if let code = arguments.options["verify"] {
            let window = try arguments.integer("window", in: 0...10) ?? 1
            do {
                let step = try totp.verify(code, at: time, window: window)
                let current = try totp.timeStep(at: time)
                let offset = Int64(bitPattern: step &- current)
                if json {
                    Terminal.out(Terminal.jsonLine(["valid": true, "timeStep": step, "offset": offset]))
                } else {
                    Terminal.out("valid: matches time step \(step) (\(offset >= 0 ? "+" : "")\(offset) from now, window ±\(window))")
                }
                return ExitCode.ok
            } catch let error as CryptoError {
                if json {
                    Terminal.out(Terminal.jsonLine(["valid": false, "reason": "\(error)"]))
                } else {
                    Terminal.out("invalid: \(error) (window ±\(window))")
                }
                return error == .invalidCodeFormat ? ExitCode.usage : ExitCode.verificationFailed
            }
        }
        let code = try totp.code(at: time)
        if json {
            Terminal.out(Terminal.jsonLine([
                "code": code, "timeStep": try totp.timeStep(at: time), "secondsRemaining": try totp.secondsRemaining(at: time),
                "algorithm": algorithm.rawValue, "digits": digits, "period": period,
            ]))
        } else {
            Terminal.out(code)
        }
        return ExitCode.ok
    }
}
