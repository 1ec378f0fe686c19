import CMultiAuthSpawn
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process of a test or of `multiauth-bench`, started with `posix_spawn`.
///
/// Not Foundation's `Process`: on Linux, swift-corelibs-foundation's `Process.run()` (Swift
/// 6.3.1) walks `/proc/self/fd` with a fixed 256-byte copy of each directory entry and can read
/// past glibc's buffer into an unmapped page, killing the whole test process with SIGSEGV; how
/// often depends only on how many descriptors the process has open, so a lock around the
/// launches does not help (Docs/Testing.md, "Child processes"). This type asks glibc to close
/// every other descriptor in the child instead (`posix_spawn_file_actions_addclosefrom_np`).
///
/// The pipes it makes are close-on-exec on the parent's side, so a second child never inherits
/// them. ``wait()`` may be called from any thread and any number of times; the child is reaped
/// once. A child still running when the value is released is killed (SIGKILL) and reaped.
public final class SpawnedProcess: @unchecked Sendable {
    /// Where the child's standard input comes from.
    public enum Input: Sendable {
        /// `/dev/null`: the child reads the end at once.
        case null
        /// A pipe; the parent writes through ``SpawnedProcess/standardInput``.
        case pipe
        /// A descriptor of the parent, duplicated onto the child's 0 (the parent keeps its copy).
        case descriptor(Int32)
    }

    /// Where one of the child's output streams goes.
    public enum Output: Sendable {
        /// `/dev/null`.
        case null
        /// A pipe; the parent reads through ``SpawnedProcess/standardOutput`` or
        /// ``SpawnedProcess/standardError``.
        case pipe
        /// A descriptor of the parent, duplicated onto the child's 1 or 2 (the parent keeps its copy).
        case descriptor(Int32)
    }

    /// How the child ended.
    public enum Termination: Hashable, Sendable, CustomStringConvertible {
        /// It called `exit` with this status.
        case exited(Int32)
        /// A signal with this number ended it.
        case signalled(Int32)

        /// The exit status, or 128 + the signal number (as a shell reports it).
        public var status: Int32 {
            switch self {
            case .exited(let status): status
            case .signalled(let signal): 128 + signal
            }
        }

        /// "exit 3" or "signal 9".
        public var description: String {
            switch self {
            case .exited(let status): "exit \(status)"
            case .signalled(let signal): "signal \(signal)"
            }
        }
    }

    /// Why starting a child failed.
    public struct Failure: Error, CustomStringConvertible {
        /// What was being done: "pipe", "open /dev/null" or "spawn PATH".
        public let operation: String
        /// The C library's error number.
        public let code: Int32

        /// The operation and `strerror` of the code.
        public var description: String { "\(operation): \(String(cString: strerror(code)))" }
    }

    /// The child's process id.
    public let processIdentifier: pid_t
    /// The parent's end of the child's standard input, when it is ``Input/pipe``.
    public let standardInput: FileHandle?
    /// The parent's end of the child's standard output, when it is ``Output/pipe``.
    public let standardOutput: FileHandle?
    /// The parent's end of the child's standard error, when it is ``Output/pipe``.
    public let standardError: FileHandle?

    private let lock = NSLock()
    private var termination: Termination?

    /// Starts `executable` (a path, not looked up in `PATH`) with `arguments`.
    /// - Parameters:
    ///   - environment: The child's environment; `nil` passes this process's environment.
    /// - Throws: ``Failure`` when a pipe cannot be made or the program cannot be started.
    public init(
        executable: String, arguments: [String] = [], environment: [String: String]? = nil,
        standardInput input: Input = .null, standardOutput output: Output = .null,
        standardError error: Output = .null
    ) throws {
        var toClose: [Int32] = []  // the child's ends and /dev/null, closed here once it started
        var parentEnds: [Int32] = []  // closed here only if starting fails
        defer { for descriptor in toClose { close(descriptor) } }

        func devNull() throws -> Int32 {
            let descriptor = open("/dev/null", O_RDWR | O_CLOEXEC)
            guard descriptor >= 0 else { throw Failure(operation: "open /dev/null", code: errno) }
            toClose.append(descriptor)
            return descriptor
        }
        func pipe() throws -> (read: Int32, write: Int32) {
            var descriptors: [Int32] = [-1, -1]
            guard mas_pipe(&descriptors) == 0 else { throw Failure(operation: "pipe", code: errno) }
            return (descriptors[0], descriptors[1])
        }

        do {
            let childInput: Int32
            var parentInput: Int32?
            switch input {
            case .null: childInput = try devNull()
            case .descriptor(let descriptor): childInput = descriptor
            case .pipe:
                let ends = try pipe()
                toClose.append(ends.read)
                parentEnds.append(ends.write)
                childInput = ends.read
                parentInput = ends.write
            }
            func route(_ output: Output) throws -> (child: Int32, parent: Int32?) {
                switch output {
                case .null: return (try devNull(), nil)
                case .descriptor(let descriptor): return (descriptor, nil)
                case .pipe:
                    let ends = try pipe()
                    toClose.append(ends.write)
                    parentEnds.append(ends.read)
                    return (ends.write, ends.read)
                }
            }
            let childOutput = try route(output)
            let childError = try route(error)

            let argv = ([executable] + arguments).map { strdup($0) } + [nil]
            let environmentStrings =
                (environment ?? ProcessInfo.processInfo.environment)
                .map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer {
                for pointer in argv { free(pointer) }
                for pointer in environmentStrings { free(pointer) }
            }
            var pid = pid_t()
            let result = mas_spawn(
                &pid, executable, argv, environmentStrings, childInput, childOutput.child, childError.child)
            guard result == 0 else { throw Failure(operation: "spawn \(executable)", code: result) }
            processIdentifier = pid
            standardInput = parentInput.map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
            standardOutput = childOutput.parent.map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
            standardError = childError.parent.map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
        } catch {
            for descriptor in parentEnds { close(descriptor) }
            throw error
        }
    }

