import Foundation
import MultiAuthSpawn

/// Runs a helper process to completion and collects what it printed.
enum ChildProcess {
    /// Runs `executable` with `arguments`, waits for it to exit and returns its exit status
    /// (128 + the signal number when a signal ended it) and its standard output. Both output
    /// pipes are read to the end at once, so a large output cannot block it. Through
    /// `SpawnedProcess`, not Foundation's `Process` (Docs/Testing.md, "Child processes").
    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let completed = try SpawnedProcess.run(executable, arguments: arguments)
        FileHandle.standardError.write(completed.standardError)
        return (completed.termination.status, completed.output)
    }
}
