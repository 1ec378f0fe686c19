import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthHTTP

/// `multiauth jwt TOKEN (--audience A | --any-audience) [--jwks URL|FILE]`: header, claims,
/// validity and (with keys) signature. Without `--jwks` it never reports a token valid.
struct JWTCommand: Command {
    let name = "jwt"
    let summary = "Decode a JWT; check exp/nbf/aud and, given a JWKS, its signature"
    let options: [CommandOption] = [
        .value("audience", "A", "require A in aud"),
        .flag("any-audience", "do not check aud (explicit opt-out)"),
        .value("jwks", "URL|FILE", "a JSON Web Key Set (RFC 7517) from an https URL or a file"),
        .value("leeway", "S", default: "60", "clock-skew allowance in seconds"),
        .value("time", "T", "Unix time to validate at, a finite number of seconds (default: now)"),
        .value("issuer", "I", "require iss == I"),
        .flag(
            "json", "print one JSON object (\"valid\" is true only when the signature",
            "was checked and every check passed; \"audience\" is the required",
            "audience, or null with \"audienceChecked\": false)"),
    ]
    var help: String {
        """
        Usage: multiauth jwt TOKEN (--audience A | --any-audience) [--jwks URL|FILE] [--leeway S] [--time T] [--issuer I] [--json]

        Decodes a JWT (RFC 7519) without trusting it: prints the header and the claims (with
        exp, nbf and iat as dates) and checks now < exp + leeway, now >= nbf - leeway and
        the audience. With --jwks the signature is verified against the key set (RS256,
        RS512, ES256; the key is chosen by kid; alg none and HMAC are refused). Without
        --jwks the signature is NOT checked: the token is never reported valid and the exit
        code is 1 ("signature not checked"). The signature itself is never printed.

        The audience is required (RFC 7519 §4.1.3): give the value this verifier is known by
        with --audience, or waive the check explicitly with --any-audience.
        Tokens over 64 KiB, nested deeper than 32 levels or with more than 4,096 values are
        refused as input errors (exit 2); see Docs/Security.md.

        \(optionsHelp)

        Examples:
          multiauth jwt "$TOKEN" --jwks jwks.json --audience my-app
          multiauth jwt eyJhbGciOi... --any-audience        # decode only: exit 1, signature not checked

        \(ExitCode.helpText)
          (jwt: 1 also when the signature was not checked because no --jwks was given)
        """
    }

    func run(_ arguments: Arguments) async throws -> Int32 {
        guard arguments.positionals.count == 1 else {
            throw Arguments.UsageError(description: "give exactly one token")
        }
        let audience = try Self.audience(arguments)
        let leeway = Double(try arguments.integerOrDefault("leeway", in: 0...86_400))
        let now = try Self.validationTime(arguments)
        let token = arguments.positionals[0].trimmingCharacters(in: .whitespacesAndNewlines)
        let jwt: JWT
        do { jwt = try JWT(parsing: token) } catch {
            if arguments.flags.contains("json") {
                Terminal.out(Terminal.jsonLine(["valid": false, "error": "\(error)"]))
            } else {
                Terminal.err("multiauth jwt: not a readable JWT: \(error)")
            }
            return ExitCode.usage
        }
        var check = Check()
        do {
            try jwt.claims.validate(at: now, leeway: leeway, issuer: arguments.options["issuer"], audience: audience)
        } catch {
            check.problems.append("\(error)")
        }
        check.claimsValid = check.problems.isEmpty
        if let source = arguments.options["jwks"] {
            guard let keys = try await keySet(from: source) else { return ExitCode.usage }
            do {
                let key = try keys.verifySignature(of: jwt)
                check.signature = "valid (kid \(key.kid ?? "-"))"
                check.signatureChecked = true
            } catch {
                check.signature = "INVALID: \(error)"
                check.problems.append("signature: \(error)")
            }
        } else {
            check.problems.append("signature not checked")
        }
        if arguments.flags.contains("json") {
            Self.printJSON(jwt, check, audience: audience)
        } else {
            Self.printText(jwt, check, audience: audience, leeway: leeway)
        }
        return check.valid ? ExitCode.ok : ExitCode.verificationFailed
    }

    // MARK: - options