    deinit {
        if lock.withLock({ termination == nil }) {
            kill(processIdentifier, SIGKILL)
            _ = wait()
        }
    }

    /// Sends `signal` to the child (nothing once it has been reaped).
    public func send(_ signal: Int32) {
        lock.withLock {
            if termination == nil { _ = kill(processIdentifier, signal) }
        }
    }

    /// Blocks until the child ends and returns how; later calls return the same answer.
    public func wait() -> Termination {
        if let known = lock.withLock({ termination }) { return known }
        var status: Int32 = 0
        var reaped: pid_t
        repeat {
            reaped = waitpid(processIdentifier, &status, 0)
        } while reaped == -1 && errno == EINTR
        return lock.withLock {
            if let known = termination { return known }  // another thread reaped it first
            let ended: Termination = Self.decode(status)
            termination = ended
            return ended
        }
    }

    /// Whether the child is still running (reaps it, without blocking, when it has ended).
    public var isRunning: Bool {
        lock.withLock {
            guard termination == nil else { return false }
            var status: Int32 = 0
            guard waitpid(processIdentifier, &status, WNOHANG) == processIdentifier else { return true }
            termination = Self.decode(status)
            return false
        }
    }

    private static func decode(_ status: Int32) -> Termination {
        // <sys/wait.h>: the low 7 bits are the signal (0: exited), the next 8 the exit status.
        let signal = status & 0x7f
        return signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
    }
}

extension SpawnedProcess {
    /// What ``run(_:arguments:environment:input:)`` collected.
    public struct Completed: Sendable {
        /// How the child ended.
        public var termination: Termination
        /// Everything it wrote to standard output.
        public var standardOutput: Data
        /// Everything it wrote to standard error.
        public var standardError: Data

        /// ``standardOutput`` as UTF-8 text (invalid bytes replaced).
        public var output: String { String(decoding: standardOutput, as: UTF8.self) }
        /// ``standardError`` as UTF-8 text (invalid bytes replaced).
        public var errors: String { String(decoding: standardError, as: UTF8.self) }
    }

    /// Runs `executable` to the end: writes `input` (when given) to its standard input and
    /// closes it, reads its standard output and error to the end at the same time (so neither
    /// pipe can fill up and block the child), then reaps it. Blocks the calling thread.
    /// - Throws: ``Failure`` when it cannot be started.
    public static func run(
        _ executable: String, arguments: [String] = [], environment: [String: String]? = nil, input: Data? = nil
    ) throws -> Completed {
        let child = try SpawnedProcess(
            executable: executable, arguments: arguments, environment: environment,
            standardInput: input == nil ? .null : .pipe, standardOutput: .pipe, standardError: .pipe)
        if let input, let handle = child.standardInput {
            let writer = Thread {
                try? handle.write(contentsOf: input)
                try? handle.close()
            }
            writer.start()
        }
        let (output, errors) = readBoth(child.standardOutput, child.standardError)
        return Completed(termination: child.wait(), standardOutput: output, standardError: errors)
    }

    /// Reads two pipes to their ends, whichever has data first, with `poll(2)`.
    static func readBoth(_ first: FileHandle?, _ second: FileHandle?) -> (Data, Data) {
        var collected = [Data(), Data()]
        var open = [first?.fileDescriptor ?? -1, second?.fileDescriptor ?? -1]
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while open.contains(where: { $0 >= 0 }) {
            var descriptors = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let ready = poll(&descriptors, nfds_t(descriptors.count), -1)
            if ready < 0 {
                if errno == EINTR { continue }
                break
            }
            for index in descriptors.indices where descriptors[index].fd >= 0 && descriptors[index].revents != 0 {
                let count = read(descriptors[index].fd, &buffer, buffer.count)
                if count > 0 {
                    collected[index].append(contentsOf: buffer[..<count])
                } else if count == 0 || errno != EINTR {
                    open[index] = -1  // the end (or an error): this pipe is done
                }
            }
        }
        return (collected[0], collected[1])
    }
}
