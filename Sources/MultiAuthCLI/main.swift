// The `multiauth` command-line tool. See `multiauth --help`.
import Foundation

// Before anything else: SIGPIPE ignored, closed standard descriptors reserved (Terminal).
_ = Terminal.standardOutputWasClosed
let status = await CLI.main(Array(CommandLine.arguments.dropFirst()))
exit(status)
