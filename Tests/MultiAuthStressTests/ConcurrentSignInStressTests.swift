import Foundation
import MultiAuth
import MultiAuthSandbox
import Testing

/// 2,000 concurrent sign-ins across every provider through one sandbox with random faults.
///
/// Set-up: one `Sandbox` (seeded) hosting every backend (Dynamic, Truecaller, Portal, OTPLESS); one `AuthClient` per user, each with
/// every provider, so a client runs one flow per provider at the same time (a client keeps one
/// pending flow per provider, Docs/Architecture.md, "Invariants", 3) and all flows of all clients run concurrently.
/// Faults: random 503s, dropped connections and 2 s latency on every host, 502s on
/// Truecaller's profile step (after the code was accepted), failed deliveries for some
/// destinations, failed first session writes for some clients, and one wrong code first for
/// some flows. Latency and back-off are slept on the `ManualClock`, which ``ClockDriver``
/// advances only while every unfinished flow sleeps on it.
///
/// Asserts: every flow ends in a session or a typed `AuthError`; the stores hold exactly the
/// sessions the flows reported (one successful save each, none for failed flows, no session
/// id or token twice); every subscriber (a `RecordingSubscriber`, a raw `AuthEventStream` and
/// an `authStates()` stream per client) saw the same events in publish order with consecutive
/// sequence numbers, no drops, one `signedIn` per reported session and nothing of a flow after
/// its `signedIn`.
@Suite(.timeLimit(.minutes(10)))
struct ConcurrentSignInStressTests {
    static let flowCount = ProcessInfo.processInfo.environment["MULTIAUTH_STRESS_FLOWS"].flatMap(Int.init) ?? 2_000
    static let seed: UInt64 = 10

    /// What the faults did, for the summary line.
    struct FaultCounts {
        var http503 = 0, http502 = 0, dropped = 0, latency = 0, deliveryFailures = 0, storageFailures = 0
    }

