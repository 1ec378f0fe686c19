import Foundation
import MultiAuth
import MultiAuthCrypto

/// The `multiauth` entry point: dispatches to subcommands, prints help and maps errors to exit
/// codes.
enum CLI {
    static let commands: [any Command] = [
        DemoCommand(), ConformanceCommand(), ServeCommand(), TOTPCommand(), OTPAuthCommand(), JWTCommand(),
        PhoneCommand(),
    ]

    static var help: String {
        let rows = commands.map { ["  \($0.name)", $0.summary] }
        return """
            multiauth — one sign-in API over several identity providers, from the command line.

            Usage: multiauth COMMAND [ARGUMENTS] [--help]
                   multiauth --version

            Commands:
            \(Terminal.table(rows + [["  version", "Print the MultiAuth version"], ["  help", "This text, or 'multiauth help COMMAND' for one command"]]))

            Run 'multiauth COMMAND --help' for a command's options and examples.

            \(ExitCode.helpText)
            """
    }

    /// What `multiauth help --help` prints: the help command's own usage.
    static func helpHelp(_ known: [String]) -> String {
        """
        Usage: multiauth help [COMMAND]

        Without COMMAND, prints the list of commands (as 'multiauth --help' does). With COMMAND,
        prints that command's options and examples (as 'multiauth COMMAND --help' does).

        Commands: \(known.joined(separator: ", ")).

        Exit codes:
           0  success
           2  unknown command or more than one name
        """
    }

    /// What `multiauth --version` prints: the tool's name and the library's version.
    static var versionLine: String { "multiauth \(SemanticVersion.multiAuth)" }

    /// What `multiauth version --help` prints: the version command's own usage.
    static var versionHelp: String {
        """
        Usage: multiauth version
               multiauth --version

        Prints the tool's name and MultiAuth's version, e.g. '\(versionLine)'.

        Exit codes:
           0  success
           2  an argument other than --help
        """
    }

    /// Runs `multiauth` with `argv` (the arguments after the program name) and returns the
    /// exit code.
    static func main(_ argv: [String]) async -> Int32 {
        var argv = argv
        if let first = argv.first, ["--version", "version"].contains(first) {
            return version(argv)
        }
        // `multiauth help COMMAND` is `multiauth COMMAND --help`; an unknown name is an error.
        if argv.count >= 2, argv[0] == "help" {
            switch helpRequest(argv) {
            case .answered(let status): return status
            case .rewritten(let rewritten): argv = rewritten
            }
        }
        guard let first = argv.first, !["--help", "-h", "help"].contains(first) else {
            Terminal.out(help)
            return argv.isEmpty ? ExitCode.usage : ExitCode.ok
        }
        argv.removeFirst()
        guard let command = commands.first(where: { $0.name == first }) else {
            Terminal.err(
                "multiauth: unknown command '\(first)'. Commands: \(commands.map(\.name).joined(separator: ", ")). See 'multiauth --help'."
            )
            return ExitCode.usage
        }
        return await run(command, argv)
    }

    // MARK: - version and help

    /// `multiauth --version` / `multiauth version`, with or without `--help`.
    private static func version(_ argv: [String]) -> Int32 {
        if argv.count == 2, ["--help", "-h"].contains(argv[1]) {
            Terminal.out(versionHelp)
            return ExitCode.ok
        }
        guard argv.count == 1 else {
            Terminal.err("multiauth \(argv[0]): takes no arguments")
            return ExitCode.usage
        }
        Terminal.out(versionLine)
        return ExitCode.ok
    }

    /// What `multiauth help NAME …` comes to: an answer already printed (with its exit code), or
    /// the arguments to run instead.
    private enum HelpRequest {
        /// Printed; exit with this code.
        case answered(Int32)
        /// Run these arguments instead (`[NAME, "--help"]`, or `["help"]`).
        case rewritten([String])
    }

    /// `multiauth help NAME` (`argv` has two or more elements, the first `help`).
    private static func helpRequest(_ argv: [String]) -> HelpRequest {
        let known = commands.map(\.name)
        guard argv.count == 2 else {
            Terminal.err(
                "multiauth help: takes one command name, e.g. 'multiauth help demo'. Commands: \(known.joined(separator: ", "))."
            )
            return .answered(ExitCode.usage)
        }
        if ["--help", "-h"].contains(argv[1]) {
            Terminal.out(helpHelp(known))
            return .answered(ExitCode.ok)
        } else if argv[1] == "version" {
            Terminal.out(versionHelp)
            return .answered(ExitCode.ok)
        } else if argv[1] == "help" {
            return .rewritten(["help"])
        } else if known.contains(argv[1]) {
            return .rewritten([argv[1], "--help"])
        } else {
            Terminal.err("multiauth help: unknown command '\(argv[1])'. Commands: \(known.joined(separator: ", ")).")
            return .answered(ExitCode.usage)
        }
    }

    // MARK: - running a command

    /// Parses `argv` against `command`'s option table and runs it, mapping errors to exit codes.
    private static func run(_ command: any Command, _ argv: [String]) async -> Int32 {
        // `--help` (or `-h`) wins over every other argument error: `totp X --help --bogus` shows
        // the help. Arguments after `--` are positionals, not flags.
        if argv.prefix(while: { $0 != "--" }).contains(where: { $0 == "--help" || $0 == "-h" }) {
            Terminal.out(command.help)
            return ExitCode.ok
        }
        do {
            let arguments = try Arguments(argv, options: command.options)
            // `--help`, or `help` as the only argument (`multiauth demo help`).
            if arguments.flags.contains("help") || (arguments.positionals == ["help"] && arguments.options.isEmpty) {
                Terminal.out(command.help)
                return ExitCode.ok
            }
            return try await command.run(arguments)
        } catch {
            return report(error, of: command)
        }
    }

    /// Prints what went wrong in `command` and returns its exit code: 2 for usage errors and
    /// input the library refused, 1 for a failed verification or another failure.
    private static func report(_ error: any Error, of command: any Command) -> Int32 {
        switch error {
        case let error as Arguments.UsageError:
            Terminal.err("multiauth \(command.name): \(error.description)")
            Terminal.err("see 'multiauth \(command.name) --help'")
            return ExitCode.usage
        case let error as AuthError where error.code == .invalidInput:
            // Input the library refused: a sentence and exit 2, like a usage error.
            Terminal.err(
                "multiauth \(command.name): invalid input: \(error.message.isEmpty ? error.code.rawValue : error.message)"
            )
            return ExitCode.usage
        case let error as CryptoError:
            Terminal.err("multiauth \(command.name): invalid input: \(error.description)")
            return ExitCode.usage
        case let error as AuthError:
            Terminal.err(
                "multiauth \(command.name): failed (\(error.code.rawValue)): \(error.message.isEmpty ? error.code.rawValue : error.message)"
            )
            return ExitCode.verificationFailed
        default:
            Terminal.err("multiauth \(command.name): failed: \(error.localizedDescription)")
            return ExitCode.verificationFailed
        }
    }
}
