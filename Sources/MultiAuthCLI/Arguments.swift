/// A small command-line argument parser: `--name value`, `--name=value`, boolean `--flag`s and
/// positional arguments, checked against a command's declared options.
struct Arguments {
    /// Option values by name (without dashes); repeated options keep the last value.
    var options: [String: String] = [:]
    /// Boolean flags that were given.
    var flags: Set<String> = []
    /// Positional arguments in order.
    var positionals: [String] = []

    /// A usage error: exit code 2, with a message that says what to fix.
    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    /// Parses `raw` given the option names that take a value and the boolean flags.
    /// - Throws: ``UsageError`` for unknown options or a missing value.
    init(_ raw: [String], valueOptions: Set<String>, flags allowedFlags: Set<String>) throws {
        var index = 0
        var onlyPositionals = false
        while index < raw.count {
            let argument = raw[index]
            index += 1
            if onlyPositionals || !argument.hasPrefix("--") || argument == "-" {
                if !onlyPositionals, argument.hasPrefix("-"), argument.count > 1, Int(argument) == nil, argument != "-"
                {
                    if argument == "-h" {
                        flags.insert("help")
                        continue
                    }
                    throw UsageError(
                        description: "unknown option '\(argument)'; options are written with two dashes, e.g. --help")
                }
                positionals.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositionals = true
                continue
            }
            var name = String(argument.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if name == "help" || allowedFlags.contains(name) {
                guard inlineValue == nil else { throw UsageError(description: "--\(name) takes no value") }
                flags.insert(name)
            } else if valueOptions.contains(name) {
                if let inlineValue {
                    options[name] = inlineValue
                } else {
                    guard index < raw.count else { throw UsageError(description: "--\(name) needs a value") }
                    options[name] = raw[index]
                    index += 1
                }
            } else {
                let known = (valueOptions.map { "--\($0) VALUE" } + allowedFlags.map { "--\($0)" }).sorted()
                throw UsageError(
                    description: "unknown option '--\(name)'"
                        + (known.isEmpty ? "" : "; this command accepts \(known.joined(separator: ", "))"))
            }
        }
    }

    /// The integer value of option `name`, if given.
    /// - Throws: ``UsageError`` when it is not an integer in `range`.
    func integer(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text = options[name] else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw UsageError(
                description:
                    "--\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), got '\(text)'")
        }
        return value
    }
}
