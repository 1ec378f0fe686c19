/// One `multiauth` subcommand.
protocol Command: Sendable {
    /// The subcommand name, e.g. `"phone"`.
    var name: String { get }
    /// A one-line summary for the top-level help.
    var summary: String { get }
    /// The full help text: usage, options (``CommandOption/helpSection(_:)`` of ``options``),
    /// examples, exit codes.
    var help: String { get }
    /// The options the command accepts, each declared once: parsing, the `--help` list and the
    /// unknown-option message come from this table.
    var options: [CommandOption] { get }
    /// Runs the command and returns its exit code.
    func run(_ arguments: Arguments) async throws -> Int32
}

extension Command {
    /// The `Options:` paragraph of ``help``, generated from ``options``.
    var optionsHelp: String { CommandOption.helpSection(options) }
}

/// Exit codes shared by every command.
enum ExitCode {
    /// Success.
    static let ok: Int32 = 0
    /// A verification failed (wrong code, invalid signature, failed check).
    static let verificationFailed: Int32 = 1
    /// Bad usage or input: the message says what to fix.
    static let usage: Int32 = 2
    /// Output could not be written (disk full, a reader that closed the pipe, a closed
    /// standard output): `EX_IOERR` of BSD's `sysexits.h`, so scripts can tell it from a
    /// failed verification or bad input. The message is on standard error.
    static let outputFailed: Int32 = 74
    /// A service the command needs is unavailable (`multiauth serve`: the port is taken):
    /// `EX_UNAVAILABLE` of BSD's `sysexits.h`.
    static let unavailable: Int32 = 69

    /// The help line for ``outputFailed``, shared by every command's exit-code list.
    static let outputFailedLine = "  74  output could not be written (disk full, closed pipe or closed standard output)"

    /// The `--help` paragraph describing the exit codes.
    static let helpText = """
        Exit codes:
           0  success
           1  verification failed (wrong code, bad signature, failed check)
           2  usage or input error (the message says what to fix)
        \(outputFailedLine)
        """
}
