import Foundation

/// Runs a helper process to completion and collects what it printed.
enum ChildProcess {
    /// Runs `executable` with `arguments`, waits for it to exit and returns its exit status and
    /// its standard output (read to the end before waiting, so a large output cannot block it).
    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