    /// `--audience A` or `--any-audience`: exactly one is required.
    private static func audience(_ arguments: Arguments) throws -> JWTAudience {
        switch (arguments.options["audience"], arguments.flags.contains("any-audience")) {
        case (let value?, false):
            guard !value.isEmpty else { throw Arguments.UsageError(description: "--audience needs a non-empty value") }
            return .expected(value)
        case (nil, true): return .anyAudience
        case (_?, true): throw Arguments.UsageError(description: "give either --audience or --any-audience, not both")
        case (nil, false):
            throw Arguments.UsageError(
                description:
                    "give --audience A (the aud this verifier is known by) or --any-audience to skip the check explicitly"
            )
        }
    }

    /// `--time T` (finite Unix seconds), or now.
    private static func validationTime(_ arguments: Arguments) throws -> Double {
        guard let text = arguments.options["time"] else { return Date().timeIntervalSince1970 }
        guard let value = Double(text), value.isFinite else {
            throw Arguments.UsageError(description: "--time must be a finite number of Unix seconds, got '\(text)'")
        }
        return value
    }

    /// The key set of `--jwks`, or `nil` after printing why it cannot be used (exit 2: a key
    /// set that cannot be read or does not parse is bad input, not a failed verification).
    private func keySet(from source: String) async throws -> JWKSet? {
        let data: Data
        do { data = try await load(source) } catch let error as KeySetSourceError {
            Terminal.err("multiauth jwt: \(error.sentence)")
            return nil
        }
        do { return try JWKSet(jsonData: data) } catch {
            Terminal.err("multiauth jwt: \(Self.describe(source)) is not a JWK set: \(error)")
            return nil
        }
    }

    // MARK: - output

    /// What the checks found: the problems, the signature verdict and whether the token is valid.
    private struct Check {
        /// Every failed check, as a sentence.
        var problems: [String] = []
        /// Whether exp, nbf, aud and iss passed.
        var claimsValid = false
        /// Whether the signature was verified against `--jwks`.
        var signatureChecked = false
        /// The signature verdict as printed.
        var signature = "not checked (give --jwks)"
        /// Valid only when the signature was checked and nothing failed.
        var valid: Bool { signatureChecked && problems.isEmpty }
    }

    /// `--json`: one JSON object with the header, claims and verdicts.
    private static func printJSON(_ jwt: JWT, _ check: Check, audience: JWTAudience) {
        var header: [String: Any] = [:]
        for (key, value) in jwt.header { header[key] = plain(value) }
        var claims: [String: Any] = [:]
        for (key, value) in jwt.claims.members { claims[key] = plain(value) }
        Terminal.out(
            Terminal.jsonLine([
                "header": header, "claims": claims, "valid": check.valid, "claimsValid": check.claimsValid,
                "signatureChecked": check.signatureChecked,
                "problems": check.problems, "signature": check.signature,
                "audience": expectedAudience(audience) ?? NSNull(),
                "audienceChecked": expectedAudience(audience) != nil,
            ]))
    }

    /// The text report: header and claims tables (dates beside exp, nbf, iat), then the verdicts.
    private static func printText(_ jwt: JWT, _ check: Check, audience: JWTAudience, leeway: Double) {
        Terminal.out("header")
        Terminal.out(Terminal.table(jwt.header.keys.sorted().map { ["  \($0)", text(jwt.header[$0]!)] }))
        Terminal.out("claims")
        Terminal.out(
            Terminal.table(
                jwt.claims.members.keys.sorted().map { key in
                    let value = jwt.claims.members[key]!
                    if ["exp", "nbf", "iat"].contains(key), let seconds = value.doubleValue {
                        return [
                            "  \(key)",
                            "\(text(value))  (\(Date(timeIntervalSince1970: seconds).formatted(.iso8601)))",
                        ]
                    }
                    return ["  \(key)", text(value)]
                }))
        Terminal.out("signature  \(check.signature)")
        Terminal.out("audience   \(words(audience))")
        Terminal.out(
            check.valid
                ? "valid      yes (leeway \(Int(leeway)) s)"
                : "valid      NO: \(check.problems.joined(separator: "; "))")
    }

    /// The audience the token must name, or `nil` when the check was waived.
    static func expectedAudience(_ audience: JWTAudience) -> String? {
        if case .expected(let value) = audience { return value }
        return nil
    }

