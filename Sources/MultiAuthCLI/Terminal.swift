import Foundation
import MultiAuthLocking

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `write(2)`, named so that ``Terminal/write(_:)`` does not shadow it.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.write(descriptor, bytes, count)
    #elseif canImport(Musl)
    Musl.write(descriptor, bytes, count)
    #else
    Darwin.write(descriptor, bytes, count)
    #endif
}

/// Output helpers: standard output and error, aligned tables.
///
/// Output that cannot be written never traps: standard output full (`> /dev/full`), a reader
/// that closed the pipe (SIGPIPE is ignored, so the write fails with `EPIPE` instead of
/// killing the process) or a closed standard output (`>&-`) ends the process with one line
/// on standard error and exit code ``ExitCode/outputFailed`` (74). Writes go straight to the
/// file descriptors with `write(2)`, not through `FileHandle.write(_:)`, which traps on
/// failure on Linux.
enum Terminal {
    /// Serialises writes so that lines from concurrent tasks (the demo's event printer) stay
    /// whole: a box with no state, held for each write.
    private static let writing = Locked(())

    /// Prepares the standard streams; `main` calls it before anything else runs.
    ///
    /// Ignores SIGPIPE, and puts `/dev/null` on any of descriptors 0, 1 and 2 that is closed,
    /// so that no file opened later (a session store) can become standard output by accident.
    /// Returns whether standard output was closed: then nothing printed would reach anyone,
    /// and the first write reports it.
    static let standardOutputWasClosed: Bool = {
        signal(SIGPIPE, SIG_IGN)
        var outputClosed = false
        for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] where fcntl(descriptor, F_GETFD) == -1 {
            if descriptor == STDOUT_FILENO { outputClosed = true }
            let null = open("/dev/null", descriptor == STDIN_FILENO ? O_RDONLY : O_WRONLY)
            if null >= 0, null != descriptor {
                dup2(null, descriptor)
                close(null)
            }
        }
        return outputClosed
    }()

    /// Writes `text` and a newline to standard output; ends the process (exit 74, a message
    /// on standard error) when it cannot.
    static func out(_ text: String = "") {
        write(text + "\n")
    }

    /// Writes `text` to standard output as is (a prompt without a newline); ends the process
    /// like ``out(_:)`` when it cannot.
    static func write(_ text: String) {
        if standardOutputWasClosed { outputFailed("standard output is closed") }
        let failure = writing.withLock { _ in writeAll(text, to: STDOUT_FILENO) }
        if let failure {
            outputFailed(failure == EPIPE ? "the reader closed the pipe" : String(cString: strerror(failure)))
        }
    }

    /// Writes `text` and a newline to standard error; when even that fails there is nobody
    /// left to tell, so the failure is ignored.
    static func err(_ text: String) {
        writing.withLock { _ in _ = writeAll(text + "\n", to: STDERR_FILENO) }
    }

    /// Ends the process after output failed: one line on standard error, exit code 74.
    static func outputFailed(_ reason: String) -> Never {
        err("multiauth: cannot write to standard output (\(reason)); the output is incomplete")
        exit(ExitCode.outputFailed)
    }

    /// Writes every byte of `text` to `descriptor`, retrying after signals and short writes.
    /// - Returns: `nil`, or the `errno` of the failed write.
    private static func writeAll(_ text: String, to descriptor: Int32) -> Int32? {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { buffer -> Int32? in
            var offset = 0
            while offset < buffer.count {
                let written = systemWrite(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                if written == 0 { return EIO }
                offset += written
            }
            return nil
        }
    }

    /// Renders rows as left-aligned columns separated by two spaces (the last column is not padded).
    static func table(_ rows: [[String]], header: [String]? = nil) -> String {
        let all = (header.map { [$0] } ?? []) + rows
        guard let columns = all.map(\.count).max(), columns > 0 else { return "" }
        var widths = Array(repeating: 0, count: columns)
        for row in all {
            for (index, cell) in row.enumerated() where index < columns - 1 {
                widths[index] = max(widths[index], cell.count)
            }
        }
        func render(_ row: [String]) -> String {
            row.enumerated().map { index, cell in
                index < row.count - 1 ? cell.padding(toLength: widths[index], withPad: " ", startingAt: 0) : cell
            }.joined(separator: "  ")
        }
        var lines = all.map(render)
        if header != nil {
            lines.insert(
                widths.prefix(columns - 1).map { String(repeating: "─", count: $0) }.joined(separator: "  ")
                    + "  " + String(repeating: "─", count: max(4, all.map { $0.last?.count ?? 0 }.max() ?? 0)), at: 1)
        }
        return lines.joined(separator: "\n")
    }

    /// JSON for one value, keys sorted, on one line.
    static func jsonLine(_ object: [String: Any]) -> String {
        let data =
            (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
