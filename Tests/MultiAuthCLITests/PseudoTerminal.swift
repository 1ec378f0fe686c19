import Foundation
import MultiAuthSpawn
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs the built `multiauth` with a pseudo-terminal as its standard input, output and error,
/// the way a person at a terminal runs it: `isatty` is true, the terminal echoes what is typed,
/// and lines are sent one at a time after the prompt that asks for them appeared.
///
/// `expect` waits for output by `poll(2)` on the terminal's master side. It never measures
/// speed: it fails early only when the program is provably waiting for input that the test
/// will not send (on Linux: a thread of the program is asleep in `read` on standard input,
/// the terminal has echoed every line sent, and no output is pending — then nothing more can
/// come), and otherwise after ten minutes without output (a hang guard).
final class PseudoTerminal {
    enum TerminalFailure: Error, CustomStringConvertible {
        case openFailed(String)
        case ended(waitingFor: String, transcript: String)
        case silent(waitingFor: String, transcript: String)
        case waitingForInput(waitingFor: String, transcript: String)

        var description: String {
            switch self {
            case .openFailed(let why): "cannot open a pseudo-terminal: \(why)"
            case .ended(let text, let transcript):
                "the program ended before printing '\(text)'. Transcript:\n\(transcript)"
            case .silent(let text, let transcript):
                "no output for 10 minutes while waiting for '\(text)'. Transcript:\n\(transcript)"
            case .waitingForInput(let text, let transcript):
                "the program waits for input but never printed '\(text)'. Transcript:\n\(transcript)"
            }
        }
    }

    private let process: SpawnedProcess
    private let master: Int32
    /// Every byte the program printed and the terminal echoed, without `\r`.
    private var bytes: [UInt8] = []
    /// ``bytes`` as text (a character cut between two reads is whole after the next one).
    private(set) var transcript = ""
    /// Where the next ``expect(_:)`` starts looking, in characters of ``transcript``.
    private var offset = 0
    private var ended = false
    /// The echo of the last line sent, and where in ``bytes`` it must appear.
    private var echo: (text: [UInt8], from: Int)?

    private var cursor: String.Index { transcript.index(transcript.startIndex, offsetBy: offset) }

    /// Starts `multiauth arguments…` on a new pseudo-terminal.
    init(_ arguments: [String]) throws {
        let pty = try PTY.functions()
        master = pty.open(O_RDWR | O_NOCTTY)
        guard master >= 0, pty.grant(master) == 0, pty.unlock(master) == 0, let name = pty.name(master) else {
            throw TerminalFailure.openFailed(String(cString: strerror(errno)))
        }
        let slave = open(name, O_RDWR | O_NOCTTY)
        guard slave >= 0 else { throw TerminalFailure.openFailed(String(cString: strerror(errno))) }
        defer { close(slave) }  // only the child keeps the slave side open: when it exits, reads see the end
        process = try SpawnedProcess(
            executable: CLI.executable, arguments: arguments, standardInput: .descriptor(slave),
            standardOutput: .descriptor(slave), standardError: .descriptor(slave))
    }

    deinit {
        process.send(SIGTERM)
        close(master)
    }

    /// Reads until `text` appears after the previous match; returns what came before it.
    /// - Throws: ``TerminalFailure`` when the program ends first or prints nothing for ten minutes.
    @discardableResult
    func expect(_ text: String) throws -> String {
        while true {
            let start = cursor
            if let range = transcript.range(of: text, range: start..<transcript.endIndex) {
                let before = String(transcript[start..<range.lowerBound])
                offset = transcript.distance(from: transcript.startIndex, to: range.upperBound)
                return before
            }
            guard try readMore(waitingFor: text) else {
                throw TerminalFailure.ended(waitingFor: text, transcript: transcript)
            }
        }
    }