    /// The audience rule as a person reads it: "must name A" or "not checked (--any-audience)".
    static func words(_ audience: JWTAudience) -> String {
        expectedAudience(audience).map { "must name \($0)" } ?? "not checked (--any-audience)"
    }

    /// Why `--jwks` could not be read, as one sentence for standard error.
    struct KeySetSourceError: Error {
        var sentence: String
    }

    /// The key set's bytes from an https URL or a file path; `http` and other schemes are
    /// refused (a key set fetched in the clear can be swapped).
    /// - Throws: ``KeySetSourceError``.
    private func load(_ source: String) async throws -> Data {
        guard !source.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw KeySetSourceError(sentence: "--jwks needs an https URL or a file path; it was empty")
        }
        if let url = URL(string: source), let scheme = url.scheme?.lowercased(), source.contains("://") {
            guard scheme == "https" else {
                throw KeySetSourceError(sentence: "--jwks takes an https URL or a file path; \(source) is not https")
            }
            guard url.host?.isEmpty == false else {
                throw KeySetSourceError(sentence: "--jwks: the URL \(source) has no host")
            }
            // Schemes are case-insensitive (RFC 3986 §3.1), but URLSession only knows "https":
            // `HTTPS://…` is sent as `https://…`.
            guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
                throw KeySetSourceError(sentence: "--jwks: \(source) is not a valid URL")
            }
            components.scheme = "https"
            guard let httpsURL = components.url else {
                throw KeySetSourceError(sentence: "--jwks: \(source) is not a valid URL")
            }
            let response: HTTPResponse
            do {
                response = try await URLSessionTransport().send(HTTPRequest(method: .get, url: httpsURL))
            } catch let error as AuthError {
                throw KeySetSourceError(
                    sentence: "cannot fetch the key set from \(source): \(DemoConsole.sentence(error))")
            } catch {
                throw KeySetSourceError(sentence: "cannot fetch the key set from \(source)")
            }
            guard response.isSuccess else {
                throw KeySetSourceError(sentence: "cannot fetch the key set from \(source): HTTP \(response.status)")
            }
            return response.body
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: source, isDirectory: &isDirectory) else {
            throw KeySetSourceError(sentence: "cannot read the key set file \(source): no such file")
        }
        guard !isDirectory.boolValue else {
            throw KeySetSourceError(sentence: "cannot read the key set file \(source): it is a directory")
        }
        guard FileManager.default.isReadableFile(atPath: source), let handle = FileHandle(forReadingAtPath: source)
        else {
            throw KeySetSourceError(sentence: "cannot read the key set file \(source): permission denied or unreadable")
        }
        defer { try? handle.close() }
        // Read to the end, but no further than one byte past the key set limit (a device such as
        // /dev/zero never ends; JWKSet refuses the oversized document with a sentence). Device
        // files such as /dev/null have no size, so FileManager.contents(atPath:) is not used.
        let data: Data
        do { data = try handle.read(upToCount: JSONLimits.jwks.maximumBytes + 1) ?? Data() } catch {
            throw KeySetSourceError(sentence: "cannot read the key set file \(source): unreadable")
        }
        guard !data.isEmpty else {
            throw KeySetSourceError(sentence: "the key set file \(source) is empty, not a JWK set")
        }
        return data
    }

    /// Where a key set came from, for a sentence: "the key set file F" or "the key set from URL".
    private static func describe(_ source: String) -> String {
        source.contains("://") ? "the key set from \(source)" : "the key set file \(source)"
    }

    /// A claim value as compact JSON text.
    static func text(_ value: JSONValue) -> String {
        if case .number(let number) = value, number == number.rounded(), abs(number) < 1e15 {
            return String(Int64(number))
        }
        guard
            let data = try? JSONSerialization.data(
                withJSONObject: plain(value), options: [.fragmentsAllowed, .sortedKeys, .withoutEscapingSlashes])
        else { return "?" }
        return String(decoding: data, as: UTF8.self)
    }

    static func plain(_ value: JSONValue) -> Any {
        switch value {
        case .null: NSNull()
        case .bool(let bool): bool
        case .number(let number): number
        case .string(let string): string
        case .array(let array): array.map(plain)
        case .object(let object): object.mapValues(plain)
        }
    }
}
