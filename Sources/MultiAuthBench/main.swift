import Dispatch
// `multiauth-bench`: MultiAuth's hot paths against baselines doing the same work, as ratios
// that do not move with the machine's load. Run it in release:
// `swift run -c release multiauth-bench` (Docs/Performance.md).
//
// Two measurements per row:
// - time: ours and the baseline in alternating batches, repeat by repeat; the figure is the
//   median of the per-pair ratios, with its interquartile range, so a load swing lands on both
//   sides of a pair instead of on one side of the table;
// - instructions: each side alone in a fresh process under callgrind, counting only the
//   measured operations. These are the ratios compared with the goals (except where the cost
//   is mostly in the kernel, which callgrind cannot see; the row says so).
import Foundation
import MultiAuthLocking

// The first thing the process does (after the loader and the runtime's start-up): the fresh-process
// cold-start rows measure from here.
let processEntry = Clock.nanoseconds()

#if DEBUG
FileHandle.standardError.write(
    Data(
        "multiauth-bench: this is a debug build; numbers are meaningless. Use: swift run -c release multiauth-bench\n"
            .utf8))
#endif

// The work runs in a task while the main thread waits on a semaphore: an async `main` would
// park the main thread in `dispatch_main`, which valgrind 3.19 (instruction mode) cannot run.
/// The exit status, set by the task and read once it signalled.
let status = Locked<Int32>(0)
let finished = DispatchSemaphore(value: 0)
Task.detached {
    do {
        let code = try await BenchMain.run(Array(CommandLine.arguments.dropFirst()), processEntry: processEntry)
        status.withLock { $0 = code }
    } catch {
        FileHandle.standardError.write(Data("multiauth-bench: \(error)\n".utf8))
        status.withLock { $0 = 1 }
    }
    finished.signal()
}
finished.wait()
exit(status.withLock { $0 })
