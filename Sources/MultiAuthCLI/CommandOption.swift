/// One option a command accepts, declared once in the command's ``Command/options`` table: the
/// parser (``Arguments``), the `--help` list (``CommandOption/helpSection(_:)``) and the
/// unknown-option and missing-value messages all read it.
struct CommandOption: Sendable {
    /// The name without the dashes, e.g. `"seed"` for `--seed`.
    let name: String
    /// The value's placeholder in help and messages (`"N"`, `"FILE"`), or `nil` for a boolean flag.
    let placeholder: String?
    /// The value used when the option is not given (``Arguments/integer(_:in:)`` falls back to it),
    /// shown as "(default …)" at the end of the help; `nil` when the command decides.
    let defaultValue: String?
    /// The help description, one element per line (the first beside the option, the rest
    /// under it).
    let help: [String]

    /// A boolean flag, `--name`, described by `help` (one element per line).
    static func flag(_ name: String, _ help: String...) -> CommandOption {
        CommandOption(name: name, placeholder: nil, defaultValue: nil, help: help)
    }

    /// An option that takes a value, `--name PLACEHOLDER` or `--name=PLACEHOLDER`, described by
    /// `help` (one element per line), with an optional default.
    static func value(
        _ name: String, _ placeholder: String, default defaultValue: String? = nil, _ help: String...
    ) -> CommandOption {
        CommandOption(name: name, placeholder: placeholder, defaultValue: defaultValue, help: help)
    }

    /// Whether the option takes a value.
    var takesValue: Bool { placeholder != nil }

    /// How the option is written in help and messages: `--name` or `--name PLACEHOLDER`.
    var spelling: String { placeholder.map { "--\(name) \($0)" } ?? "--\(name)" }

    /// The `Options:` paragraph of a command's `--help`: every option of `options` in table
    /// order, its description aligned two spaces after the longest spelling.
    static func helpSection(_ options: [CommandOption]) -> String {
        let column = (options.map(\.spelling.count).max() ?? 0) + 2
        var lines = ["Options:"]
        for option in options {
            var help = option.help
            if let defaultValue = option.defaultValue {
                help[help.count - 1] += " (default \(defaultValue))"
            }
            let padding = String(repeating: " ", count: column - option.spelling.count)
            lines.append("  " + option.spelling + padding + help[0])
            for line in help.dropFirst() {
                lines.append(String(repeating: " ", count: column + 2) + line)
            }
        }
        return lines.joined(separator: "\n")
    }
}
