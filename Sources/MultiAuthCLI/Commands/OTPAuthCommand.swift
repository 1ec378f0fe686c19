import MultiAuthCrypto
import MultiAuthQR

/// `multiauth otpauth URI`: parse, validate and print the canonical form of a Key URI.
struct OTPAuthCommand: Command {
    let name = "otpauth"
    let summary = "Parse and validate an otpauth:// Key URI; print its canonical form"
    let options: [CommandOption] = [
        .flag("show-secret", "print the secret and the canonical URI in full"),
        .flag(
            "qr", "print the URI as a QR code in the terminal (error correction M); the",
            "code carries the secret, so --qr needs --show-secret"),
        .flag("json", "print one JSON object"),
    ]
    var help: String {
        """
        Usage: multiauth otpauth URI [--show-secret] [--qr] [--json]

        Parses an otpauth://totp/ or otpauth://hotp/ Key URI strictly (bad escapes, periods,
        digits or algorithms are errors, never silently defaulted), prints its fields and the
        canonical form (everything outside RFC 3986 unreserved percent-encoded, spaces as %20).
        The label is split at its first literal ':' before decoding (an issuer such as
        Acme%3A%20Payments keeps its colon); encoder=steam (Steam Guard) is shown as such,
        any other encoder is refused.
        The secret is masked unless --show-secret is given.

        \(optionsHelp)

        Examples:
          multiauth otpauth "otpauth://totp/Example+Corp%3Auser%40example.com?secret=JBSWY3DPEHPK3PXP&issuer=Microsoft"
          multiauth otpauth "otpauth://totp/Acme:me@example.com?secret=JBSWY3DPEHPK3PXP&period=60" --show-secret
          multiauth otpauth "otpauth://totp/Acme:me@example.com?secret=JBSWY3DPEHPK3PXP" --qr --show-secret

        \(ExitCode.helpText)
        """
    }

    func run(_ arguments: Arguments) async throws -> Int32 {
        guard arguments.positionals.count == 1 else {
            throw Arguments.UsageError(description: "give exactly one otpauth:// URI (quote it: it contains & and ?)")
        }
        if arguments.flags.contains("qr"), !arguments.flags.contains("show-secret") {
            throw Arguments.UsageError(description: "--qr draws the secret as a QR code: add --show-secret to confirm")
        }
        let uri: OTPAuthURI
        do { uri = try OTPAuthURI(parsing: arguments.positionals[0]) } catch {
            if arguments.flags.contains("json") {
                Terminal.out(Terminal.jsonLine(["valid": false, "error": "\(error)"]))
            } else {
                Terminal.err("multiauth otpauth: invalid URI: \(error)")
                Terminal.err(
                    "expected otpauth://totp/Issuer:account?secret=BASE32&issuer=Issuer[&algorithm=SHA1&digits=6&period=30]"
                )
            }
            return ExitCode.usage
        }
        // The QR code is made before anything is printed: a URI too long for any QR version is
        // bad input (exit 2, one sentence), never half an answer.
        var qr: QRCode?
        if arguments.flags.contains("qr") {
            do { qr = try QRCode(encoding: uri.uriString) } catch {
                Terminal.err(
                    "multiauth otpauth: the canonical URI is \(uri.uriString.utf8.count) bytes, more than the \(QRCode.byteCapacity(version: 40)) bytes the largest QR code (version 40, level M) holds; shorten the issuer or account, or leave out --qr."
                )
                return ExitCode.usage
            }
        }
        let show = arguments.flags.contains("show-secret")
        let secret = show ? uri.secret : "•••• (\(uri.secret.count) characters; --show-secret prints it)"
        let canonical = show ? uri.uriString : uri.uriString.replacingOccurrences(of: uri.secret, with: "••••")
        if arguments.flags.contains("json") {
            var object: [String: Any] = [
                "type": uri.kind.rawValue, "account": uri.account, "algorithm": uri.algorithm.rawValue,
                "digits": uri.digits,
                "secret": secret, "secretBytes": uri.secretBytes.count, "canonical": canonical,
                "issuerMismatch": uri.issuerMismatch,
            ]
            object["issuer"] = uri.issuer
            object["labelIssuer"] = uri.labelIssuer
            if uri.kind == .totp { object["period"] = uri.period } else { object["counter"] = uri.counter }
            if uri.encoding == .steam { object["encoder"] = "steam" }
            Terminal.out(Terminal.jsonLine(object))
        } else {
            var rows: [[String]] = [["type", uri.kind.rawValue], ["issuer", uri.issuer ?? "-"]]
            if let label = uri.labelIssuer, label != uri.issuer {
                rows.append(["label issuer", label + "  (differs from the issuer parameter; the parameter wins)"])
            }
            rows += [
                ["account", uri.account], ["secret", show ? "\(secret)  (\(uri.secretBytes.count) bytes)" : secret],
                ["algorithm", uri.algorithm.rawValue],
                uri.encoding == .steam
                    ? ["encoder", "steam (\(uri.digits)-character Steam Guard codes)"]
                    : ["digits", String(uri.digits)],
            ]
            rows.append(
                uri.kind == .totp ? ["period", "\(uri.period) s"] : ["counter", uri.counter.map(String.init) ?? "-"])
            rows.append(["canonical", canonical])
            Terminal.out(Terminal.table(rows))
        }
        if let qr {
            Terminal.out(qr.terminalString())
            Terminal.out(
                "QR version \(qr.version), error correction M, \(qr.size)×\(qr.size) modules (it carries the secret)")
        }
        return ExitCode.ok
    }
}
