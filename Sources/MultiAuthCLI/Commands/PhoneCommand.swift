import MultiAuth

/// `multiauth phone INPUT [--region CC]`: E.164, region and masked form, or the error reason.
struct PhoneCommand: Command {
    let name = "phone"
    let summary = "Parse a phone number into E.164 (with a masked form)"
    let options: [CommandOption] = [
        .value("region", "CC", "ISO 3166-1 alpha-2 region for national input, e.g. IN, GB, US"),
        .flag("json", "print one JSON object"),
    ]
    var help: String {
        """
        Usage: multiauth phone INPUT [--region CC] [--json]

        Parses a phone number as a person would type it (spaces, dashes, dots, parentheses,
        a 00 prefix, a trunk 0 after the country code) into E.164, using libphonenumber's
        metadata for every region.

        \(optionsHelp)

        Examples:
          multiauth phone "+44 (0) 20 7946 0958"
          multiauth phone "098765 43210" --region IN
          multiauth phone "(+44) 07700 900123" --json

        \(ExitCode.helpText)
        """
    }

    func run(_ arguments: Arguments) async throws -> Int32 {
        guard arguments.positionals.count == 1 else {
            throw Arguments.UsageError(description: "give exactly one phone number (quote it if it has spaces)")
        }
        let input = arguments.positionals[0]
        do {
            let number = try PhoneNumber(input, defaultRegion: arguments.options["region"])
            if arguments.flags.contains("json") {
                Terminal.out(
                    Terminal.jsonLine([
                        "e164": number.e164, "countryCallingCode": number.countryCallingCode,
                        "nationalNumber": number.nationalNumber, "region": number.regionCode as Any,
                        "masked": number.masked,
                    ]))
            } else {
                Terminal.out(
                    Terminal.table([
                        ["E.164", number.e164], ["calling code", "+\(number.countryCallingCode)"],
                        ["national number", number.nationalNumber], ["region", number.regionCode ?? "-"],
                        ["masked", number.masked],
                    ]))
            }
            return ExitCode.ok
        } catch let error as AuthError {
            let reason = error.reason?.rawValue ?? error.code.rawValue
            if arguments.flags.contains("json") {
                Terminal.out(Terminal.jsonLine(["error": reason, "message": error.message]))
            } else {
                Terminal.err("multiauth phone: not a valid phone number (\(reason)): \(error.message)")
                if error.reason == .regionRequired {
                    Terminal.err("fix: add --region CC, or start the number with + and the country code")
                }
            }
            return ExitCode.usage
        }
    }
}
