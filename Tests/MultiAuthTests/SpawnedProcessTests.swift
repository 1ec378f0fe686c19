import Foundation
import MultiAuthSpawn
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The child-process helper the tests and the bench share instead of Foundation's `Process`
/// (Docs/Testing.md, "Child processes").
@Suite(.timeLimit(.minutes(10)))  // hang guard only
struct SpawnedProcessTests {
    /// Opens `count` descriptors on /dev/null that are *not* close-on-exec, as a socket or a
    /// file opened by code that forgot the flag would be; closed by the returned closure.
    static func openLeakyDescriptors(_ count: Int) -> () -> Void {
        let descriptors = (0..<count).map { _ in open("/dev/null", O_RDONLY) }
        return { for descriptor in descriptors where descriptor >= 0 { close(descriptor) } }
    }

    @Test func aChildInheritsOnlyItsThreeStandardDescriptors() throws {
        let closeAll = Self.openLeakyDescriptors(64)
        defer { closeAll() }
        // The shell lists its own descriptors (the `for` has no descriptor of its own open).
        let completed = try SpawnedProcess.run(
            "/bin/sh", arguments: ["-c", "cd /proc/self/fd 2>/dev/null && for fd in *; do echo $fd; done"])
        #expect(completed.termination == .exited(0), "\(completed.errors)")
        let inherited = Set(completed.output.split(separator: "\n").compactMap { Int($0) })
        #if os(Linux)
        // 0, 1, 2, and the directory the shell is reading (the glob's own descriptor, if any).
        #expect(inherited.isSuperset(of: [0, 1, 2]))
        #expect(inherited.subtracting([0, 1, 2]).count <= 1, "inherited: \(inherited.sorted())")
        #endif
    }

    @Test func bothOutputStreamsAreReadAtOnceSoALargeWriterNeverBlocks() throws {
        // A megabyte to standard error first, then one to standard output: reading one pipe to
        // its end before the other would leave the child blocked on a full pipe forever.
        let completed = try SpawnedProcess.run(
            "/bin/sh", arguments: ["-c", "head -c 1048576 /dev/zero >&2; head -c 1048576 /dev/zero"])
        #expect(completed.termination == .exited(0))
        #expect(completed.standardOutput.count == 1_048_576)
        #expect(completed.standardError.count == 1_048_576)
    }

    @Test func inputIsWrittenAndClosed() throws {
        let completed = try SpawnedProcess.run("/bin/cat", input: Data("one\ntwo\n".utf8))
        #expect(completed.output == "one\ntwo\n")
        #expect(completed.termination == .exited(0))
    }

    @Test func exitStatusesAndSignalsAreTold() throws {
        #expect(try SpawnedProcess.run("/bin/sh", arguments: ["-c", "exit 3"]).termination == .exited(3))
        let killed = try SpawnedProcess.run("/bin/sh", arguments: ["-c", "kill -9 $$"]).termination
        #expect(killed == .signalled(SIGKILL))
        #expect(killed.status == 128 + SIGKILL)

        let sleeper = try SpawnedProcess(executable: "/bin/sh", arguments: ["-c", "read line"], standardInput: .pipe)
        #expect(sleeper.isRunning)
        sleeper.send(SIGTERM)
        #expect(sleeper.wait() == .signalled(SIGTERM))
        #expect(sleeper.wait() == .signalled(SIGTERM))  // reaped once; the answer stays
        #expect(!sleeper.isRunning)
    }

    @Test func aProgramThatCannotBeStartedIsAnError() {
        #expect(throws: SpawnedProcess.Failure.self) {
            try SpawnedProcess(executable: "/nonexistent/multiauth-\(UUID().uuidString)")
        }
    }

    /// What crashed Foundation's `Process.run()`: many launches at once from a process that holds
    /// thousands of descriptors (its `/proc/self/fd` walk fills several of glibc's buffers).
    @Test func manyLaunchesAtOnceFromAProcessHoldingThousandsOfDescriptors() throws {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        let count = Int(min(limit.rlim_cur, 4_096)) - 256
        try #require(count > 500, "RLIMIT_NOFILE \(limit.rlim_cur) is too low for this test")
        let closeAll = Self.openLeakyDescriptors(count)
        defer { closeAll() }
        // An NSLock, not Synchronization's Mutex: ThreadSanitizer sees pthread locks but not the
        // futex Mutex uses on Linux, and reports the guarded appends as a race.
        let results = LaunchResults()
        // Eight threads (not the concurrency pool's few), 25 launches each.
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for round in 0..<25 {
                let result = Result {
                    try SpawnedProcess.run("/bin/sh", arguments: ["-c", "exit \((worker + round) % 7)"]).termination
                }
                results.append(result)
            }
        }
        let statuses = try results.all().map { try $0.get() }
        #expect(statuses.count == 200)
        #expect(Set(statuses) == Set((0..<7).map { SpawnedProcess.Termination.exited(Int32($0)) }))
    }
}

/// The launches' results, appended from many threads under one pthread lock.
private final class LaunchResults: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [Result<SpawnedProcess.Termination, any Error>] = []

    func append(_ result: Result<SpawnedProcess.Termination, any Error>) {
        lock.withLock { results.append(result) }
    }

    func all() -> [Result<SpawnedProcess.Termination, any Error>] {
        lock.withLock { results }
    }
}