    @Test func twoThousandConcurrentSignInsWithRandomFaults() async throws {
        let started = ContinuousClock.now
        let world = try StressWorld(seed: Self.seed)
        let sandbox = world.sandbox
        let lanes = world.lanes
        let clientCount = (Self.flowCount + lanes.count - 1) / lanes.count
        var random = SeededRandomNumberGenerator(seed: Self.seed)

        // Faults on every host, drawn from the sandbox's seeded fault generator.
        let http503 = sandbox.faults.add(.jsonStatus(503), probability: 0.04)
        let dropped = sandbox.faults.add(.dropConnection, probability: 0.03)
        let latency = sandbox.faults.add(.latency(.seconds(2)), probability: 0.05)
        let http502 = sandbox.faults.add(
            .jsonStatus(502), host: TruecallerBackend.defaultHost, pathPrefix: "/v1/profile", probability: 0.05)

        // Clients, stores (some failing their first write), subscribers registered before any flow.
        var clients: [AuthClient] = []
        var stores: [LedgerStore] = []
        var recorders: [RecordingSubscriber] = []
        var rawStreams: [AuthEventStream] = []
        var stateStreams: [AuthEventStream] = []
        for _ in 0..<clientCount {
            let store = LedgerStore(failingFirstSaves: Double.random(in: 0..<1, using: &random) < 0.04 ? 1 : 0)
            let client = try sandbox.makeClient(
                providers: try lanes.map { try $0.makeProvider(clients.count) }, store: store)
            clients.append(client)
            stores.append(store)
            recorders.append(RecordingSubscriber(client: client, bufferCapacity: 8_192))
            rawStreams.append(client.events.subscribe(bufferCapacity: 8_192))
            stateStreams.append(client.authStates(bufferCapacity: 8_192))
        }

        // Flows: flow i is lane i % lanes.count of client i / lanes.count.
        struct Plan {
            let client: Int
            let lane: Int
            let slot: Int
            let wrongCodeFirst: Bool
        }
        var plans: [Plan] = []
        var deliveryRules: [FaultRuleID] = []
        for index in 0..<Self.flowCount {
            let plan = Plan(
                client: index / lanes.count, lane: index % lanes.count, slot: index / lanes.count,
                wrongCodeFirst: Double.random(in: 0..<1, using: &random) < 0.05)
            plans.append(plan)
            if Double.random(in: 0..<1, using: &random) < 0.08 {
                let lane = lanes[plan.lane]
                let channel: DeliveryChannel = lane.destination(plan.slot).contains("@") ? .email : .sms
                deliveryRules.append(
                    sandbox.faults.failDelivery(on: channel, destination: lane.destination(plan.slot), repeat: .once))
            }
        }

        // OTPLESS status pollers sleep on the clock too; the driver does not count them as flows.
        let driver = ClockDriver(clock: sandbox.clock, flows: plans.count, background: { world.backgroundSleepers })
        var reports: [FlowReport] = []
        var recorded: [[AuthEvent]] = []
        var raw: [[AuthEvent]] = []
        var states: [[AuthEvent]] = []
        // Consumers of the raw and authStates streams run in this group until the buses finish.
        await withTaskGroup(of: (kind: Int, client: Int, events: [AuthEvent]).self) { consumers in
            for client in 0..<clientCount {
                let rawStream = rawStreams[client]
                let stateStream = stateStreams[client]
                consumers.addTask { (0, client, await Self.collect(rawStream)) }
                consumers.addTask { (1, client, await Self.collect(stateStream)) }
            }
            reports = await withTaskGroup(of: FlowReport?.self) { flows in
                flows.addTask {
                    await driver.run()
                    return nil
                }
                for plan in plans {
                    let lane = lanes[plan.lane]
                    let client = clients[plan.client]
                    flows.addTask {
                        var flow = FlowDriver(
                            world: world, lane: lane, client: client, slot: plan.slot,
                            wrongCodeFirst: plan.wrongCodeFirst)
                        let report = await flow.run()
                        driver.flowEnded()
                        return report
                    }
                }
                var reports: [FlowReport] = []
                for await report in flows { if let report { reports.append(report) } }
                return reports
            }
            for client in clients { client.events.finish() }
            raw = Array(repeating: [], count: clientCount)
            states = Array(repeating: [], count: clientCount)
            for await result in consumers {
                if result.kind == 0 {
                    raw[result.client] = result.events
                } else {
                    states[result.client] = result.events
                }
            }
        }
        for recorder in recorders { recorded.append(await recorder.waitFor(count: Int.max)) }

        // 1. Every flow ends in a session or a typed AuthError.
        #expect(reports.count == plans.count)
        var outcomes: [String: Int] = [:]
        for report in reports {
            switch report.outcome {
            case .signedIn: outcomes["signedIn", default: 0] += 1
            case .failed(let error): outcomes[error.code.rawValue, default: 0] += 1
            case .unexpected(let what):
                outcomes["unexpected", default: 0] += 1
                Issue.record("\(report.provider) slot \(report.slot): \(what)")
            }
        }
        let successes = outcomes["signedIn", default: 0]
        #expect(successes * 100 >= plans.count * 95, "at least 95 % of flows sign in despite the faults: \(outcomes)")

        // 2. No session lost or duplicated: the stores hold exactly what the flows reported.
        let byClient = Dictionary(grouping: reports) { $0.slot }
        var sessionIDs = Set<String>()
        var tokens = Set<String>()
        var injectedStorageFailures = 0
        for (client, store) in stores.enumerated() {
            injectedStorageFailures += await store.injectedFailures
            for report in byClient[client] ?? [] {
                let stored = try await store.load(for: report.provider)
                let saves = await store.saves(for: report.provider)
                if let session = report.session {
                    #expect(
                        stored == session, "client \(client) \(report.provider): the stored session is the returned one"
                    )
                    #expect(
                        saves.count == 1, "client \(client) \(report.provider): saved once, not \(saves.count) times")
                    #expect(sessionIDs.insert(session.id).inserted, "session id used twice")
                    if let token = session.credentials.accessToken?.reveal() {
                        #expect(tokens.insert(token).inserted, "access token issued twice")
                    }
                } else {
                    #expect(
                        stored == nil && saves.isEmpty,
                        "client \(client) \(report.provider): a failed flow stored nothing")
                }
            }
        }

        // 3. Every subscriber saw every event, in order, consecutive sequence numbers, no drops.
        var eventTotal = 0
        for client in 0..<clientCount {
            let last = clients[client].events.currentSequence
            eventTotal += Int(last)
            let expected: [UInt64] = last == 0 ? [] : Array(1...last)
            #expect(recorded[client].map(\.sequence) == expected, "client \(client): recorder sequence")
            #expect(raw[client].map(\.sequence) == expected, "client \(client): raw stream sequence")
            #expect(
                states[client].first?.kind.name == "initialState", "client \(client): authStates starts with the state")
            #expect(states[client].dropFirst().map(\.sequence) == expected, "client \(client): authStates sequence")
            #expect(rawStreams[client].droppedCount == 0 && stateStreams[client].droppedCount == 0)
            #expect(raw[client].map(\.kind.name) == recorded[client].map(\.kind.name))
            try checkFlows(raw[client], reports: byClient[client] ?? [], client: client)
        }

        // Summary (the numbers in Docs/Reliability.md come from this line).
        var faults = FaultCounts()
        faults.http503 = sandbox.faults.fireCount(for: http503)
        faults.http502 = sandbox.faults.fireCount(for: http502)
        faults.dropped = sandbox.faults.fireCount(for: dropped)
        faults.latency = sandbox.faults.fireCount(for: latency)
        faults.deliveryFailures = deliveryRules.reduce(0) { $0 + sandbox.faults.fireCount(for: $1) }
        faults.storageFailures = injectedStorageFailures
        let retries = reports.reduce(0) { $0 + $1.retries }
        let restarts = reports.reduce(0) { $0 + $1.restarts }
        let resends = reports.reduce(0) { $0 + $1.resends }
        let wrong = reports.reduce(0) { $0 + $1.wrongCodes }
        let reasons = Dictionary(grouping: reports.flatMap(\.restartReasons)) { $0 }.mapValues(\.count)
        let perProvider = Dictionary(grouping: reports) { $0.provider.rawValue }.mapValues { group in
            "\(group.filter { $0.session != nil }.count)/\(group.count)"
        }
        print(
            """
            stress: \(plans.count) flows, \(clientCount) clients, \(sandbox.requestCount) requests, \(eventTotal) events × 3 subscribers; \
            outcomes \(outcomes.sorted { $0.key < $1.key }); per provider \(perProvider.sorted { $0.key < $1.key }); \
            faults 503=\(faults.http503) 502=\(faults.http502) dropped=\(faults.dropped) latency=\(faults.latency) \
            undelivered=\(faults.deliveryFailures) storage=\(faults.storageFailures); \
            retries=\(retries) restarts=\(restarts) \(reasons.sorted { $0.key < $1.key }) resends=\(resends) wrongCodes=\(wrong); \
            clock advanced \(driver.advances) s; \(started.duration(to: .now))
            """)
        #expect(faults.http503 > 0 && faults.dropped > 0 && faults.latency > 0 && faults.deliveryFailures > 0)
    }

    /// Every element of `stream` until it ends.
    static func collect(_ stream: AuthEventStream) async -> [AuthEvent] {
        var events: [AuthEvent] = []
        for await event in stream { events.append(event) }
        return events
    }

    /// Per-flow event order on one client: a flow starts with `flowStarted`, has at most one
    /// `signedIn` and nothing after it; each provider has one `signedIn` iff its flow reported a
    /// session, carrying that session.
    func checkFlows(_ events: [AuthEvent], reports: [FlowReport], client: Int) throws {
        var seenFlows = Set<FlowID>()
        var finished = Set<FlowID>()
        for event in events {
            guard let flow = event.flowID else { continue }
            #expect(!finished.contains(flow), "client \(client): \(event.kind.name) after the flow signed in")
            if seenFlows.insert(flow).inserted {
                #expect(event.kind.name == "flowStarted", "client \(client): a flow began with \(event.kind.name)")
            }
            if case .signedIn = event.kind { finished.insert(flow) }
        }
        for report in reports {
            let signedIn = events.compactMap { event -> AuthSession? in
                if case .signedIn(let session) = event.kind, event.provider == report.provider { session } else { nil }
            }
            if let session = report.session {
                #expect(
                    signedIn == [session], "client \(client) \(report.provider): one signedIn with the returned session"
                )
            } else {
                #expect(signedIn.isEmpty, "client \(client) \(report.provider): no signedIn for a failed flow")
            }
        }
    }
}
