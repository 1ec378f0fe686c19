/// A small command-line argument parser: `--name value`, `--name=value`, boolean `--flag`s and
/// positional arguments, checked against a command's option table (``CommandOption``).
struct Arguments {
    /// Option values by name (without dashes); repeated options keep the last value.
    var options: [String: String] = [:]
    /// Boolean flags that were given.
    var flags: Set<String> = []
    /// Positional arguments in order.
    var positionals: [String] = []
    /// The command's option table the arguments were parsed against.
    private(set) var declared: [CommandOption] = []

    /// A usage error: exit code 2, with a message that says what to fix.
    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    /// Parses `raw` against the command's option table (`--help` is always accepted).
    /// - Throws: ``UsageError`` for unknown options or a missing value.
    init(_ raw: [String], options table: [CommandOption]) throws {
        declared = table
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
            let option = table.first { $0.name == name }
            if name == "help" || option?.takesValue == false {
                guard inlineValue == nil else { throw UsageError(description: "--\(name) takes no value") }
                flags.insert(name)
            } else if option != nil {
                if let inlineValue {
                    options[name] = inlineValue
                } else {
                    guard index < raw.count else { throw UsageError(description: "--\(name) needs a value") }
                    options[name] = raw[index]
                    index += 1
                }
            } else {
                let known = table.map(\.spelling).sorted()
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

    /// The integer value of option `name`, or the default its ``CommandOption`` declares.
    /// - Throws: ``UsageError`` when the given value is not an integer in `range`.
    func integerOrDefault(_ name: String, in range: ClosedRange<Int>) throws -> Int {
        if let value = try integer(name, in: range) { return value }
        guard let text = declared.first(where: { $0.name == name })?.defaultValue, let value = Int(text) else {
            preconditionFailure("--\(name) declares no whole-number default in the option table")
        }
        return value
    }
}
