import Foundation
import MultiAuth
import MultiAuthDynamic

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
            state["verificationUUID"] = Secret(UUID().uuidString)
            state["destination"] = Secret("user\(index)@example.com")
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
    /// first `authStates()` element (which must hold the stored session). `mark` runs after each
    /// step (store created, client created, subscribed, first element), for the fresh-process
    /// breakdown; it only reads the clock.
    static func firstElement(directory: URL, mark: () -> Void = {}) async throws {
        let store = try FileSessionStore(directory: directory)
        mark()
        let client = try AuthClient(providers: [ColdProvider()], store: store, transport: NoTransport())
        mark()
        var iterator = client.authStates().makeAsyncIterator()
        mark()
        guard let first = await iterator.next(), case .initialState(let state) = first.kind,
            state.sessions["cold"] != nil
        else {
            throw BenchError("cold start did not yield the stored session")
        }
        mark()
    }

    /// `--cold-start DIR` (child side): the first element, then the monotonic clock at the start
    /// of `main.swift`, at the first statement of the task (`taskEntry`), when the cold-start
    /// code begins (after the bench's argument parsing), after each step of ``firstElement(directory:mark:)``
    /// (the last is the first element).
    static func childFirstElement(directory: String, processEntry: UInt64, taskEntry: UInt64) async throws {
        var stamps = [processEntry, taskEntry, Clock.nanoseconds()]
        stamps.reserveCapacity(stamps.count + 4)
        try await firstElement(directory: URL(fileURLWithPath: directory, isDirectory: true)) {
            stamps.append(Clock.nanoseconds())
        }
        print(stamps.map(String.init).joined(separator: " "))
    }

    /// The steps the fresh-process breakdown names, one per interval between the child's stamps.
    static let steps = [
        "main → first statement of the task (the runtime's thread pool)",
        "reading the arguments",
        "FileSessionStore init (URL, stat, lock)",
        "AuthClient init",
        "authStates() subscribe",
        "first element (actor hops, read, decode)",
    ]

    /// A two-field type the `--first-decode` child decodes first.
    struct FirstDecoded: Decodable {
        /// A string field.
        var name: String
        /// A number field.
        var count: Int
    }

    /// A second, distinct two-field type, decoded after ``FirstDecoded``.
    struct SecondDecoded: Decodable {
        /// A string field.
        var label: String
        /// A number field.
        var total: Int
    }

    /// `--first-decode` (child side): the clock before and after a `JSONDecoder` decodes a small
    /// JSON object into ``FirstDecoded`` (the first decode in this process), then after it decodes
    /// one into ``SecondDecoded`` (a second type's first decode): Foundation's and the Swift
    /// runtime's first-use cost of JSON decoding in a fresh process of this executable, without
    /// MultiAuth.
    static func childFirstDecodes() -> [UInt64] {
        let first = Data(#"{"name":"cold","count":1}"#.utf8)
        let second = Data(#"{"label":"cold","total":2}"#.utf8)
        let start = Clock.nanoseconds()
        let one = try? JSONDecoder().decode(FirstDecoded.self, from: first)
        let afterFirst = Clock.nanoseconds()
        let two = try? JSONDecoder().decode(SecondDecoded.self, from: second)
        let afterSecond = Clock.nanoseconds()
        guard one?.count == 1, two?.total == 2 else { return [] }
        return [start, afterFirst, afterSecond]
    }

    /// The executable that links only MultiAuth (`MultiAuthColdStart`, built with the bench),
    /// next to this one.
    static var appLikeExecutable: String {
        URL(fileURLWithPath: Paths.executable).deletingLastPathComponent().appendingPathComponent("MultiAuthColdStart")
            .path
    }

    /// ``processes`` fresh processes reaching their first element in an executable that links
    /// only MultiAuth (`MultiAuthColdStart`, as an app does: the figure the goal is about), as
    /// many in this executable (`--cold-start`, every module of the package linked), alternating
    /// with as many that only start (`--process-start`) and as many that only decode small JSON
    /// (`--first-decode`). Each child prints monotonic clock readings (the clock is the same in
    /// every process): the cold-start children at the start of `main.swift`, at each step and at
    /// the first element; the parent reads it just before `posix_spawn`. So the rows give main →
    /// first element, its steps, and spawn → first element (exec, the loader and the runtime's
    /// start-up included), beside a process that only starts and the first-use cost of
    /// `JSONDecoder` alone.
    ///
    /// Why two executables: on Linux the Swift runtime's first lookup of each protocol
    /// conformance scans every conformance record of the process, so its cost grows with what
    /// the executable links; the bench links the sandbox, the servers and the harness, which an
    /// app does not.
    static func freshProcessRows(directory: URL) throws -> [InfoRow] {
        var fromMain: [[Double]] = [[], []]
        var fromSpawn: [[Double]] = [[], []]
        var started: [Double] = []
        var stepSamples = Array(repeating: Array(repeating: [Double](), count: steps.count), count: 2)
        var firstDecode: [Double] = []
        var secondDecode: [Double] = []
        let appLike = appLikeExecutable
        for index in 0..<(4 * processes) {
            let kind = index % 4
            let (executable, arguments) =
                switch kind {
                case 0: (appLike, [directory.path])
                case 1: (Paths.executable, ["--cold-start", directory.path])
                case 2: (Paths.executable, ["--process-start"])
                default: (Paths.executable, ["--first-decode"])
                }
            let spawned = Clock.nanoseconds()
            let (status, output) = try ChildProcess.run(executable, arguments)
            let stamps = output.split(whereSeparator: \.isWhitespace).compactMap { UInt64($0) }
            let expected = kind < 2 ? steps.count + 1 : kind == 2 ? 2 : 3
            guard status == 0, stamps.count == expected, stamps[0] >= spawned,
                zip(stamps, stamps.dropFirst()).allSatisfy({ $0 <= $1 })
            else {
                throw BenchError("\(executable) \(arguments[0]) exited with \(status) and printed \(output)")
            }
            func milliseconds(_ from: UInt64, _ to: UInt64) -> Double { Double(to - from) / 1e6 }
            switch kind {
            case 0, 1:
                fromMain[kind].append(milliseconds(stamps[0], stamps[steps.count]))
                fromSpawn[kind].append(milliseconds(spawned, stamps[steps.count]))
                for step in steps.indices {
                    stepSamples[kind][step].append(milliseconds(stamps[step], stamps[step + 1]))
                }
            case 2:
                started.append(milliseconds(spawned, stamps[0]))
            default:
                firstDecode.append(milliseconds(stamps[0], stamps[1]))
                secondDecode.append(milliseconds(stamps[1], stamps[2]))
            }
        }
        func figures(_ samples: [Double]) -> String {
            String(format: "p50 %.3f ms, p99 %.3f ms", Stats.median(samples), Stats.quantile(samples, 0.99))
        }
        func breakdown(_ kind: Int) -> String {
            zip(steps, stepSamples[kind]).map { "\($0) " + String(format: "%.3f", Stats.median($1)) }
                .joined(separator: "; ")
        }
        let median = Stats.median(fromMain[0])
        return [
            InfoRow(
                group: "cold start",
                label:
                    "fresh process linking only MultiAuth: start of main → first authStates() element (\(processes) processes)",
                value: figures(fromMain[0]), goal: "< 2 ms", met: median < 2),
            InfoRow(group: "cold start", label: "the same, p50 ms per step", value: breakdown(0)),
            InfoRow(
                group: "cold start", label: "the same from posix_spawn (exec, loader, runtime start-up included)",
                value: figures(fromSpawn[0])),
            InfoRow(
                group: "cold start",
                label: "the same in the bench's executable (every module linked): start of main → first element",
                value: figures(fromMain[1])),
            InfoRow(group: "cold start", label: "the same, p50 ms per step", value: breakdown(1)),
            InfoRow(
                group: "cold start", label: "the same from posix_spawn", value: figures(fromSpawn[1])),
            InfoRow(
                group: "cold start", label: "the bench's executable only starting: posix_spawn → start of main",
                value: figures(started)),
            InfoRow(
                group: "cold start",
                label: "fresh process, no MultiAuth: first JSONDecoder decode of a two-field struct; then of another",
                value: figures(firstDecode) + "; " + figures(secondDecode)),
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
