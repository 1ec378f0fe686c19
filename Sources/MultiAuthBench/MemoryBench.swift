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

/// Time from `AuthClient` creation with a stored session to the first `authStates()` element.
enum ColdStartBench {
    static func run(repeats: Int) async throws -> [InfoRow] {
        let directory = try Paths.temporaryDirectory("cold")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try FileSessionStore(directory: directory)
        var session = StoreBench.session()
        session.provider = "cold"
        try await store.save(session)
        var samples: [Double] = []
        for _ in 0..<max(repeats * 20, 100) {
            let start = Clock.nanoseconds()
            let client = try AuthClient(
                providers: [ColdProvider()], store: try FileSessionStore(directory: directory), transport: NoTransport()
            )
            var iterator = client.authStates().makeAsyncIterator()
            guard let first = await iterator.next(), case .initialState(let state) = first.kind,
                state.sessions["cold"] != nil
            else {
                fatalError("cold start did not yield the stored session")
            }
            samples.append(Double(Clock.nanoseconds() - start) / 1e6)
        }
        let median = Stats.median(samples)
        return [
            InfoRow(
                group: "cold start", label: "AuthClient with a stored session → first authStates() element",
                value: String(format: "p50 %.3f ms, p99 %.3f ms", median, Stats.quantile(samples, 0.99)),
                goal: "< 2 ms", met: median < 2)
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
