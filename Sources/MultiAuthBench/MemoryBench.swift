import Foundation
import MultiAuth

/// Resident memory with 10,000 pending challenges and 10,000 event subscribers.
enum MemoryBench {
    /// Resident set size of this process in bytes (Linux `/proc/self/statm`; 0 elsewhere).
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    static func run() -> [InfoRow] {
        let before = residentBytes()
        var challenges: [FlowID: Challenge] = [:]
        let issued = Date(timeIntervalSince1970: 1_700_000_000)
        for index in 0..<10_000 {
            var state = ProviderState()
            state["verificationUUID"] = UUID().uuidString
            state["destination"] = "user\(index)@example.com"
            let challenge = Challenge(
                flowID: .random(), provider: .dynamic,
                kind: .oneTimeCode(length: 6, channel: .email, linkAlsoSent: false),
                destination: "u•••@example.com", issuedAt: issued, expiresAt: issued.addingTimeInterval(600),
                resendAvailableAt: issued.addingTimeInterval(30), attemptsRemaining: 3, providerState: state)
            challenges[challenge.flowID] = challenge
        }
        let bus = AuthEventBus()
        let streams = (0..<10_000).map { _ in bus.subscribe(bufferCapacity: 16) }
        for _ in 0..<16 { bus.publish(.deliveryStatus(channel: .sms, status: .delivered), provider: "bench") }
        let after = residentBytes()
        let total = Double(after) / 1_048_576
        let delta = Double(after - before) / 1_048_576
        withExtendedLifetime((challenges, streams)) {}
        bus.finish()
        return [
            InfoRow(
                group: "memory", label: "RSS with 10k pending challenges + 10k subscribers",
                value: String(format: "%.1f MiB (+%.1f MiB for them)", total, delta),
                goal: "< 64 MiB", met: total < 64)
        ]
    }
}

/// Time to the first `authStates()` element of an `AuthClient` with a stored session: in this
/// process (client creation → first element, repeated), and in fresh processes (process start →
/// first element, one per process).
enum ColdStartBench {
    /// Fresh processes measured for the fresh-process rows.
    static let processes = 50

    static func run(repeats: Int) async throws -> [InfoRow] {
        let directory = try Paths.temporaryDirectory("cold")
        defer { try? FileManager.default.removeItem(at: directory) }
        try await storeSession(in: directory)
        var samples: [Double] = []
        for _ in 0..<max(repeats * 20, 100) {
            let start = Clock.nanoseconds()
            try await firstElement(directory: directory)
            samples.append(Double(Clock.nanoseconds() - start) / 1e6)
        }
        let median = Stats.median(samples)
        return [
            InfoRow(
                group: "cold start", label: "AuthClient with a stored session → first authStates() element",
                value: String(format: "p50 %.3f ms, p99 %.3f ms", median, Stats.quantile(samples, 0.99)),
                goal: "< 2 ms", met: median < 2)
        ] + (try freshProcessRows(directory: directory))
    }

    /// Saves the session every cold start finds in `directory`.
    static func storeSession(in directory: URL) async throws {
        var session = StoreBench.session()
        session.provider = "cold"
        try await FileSessionStore(directory: directory).save(session)
    }

    /// Creates a `FileSessionStore` on `directory` and an `AuthClient` on it, and waits for the
    /// first `authStates()` element (which must hold the stored session).
    static func firstElement(directory: URL) async throws {
        let client = try AuthClient(
            providers: [ColdProvider()], store: try FileSessionStore(directory: directory), transport: NoTransport())
        var iterator = client.authStates().makeAsyncIterator()
        guard let first = await iterator.next(), case .initialState(let state) = first.kind,
            state.sessions["cold"] != nil
        else {
            throw BenchError("cold start did not yield the stored session")
        }
    }

    /// `--cold-start DIR` (child side): the first element, then two monotonic clock readings:
    /// the start of `main.swift` and now.
    static func childFirstElement(directory: String, processEntry: UInt64) async throws {
        try await firstElement(directory: URL(fileURLWithPath: directory, isDirectory: true))
        print(processEntry, Clock.nanoseconds())
    }

    /// ``processes`` fresh processes of this executable reaching their first element, alternating
    /// with as many that only start (`--process-start`). Each child prints the monotonic clock
    /// (the same in every process) at the start of `main.swift` and at its first element; the
    /// parent reads it just before `posix_spawn`. So the rows give main → first element (what
    /// MultiAuth costs a fresh process, the figure the goal is about) and spawn → first element
    /// (exec, the loader and the runtime's start-up of this executable included), beside a
    /// process that only starts.
    static func freshProcessRows(directory: URL) throws -> [InfoRow] {
        var fromMain: [Double] = []
        var fromSpawn: [Double] = []
        var started: [Double] = []
        for index in 0..<(2 * processes) {
            let coldStart = index % 2 == 0
            let arguments = coldStart ? ["--cold-start", directory.path] : ["--process-start"]
            let spawned = Clock.nanoseconds()
            let (status, output) = try ChildProcess.run(Paths.executable, arguments)
            let stamps = output.split(whereSeparator: \.isWhitespace).compactMap { UInt64($0) }
            guard status == 0, stamps.count == 2, stamps[0] >= spawned, stamps[1] >= stamps[0] else {
                throw BenchError("\(arguments[0]) exited with \(status) and printed \(output)")
            }
            if coldStart {
                fromMain.append(Double(stamps[1] - stamps[0]) / 1e6)
                fromSpawn.append(Double(stamps[1] - spawned) / 1e6)
            } else {
                started.append(Double(stamps[0] - spawned) / 1e6)
            }
        }
        func figures(_ samples: [Double]) -> String {
            String(format: "p50 %.3f ms, p99 %.3f ms", Stats.median(samples), Stats.quantile(samples, 0.99))
        }
        let median = Stats.median(fromMain)
        return [
            InfoRow(
                group: "cold start",
                label: "fresh process: start of main → first authStates() element (\(processes) processes)",
                value: figures(fromMain), goal: "< 2 ms", met: median < 2),
            InfoRow(
                group: "cold start", label: "the same from posix_spawn (exec, loader, runtime start-up included)",
                value: figures(fromSpawn)),
            InfoRow(
                group: "cold start", label: "a process that only starts: posix_spawn → start of main",
                value: figures(started)),
        ]
    }

    struct ColdProvider: AuthProvider {
        let id: AuthProviderID = "cold"
        func start(_ request: SignInRequest, context: AuthContext) async throws -> SignInStep {
            throw AuthError(.unsupported)
        }
        func respond(to challenge: Challenge, with answer: ChallengeAnswer, context: AuthContext) async throws
            -> SignInStep
        {
            throw AuthError(.unsupported)
        }
        func signOut(_ session: AuthSession, context: AuthContext) async throws {}
    }

    struct NoTransport: HTTPTransport {
        func send(_ request: HTTPRequest) async throws -> HTTPResponse { throw AuthError(.network) }
    }
}