    /// Types `line` and Enter.
    func send(_ line: String) {
        let typed = Array((line + "\n").utf8)
        echo = (typed, bytes.count)
        typed.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(master, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }

    /// Reads to the end and waits for the program; returns its exit status.
    func finish() throws -> Int32 {
        while try readMore(waitingFor: "the end of output") {}
        return process.wait().status
    }

    /// The transcript from the last match on.
    var rest: String { String(transcript[cursor...]) }

    /// Whether the terminal echoed the last line sent: the line discipline has then handed it
    /// to the program's pending read (so a reader still asleep has consumed it and waits for more).
    private var echoed: Bool {
        guard let echo else { return true }
        return bytes[echo.from...].firstRange(of: echo.text) != nil
    }

    /// Linux: a thread of the program is asleep (`S`) in `read(0, …)` — syscall 0 on x86-64
    /// and 63 on arm64, first argument 0 — per `/proc/PID/task/TID/{stat,syscall}`.
    private func programIsReadingInput() -> Bool {
        #if os(Linux)
        let taskDirectory = "/proc/\(process.processIdentifier)/task"
        guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: taskDirectory) else { return false }
        #if arch(arm64)
        let readCall = "63"
        #else
        let readCall = "0"
        #endif
        for task in tasks {
            guard let stat = try? String(contentsOfFile: "\(taskDirectory)/\(task)/stat", encoding: .utf8),
                let syscall = try? String(contentsOfFile: "\(taskDirectory)/\(task)/syscall", encoding: .utf8)
            else { continue }
            let state = stat.split(separator: ")").last?.split(separator: " ").first
            let call = syscall.split(separator: " ")
            if state == "S", call.count >= 2, call[0] == readCall, call[1] == "0x0" { return true }
        }
        return false
        #else
        return false
        #endif
    }

    /// Reads what is available; `false` at the end of output.
    private func readMore(waitingFor text: String) throws -> Bool {
        guard !ended else { return false }
        var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        var silentSeconds = 0
        while true {
            let ready = poll(&descriptor, 1, 1_000)
            if ready < 0, errno == EINTR { continue }
            if ready > 0 { break }
            silentSeconds += 1
            if silentSeconds >= 600 { throw TerminalFailure.silent(waitingFor: text, transcript: transcript) }
            if echoed, programIsReadingInput(), poll(&descriptor, 1, 0) == 0 {
                throw TerminalFailure.waitingForInput(waitingFor: text, transcript: transcript)
            }
        }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = read(master, &buffer, buffer.count)
        guard count > 0 else {
            // EIO on Linux once the child closed the terminal: the end of output.
            ended = true
            return false
        }
        bytes += buffer[..<count].filter { $0 != UInt8(ascii: "\r") }
        transcript = String(decoding: bytes, as: UTF8.self)
        return true
    }
}

/// The POSIX pseudo-terminal calls (`posix_openpt`, `grantpt`, `unlockpt`, `ptsname`). Swift's
/// Glibc module hides them behind `_XOPEN_SOURCE`, so on Linux they are looked up in the C
/// library at run time; on Darwin they are called directly.
private struct PTY {
    var open: (Int32) -> Int32
    var grant: (Int32) -> Int32
    var unlock: (Int32) -> Int32
    var name: (Int32) -> UnsafeMutablePointer<CChar>?

    static func functions() throws -> PTY {
        #if canImport(Darwin)
        return PTY(open: { posix_openpt($0) }, grant: { grantpt($0) }, unlock: { unlockpt($0) }, name: { ptsname($0) })
        #else
        typealias IntFunction = @convention(c) (Int32) -> Int32
        typealias NameFunction = @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?
        func symbol(_ name: String) throws -> UnsafeMutableRawPointer {
            guard let pointer = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else {  // RTLD_DEFAULT
                throw PseudoTerminal.TerminalFailure.openFailed("\(name) not found")
            }
            return pointer
        }
        let open = unsafeBitCast(try symbol("posix_openpt"), to: IntFunction.self)
        let grant = unsafeBitCast(try symbol("grantpt"), to: IntFunction.self)
        let unlock = unsafeBitCast(try symbol("unlockpt"), to: IntFunction.self)
        let name = unsafeBitCast(try symbol("ptsname"), to: NameFunction.self)
        return PTY(open: { open($0) }, grant: { grant($0) }, unlock: { unlock($0) }, name: { name($0) })
        #endif
    }
}
