import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthSandboxRuntime
import MultiAuthServer
import MultiAuthSpawn
import MultiAuthTestKeys
import MultiAuthTruecaller
import Testing

/// Against a real Redis (Docs/Testing.md, "Redis"): the store kit; 8 verifier processes racing
/// for the same TOTP code, Truecaller nonce, OTPLESS token, single-use JWT and one-time link
/// (exactly one accepts, every round); a fleet-wide attempt limit; and Redis killed and
/// restarted in the middle of verifications. Skipped, with a message, without Redis.
@Suite(.timeLimit(.minutes(10)))  // hang guard only
struct RedisFleetTests {
    static var rounds: Int {
        ProcessInfo.processInfo.environment["MULTIAUTH_FLEET_ROUNDS"].flatMap(Int.init) ?? 20
    }

    @Test(.enabled(if: RedisTestEnvironment.url != nil, RedisTestEnvironment.urlMissing))
    func theRedisStoresPassTheStoreKit() async throws {
        let client = RedisClient(configuration: try RedisConfiguration(url: try #require(RedisTestEnvironment.url)))
        defer { client.close() }
        let store = RedisReplayStore(client: client)
        let down = RedisClient(
            configuration: RedisConfiguration(host: "127.0.0.1", port: try FakeRedisServer.closedPort()))
        let subject = StoreConformanceSubject(
            name: "redis", replayStore: store, attemptLimiter: RedisAttemptLimiter(client: client),
            time: .server(remainingTTL: { try await store.remainingTTL(of: $0) }),
            unavailable: .init(
                replayStore: RedisReplayStore(client: down), attemptLimiter: RedisAttemptLimiter(client: down)))
        let report = await StoreConformance.run(subject)
        print(report.renderTable())
        #expect(report.isConforming, "\(report.failed)")
        #expect(report.skipped.isEmpty)
    }

    @Test(.enabled(if: RedisTestEnvironment.url != nil, RedisTestEnvironment.urlMissing))
    func selectKeepsDatabasesApart() async throws {
        var configuration = try RedisConfiguration(url: try #require(RedisTestEnvironment.url))
        configuration.database = 3
        let three = RedisClient(configuration: configuration)
        configuration.database = 4
        let four = RedisClient(configuration: configuration)
        defer {
            three.close()
            four.close()
        }
        let key = try StoreKeyspace.default.key("select", UUID().uuidString)
        #expect(try await RedisReplayStore(client: three).consumeOnce(key: key, ttl: .seconds(60)))
        #expect(try await RedisReplayStore(client: four).consumeOnce(key: key, ttl: .seconds(60)))
        #expect(!(try await RedisReplayStore(client: three).consumeOnce(key: key, ttl: .seconds(60))))
    }

    @Test(.enabled(if: RedisTestEnvironment.url != nil, RedisTestEnvironment.urlMissing))
    func eightProcessesRacingAcceptEachCodeNonceAndTokenExactlyOnce() async throws {
        let url = try #require(RedisTestEnvironment.url)
        let racers = try #require(Racers.locate(), "MultiAuthFleetRacer is not next to the test bundle")
        let rounds = Self.rounds
        let outcome = try await onThread { try Racers.race(binary: racers, url: url, processes: 8, rounds: rounds) }
        print(
            "fleet race: \(outcome.processes) processes × \(outcome.races) races (\(rounds) rounds × 5 kinds): "
                + "\(outcome.acceptances) acceptances, \(outcome.replays) replays refused, "
                + "\(outcome.other.count) other outcomes; fleet-wide limit: \(outcome.limitRounds) rounds of 8 × 10 hits "
                + "at limit 7, allowed per round \(outcome.allowedPerLimitRound)")
        #expect(outcome.other.isEmpty, "\(outcome.other.prefix(10))")
        #expect(outcome.roundsWithoutExactlyOneAcceptance.isEmpty, "\(outcome.roundsWithoutExactlyOneAcceptance)")
        #expect(outcome.acceptances == outcome.races)
        #expect(outcome.replays == outcome.races * (outcome.processes - 1))
        #expect(outcome.allowedPerLimitRound == Array(repeating: 7, count: outcome.limitRounds))
    }

    @Test(.enabled(if: RedisTestEnvironment.serverBinary != nil, RedisTestEnvironment.binaryMissing))
    func anOutageRefusesEveryVerificationAndNothingIsAcceptedTwiceAfterIt() async throws {
        let server = try RedisServerProcess(
            binary: try #require(RedisTestEnvironment.serverBinary), port: try FakeRedisServer.closedPort(),
            password: "outage-\(UUID().uuidString.prefix(8))")
        defer { server.stop() }
        try await onThread { try server.start() }
        let backoff = ManualClock()  // the client's reconnect back-off: moved by the test, never waited for
        let clock = ManualClock()  // the verifiers' time
        let client = RedisClient(configuration: try RedisConfiguration(url: server.url), clock: backoff)
        defer { client.close() }
        let fleet = FleetVerifiers(redis: client, time: clock.timeSource)
        let world = try OutageWorld(fleet: fleet, clock: clock)

        // Up: every item accepted once.
        let before = (0..<10).flatMap { world.items(prefix: "a\($0)") }
        for item in before { #expect(try await world.verify(item) == .accepted, "\(item)") }

        // Down (SIGKILL): every verification is the retryable refusal, known items and new ones alike.
        try await onThread { server.kill() }
        let during = (0..<10).flatMap { world.items(prefix: "b\($0)") }
        var outageOutcomes: [OutageWorld.OutageOutcome: Int] = [:]
        for item in before + during { outageOutcomes[try await world.verify(item), default: 0] += 1 }
        #expect(outageOutcomes == [.unavailable: before.count + during.count], "\(outageOutcomes)")

        // Back (AOF replayed): the items accepted before are replays; the ones refused during the
        // outage were not burned and are accepted now, once.
        try await onThread { try server.start() }
        backoff.advance(by: .seconds(3))  // past the longest back-off
        try await client.ping()
        for item in before { #expect(try await world.verify(item) == .replay, "\(item)") }
        for item in during { #expect(try await world.verify(item) == .accepted, "\(item)") }
        for item in during { #expect(try await world.verify(item) == .replay, "\(item)") }

        // Killed under load: four workers verify fresh items; the server dies after 40
        // acceptances. Whatever happened to the commands in flight, no item is accepted twice.
        let load = (0..<60).map { world.link("c\($0)") }
        let killer = KillSwitch(after: 40) { server.kill() }
        let firstPass = try await world.verifyConcurrently(load, workers: 4, killSwitch: killer)
        let acceptedBefore = Set(firstPass.filter { $0.value == .accepted }.map(\.key))
        #expect(acceptedBefore.count >= 40)
        #expect(firstPass.values.allSatisfy { $0 == .accepted || $0 == .unavailable }, "\(firstPass)")
        try await onThread { try server.start() }
        backoff.advance(by: .seconds(3))
        try await client.ping()
        var acceptedAfter = 0
        var unknownButApplied = 0
        for item in load {
            let outcome = try await world.verify(item)
            if acceptedBefore.contains(item) {
                #expect(outcome == .replay, "\(item) was accepted a second time")
            } else if outcome == .accepted {
                acceptedAfter += 1
            } else {
                // Applied by Redis while its reply was lost in the kill: refused, never accepted twice.
                #expect(outcome == .replay)
                unknownButApplied += 1
            }
        }
        #expect(acceptedBefore.count + acceptedAfter + unknownButApplied == load.count)
        print(
            "outage: \(before.count) items accepted before the kill; \(before.count + during.count) verifications during "
                + "the outage, 0 accepted (all storageUnavailable); after the restart \(before.count) replays refused, "
                + "\(during.count) accepted once; kill under load: \(acceptedBefore.count) accepted before, "
                + "\(acceptedAfter) after, \(unknownButApplied) applied with their reply lost, 0 accepted twice")
    }
}

/// Runs blocking work (pipes, processes) on a thread of its own.
func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// Kills the server once `count` acceptances were counted.
final class KillSwitch: @unchecked Sendable {
    private let lock = NSLock()
    private var remaining: Int
    private let action: @Sendable () -> Void

    init(after count: Int, action: @escaping @Sendable () -> Void) {
        remaining = count
        self.action = action
    }

    func accepted() {
        let fire = lock.withLock {
            remaining -= 1
            return remaining == 0
        }
        if fire { action() }
    }
}

/// The verifiers of the outage test and one item of each kind per name.
struct OutageWorld: Sendable {
    enum OutageOutcome: Hashable, Sendable, CustomStringConvertible {
        case accepted, replay, unavailable
        case other(String)
        var description: String {
            switch self {
            case .accepted: "accepted"
            case .replay: "replay"
            case .unavailable: "unavailable"
            case .other(let text): text
            }
        }
    }

    enum Item: Hashable, Sendable {
        case totp(account: String)
        case nonce(String)
        case link(String)
    }

    let fleet: FleetVerifiers
    let clock: ManualClock
    let totp: TOTPVerifier
    let secret = try! TOTP(secret: Array("12345678901234567890".utf8))
    let truecaller: TruecallerProfileVerifier
    let keys: ScriptedTransport
    let run = UUID().uuidString.prefix(8)

    init(fleet: FleetVerifiers, clock: ManualClock) throws {
        self.fleet = fleet
        self.clock = clock
        totp = try fleet.totp(attemptLimit: .init(attempts: 100, window: .seconds(900)))
        truecaller = fleet.truecallerProfile(
            configuration: TruecallerConfiguration(
                appKey: "k", appLink: URL(string: "https://app.example.com/tc")!,
                baseURL: URL(string: "https://truecaller.stub.test")!, deviceID: "d"))
        let body = try JSONSerialization.data(withJSONObject: [
            ["key": Base64.encode(try TestKeys.rsaA.publicKey.derRepresentation()), "keyType": "RSA"]
        ])
        keys = ScriptedTransport { _ in
            HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: body)
        }
    }

    func items(prefix: String) -> [Item] {
        [.totp(account: "\(run)-\(prefix)"), .nonce("\(run)-\(prefix)"), link(prefix)]
    }

    func link(_ name: String) -> Item { .link("\(run)-\(name)") }

    func verify(_ item: Item) async throws -> OutageOutcome {
        do {
            switch item {
            case .totp(let account):
                let now = Int64(clock.wallNow.timeIntervalSince1970)
                _ = try await totp.verify(try secret.code(at: now), for: secret, account: account)
            case .nonce(let nonce):
                let json: [String: Any] = [
                    "firstName": "A", "lastName": "B", "phoneNumber": "+919876543210", "countryCode": "IN",
                    "requestNonce": nonce, "requestTime": Int(clock.wallNow.timeIntervalSince1970),
                ]
                let payload = Base64.encode(try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys]))
                let signature = try TestKeys.rsaA.signature(for: Array(payload.utf8), algorithm: .rs512)
                let response = TruecallerProfileResponse(
                    payload: payload, signature: Base64.encode(signature), signatureAlgorithm: "SHA512withRSA",
                    requestNonce: nonce)
                _ = try await truecaller.verify(
                    response, expectedNonce: nonce, context: AuthContext(transport: keys, time: clock.timeSource))
            case .link(let token):
                let store = fleet.replayStore
                let first = try await TOTPVerifierStoreCall.run {
                    try await store.consumeOnce(key: try store.keyspace.key("link", token), ttl: .seconds(600))
                }
                return first ? .accepted : .replay
            }
            return .accepted
        } catch let error as AuthError {
            switch error.code {
            case .codeAlreadyUsed: return .replay
            case .storageUnavailable where error.isRetryable: return .unavailable
            default: return .other(error.code.rawValue)
            }
        }
    }

    func verifyConcurrently(_ items: [Item], workers: Int, killSwitch: KillSwitch) async throws -> [Item: OutageOutcome]
    {
        try await withThrowingTaskGroup(of: [(Item, OutageOutcome)].self) { group in
            for worker in 0..<workers {
                let mine = items.enumerated().filter { $0.offset % workers == worker }.map(\.element)
                group.addTask {
                    var results: [(Item, OutageOutcome)] = []
                    for item in mine {
                        let outcome = try await verify(item)
                        if outcome == .accepted { killSwitch.accepted() }
                        results.append((item, outcome))
                    }
                    return results
                }
            }
            var all: [Item: OutageOutcome] = [:]
            for try await results in group { for (item, outcome) in results { all[item] = outcome } }
            return all
        }
    }
}

/// A raw store call with the verifiers' error mapping (`storageUnavailable`).
enum TOTPVerifierStoreCall {
    static func run<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as StoreUnavailableError {
            throw AuthError(.storageUnavailable, "store unavailable", underlying: error)
        }
    }
}

/// 8 `MultiAuthFleetRacer` processes on one Redis, driven line by line over pipes.
struct Racers {
    struct RaceOutcome: Sendable {
        var processes = 0
        var races = 0
        var acceptances = 0
        var replays = 0
        var other: [String] = []
        var roundsWithoutExactlyOneAcceptance: [String] = []
        var limitRounds = 0
        var allowedPerLimitRound: [Int] = []
    }

    /// The racer binary, built next to the test bundle.
    static func locate() -> URL? {
        var directories: [URL] = []
        if let executable = Bundle.main.executableURL { directories.append(executable.deletingLastPathComponent()) }
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            directories.append(bundle.bundleURL.deletingLastPathComponent())
        }
        directories.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        return directories.map { $0.appendingPathComponent("MultiAuthFleetRacer") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// One process and its line reader.
    final class RacerProcess {
        let process: SpawnedProcess
        let input: FileHandle
        let output: FileHandle
        private var buffer = Data()

        init(binary: URL, url: String) throws {
            process = try SpawnedProcess(
                executable: binary.path, arguments: ["--redis", url], standardInput: .pipe, standardOutput: .pipe)
            input = try #require(process.standardInput)
            output = try #require(process.standardOutput)
        }

        func send(_ line: String) { input.write(Data((line + "\n").utf8)) }

        func readLine() -> String? {
            while true {
                if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                    buffer.removeSubrange(buffer.startIndex...newline)
                    return line
                }
                let chunk = output.availableData
                if chunk.isEmpty { return nil }
                buffer.append(chunk)
            }
        }

        func stop() {
            try? input.close()
            _ = process.wait()
        }
    }

    static func race(binary: URL, url: String, processes: Int, rounds: Int) throws -> RaceOutcome {
        let racers = try (0..<processes).map { _ in try RacerProcess(binary: binary, url: url) }
        defer { for racer in racers { racer.stop() } }
        for racer in racers {
            guard racer.readLine() == "ready" else { throw POSIXError(.ECONNREFUSED) }
        }
        var outcome = RaceOutcome(processes: processes)
        let run = UUID().uuidString.prefix(8)
        let now = 1_700_000_000
        for round in 0..<rounds {
            let commands = [
                "totp \(run)-\(round) \(now + 30 * round)", "nonce \(run)-\(round) \(now)", "otpless \(run)-\(round)",
                "jti \(run)-\(round) \(now)", "link \(run)-\(round)",
            ]
            for command in commands {
                // The same line to every process back to back; they verify at the same moment.
                for racer in racers { racer.send(command) }
                let answers = racers.map { $0.readLine() ?? "R eof" }
                outcome.races += 1
                let accepted = answers.filter { $0 == "R accepted" }.count
                outcome.acceptances += accepted
                outcome.replays += answers.filter { $0 == "R replay" }.count
                outcome.other += answers.filter { $0 != "R accepted" && $0 != "R replay" }.map { "\(command): \($0)" }
                if accepted != 1 { outcome.roundsWithoutExactlyOneAcceptance.append("\(command): \(accepted)") }
            }
        }
        for round in 0..<5 {
            for racer in racers { racer.send("hits \(run)-limit-\(round) 10 7") }
            let allowed = racers.compactMap { $0.readLine().flatMap { Int($0.dropFirst(2)) } }.reduce(0, +)
            outcome.allowedPerLimitRound.append(allowed)
            outcome.limitRounds += 1
        }
        return outcome
    }
}

/// A Redis store written the wrong way — `GET`, then `SET` in a second round trip — must fail
/// the kit against the real server too (the planted non-atomic implementation).
@Suite(.timeLimit(.minutes(10)))  // hang guard only
struct RedisCheckThenSetTests {
    struct CheckThenSetRedisStore: ReplayStore {
        let client: RedisClient

        func consumeOnce(key: StoreKey, ttl: Duration) async throws -> Bool {
            let milliseconds = String(try ReplayStoreLimits.milliseconds(ttl, name: "ttl"))
            guard try await client.send([["GET", key.storageKey]]) == [.bulkString(nil)] else { return false }
            _ = try await client.send([["SET", key.storageKey, "1", "PX", milliseconds]])
            return true
        }

        func advance(key: StoreKey, to step: UInt64, ttl: Duration) async throws -> Bool {
            let milliseconds = String(try ReplayStoreLimits.milliseconds(ttl, name: "ttl"))
            let stored = try await client.send([["GET", key.storageKey]])
            if case .bulkString(let bytes?) = stored.first, let last = UInt64(String(decoding: bytes, as: UTF8.self)),
                last >= step
            {
                return false
            }
            _ = try await client.send([["SET", key.storageKey, String(step), "PX", milliseconds]])
            return true
        }
    }

    @Test(.enabled(if: RedisTestEnvironment.url != nil, RedisTestEnvironment.urlMissing))
    func aCheckThenSetRedisStoreFailsTheKit() async throws {
        let client = RedisClient(configuration: try RedisConfiguration(url: try #require(RedisTestEnvironment.url)))
        defer { client.close() }
        let planted = CheckThenSetRedisStore(client: client)
        let report = await StoreConformance.run(
            StoreConformanceSubject(
                name: "redis check-then-set", replayStore: planted, attemptLimiter: RedisAttemptLimiter(client: client),
                time: .server(remainingTTL: { try await RedisReplayStore(client: client).remainingTTL(of: $0) })),
            checks: [.consumeOnceAcceptsOnce, .consumeOnceIsAtomic, .advanceOnlyMovesForward, .advanceIsAtomic])
        let caught = Set(report.failed.map(\.id)) == ["S02", "S05"]
        if caught {
            print("the store kit caught the planted check-then-set Redis store, as expected: S02 and S05 refuse it")
        }
        #expect(caught, "\(report.renderTable())")
    }
}
