// MultiAuthStoreHammer: one process of the two-process FileSessionStore test
// (Tests/MultiAuthTests/TwoProcessStoreTests.swift, Docs/Reliability.md "Session stores").
// Not a product; `swift build --build-tests` builds it next to the test bundle.
//
//   run --directory D --worker W --incarnation I --seed S --operations N --stop PATH --log PATH [--progress]
//       N seeded random operations on the store in D (N = 0: until the file PATH exists, and at
//       least 50). Appends each acknowledged write to the log ("cas <counter> .", "own <seq> .",
//       "own none .") after the store returned, and every violation ("V <what> ."); with
//       --progress writes one byte line to stdout per finished operation. Exit 0, or 2 after a
//       violation.
//   verify --directory D
//       Opens the store (which deletes leftover temporary files), loads every provider the
//       workers use and prints "counter <n|none>", "own-<w> <seq|none>", "scratch <ok|none>",
//       and "V <what>" for each violation. Exit 0, or 2 after a violation.
//
// Every session this tool writes is self-checking: its access token is
// "<provider>|<counter>|<writer>|<seq>", and its id, refresh token and a 2 KiB padding value
// are derived from that text, so a torn, mixed or foreign file is recognised.
import Foundation
import MultiAuth

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The providers the workers write: a shared counter (compare-and-set increments), a shared
/// scratch session (saves, conditional removals, compare-and-set), and one per worker.
enum Providers {
    static let counter: AuthProviderID = "counter"
    static let scratch: AuthProviderID = "scratch"
    static func own(_ worker: Int) -> AuthProviderID { AuthProviderID("own-\(worker)") }
}

/// The written sessions and their check.
enum Payload {
    static func digest(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return String(hash, radix: 16)
    }

    static func session(_ provider: AuthProviderID, counter: Int, writer: Int, seq: Int) -> AuthSession {
        let text = "\(provider)|\(counter)|\(writer)|\(seq)"
        let digest = digest(text)
        return AuthSession(
            id: "id-" + digest, provider: provider, user: AuthUser(id: "writer-\(writer)"),
            credentials: Credentials(
                accessToken: Secret(text), refreshToken: Secret("r-" + digest),
                expiresAt: Date(timeIntervalSince1970: 1_800_000_000 + Double(counter)),
                extra: ProviderState(["pad": Secret(String(repeating: digest, count: 2048 / digest.count + 1))])),
            createdAt: Date(timeIntervalSince1970: 1_700_000_000))
    }

    /// The (counter, writer, seq) of a legitimately written session of `provider`, or the
    /// reason it is not one.
    static func check(_ session: AuthSession, provider: AuthProviderID) -> Result<
        (counter: Int, writer: Int, seq: Int), Failure
    > {
        let parts = (session.credentials.accessToken?.reveal() ?? "").split(separator: "|").map(String.init)
        guard parts.count == 4, parts[0] == provider.rawValue, let counter = Int(parts[1]), let writer = Int(parts[2]),
            let seq = Int(parts[3])
        else { return .failure(Failure("\(provider): malformed access token")) }
        guard session == Self.session(provider, counter: counter, writer: writer, seq: seq) else {
            return .failure(Failure("\(provider): session does not match its own access token"))
        }
        return .success((counter, writer, seq))
    }

    struct Failure: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }
}

/// Appends whole lines to a file with single `write` calls (O_APPEND).
struct LineLog {
    let fd: Int32
    init(fd: Int32) { self.fd = fd }
    init(path: String) {
        fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        precondition(fd >= 0, "cannot open the log \(path)")
    }
    func append(_ line: String) {
        let bytes = Array((line + " .\n").utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }
}

func argument(_ name: String, in arguments: [String]) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("multiauth-store-hammer: \(message)\n".utf8))
    exit(64)
}

/// One worker's seeded operations.
struct Worker {
    let store: FileSessionStore
    let worker: Int
    let incarnation: Int
    let log: LineLog
    var random: SplitMix64
    var seq: Int
    var violations = 0

    init(store: FileSessionStore, worker: Int, incarnation: Int, seed: UInt64, log: LineLog) {
        self.store = store
        self.worker = worker
        self.incarnation = incarnation
        self.log = log
        random = SplitMix64(seed: seed)  // MultiAuth's package generator: a run is reproducible from its seed
        seq = incarnation * 1_000_000
    }

    mutating func violation(_ message: String) {
        violations += 1
        log.append("V " + message.replacingOccurrences(of: "\n", with: " "))
    }

    /// Loads `provider` and checks what is there; `nil` after a violation too.
    mutating func load(_ provider: AuthProviderID) async -> (session: AuthSession?, counter: Int)? {
        do {
            guard let session = try await store.load(for: provider) else { return (nil, 0) }
            switch Payload.check(session, provider: provider) {
            case .success(let fields): return (session, fields.counter)
            case .failure(let failure):
                violation(failure.message)
                return nil
            }
        } catch {
            violation("load \(provider) threw \(error)")
            return nil
        }
    }

    mutating func nextSession(_ provider: AuthProviderID, counter: Int) -> AuthSession {
        seq += 1
        return Payload.session(provider, counter: counter, writer: worker, seq: seq)
    }

    mutating func step() async {
        let own = Providers.own(worker)
        let roll = Int(random.next() % 100)
        do {
            switch roll {
            case 0..<40:  // a "refresh" of the shared counter: compare-and-set increment
                guard let current = await load(Providers.counter) else { return }
                let next = nextSession(Providers.counter, counter: current.counter + 1)
                if try await store.replace(current.session, with: next, for: Providers.counter) == .written {
                    log.append("cas \(current.counter + 1)")
                }
            case 40..<55:  // save of this worker's own session
                let next = nextSession(own, counter: 0)
                try await store.save(next)
                log.append("own \(seq)")
            case 55..<60:  // conditional removal of this worker's own session
                guard let current = await load(own)?.session else { return }
                if try await store.replace(current, with: nil, for: own) == .written { log.append("own none") }
            case 60..<72:
                try await store.save(nextSession(Providers.scratch, counter: 0))
            case 72..<80:
                guard let current = await load(Providers.scratch)?.session else { return }
                _ = try await store.replace(current, with: nil, for: Providers.scratch)
            case 80..<88:
                guard let current = await load(Providers.scratch) else { return }
                let next = nextSession(Providers.scratch, counter: 0)
                _ = try await store.replace(current.session, with: next, for: Providers.scratch)
            default:
                for provider in [Providers.counter, Providers.scratch, Providers.own(0), Providers.own(1)] {
                    _ = await load(provider)
                }
            }
        } catch {
            violation("operation \(roll) threw \(error)")
        }
    }
}

/// The `run` mode; returns the exit status.
func run(_ arguments: [String], directory: String) async -> Int32 {
    guard let worker = argument("--worker", in: arguments).flatMap(Int.init),
        let incarnation = argument("--incarnation", in: arguments).flatMap(Int.init),
        let seed = argument("--seed", in: arguments).flatMap(UInt64.init),
        let operations = argument("--operations", in: arguments).flatMap(Int.init),
        let stop = argument("--stop", in: arguments), let logPath = argument("--log", in: arguments)
    else { fail("run needs --worker --incarnation --seed --operations --stop --log") }
    let progress = arguments.contains("--progress")
    let log = LineLog(path: logPath)
    let leftovers = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
        .filter { $0.contains(".session.json.tmp-") }.count
    let store: FileSessionStore
    do { store = try FileSessionStore(directory: URL(fileURLWithPath: directory, isDirectory: true)) } catch {
        fail("cannot open the store: \(error)")
    }
    log.append("start leftovers \(leftovers)")
    var state = Worker(store: store, worker: worker, incarnation: incarnation, seed: seed, log: log)
    var done = 0
    // The test that started this worker may die (a crash elsewhere in the suite) without
    // writing the stop file: when this process is re-parented, the test is gone, so stop.
    let parent = getppid()
    while operations > 0 ? done < operations : (done < 50 || access(stop, F_OK) != 0) {
        if getppid() != parent {
            log.append("parent gone after \(done) operations")
            return 3
        }
        await state.step()
        done += 1
        if progress { _ = write(1, "p\n", 2) }
    }
    log.append("end operations \(done)")
    return state.violations == 0 ? 0 : 2
}

/// The `verify` mode; returns the exit status.
func verify(directory: String) async -> Int32 {
    let log = LineLog(fd: 1)
    let store: FileSessionStore
    do { store = try FileSessionStore(directory: URL(fileURLWithPath: directory, isDirectory: true)) } catch {
        fail("cannot open the store: \(error)")
    }
    var state = Worker(store: store, worker: -1, incarnation: 0, seed: 0, log: log)
    for provider in [Providers.counter, Providers.own(0), Providers.own(1), Providers.scratch] {
        guard let loaded = await state.load(provider) else { continue }
        let name = provider.rawValue
        guard let session = loaded.session else {
            log.append("\(name) none")
            continue
        }
        if provider == Providers.counter {
            log.append("\(name) \(loaded.counter)")
        } else if provider == Providers.scratch {
            log.append("\(name) ok")
        } else if case .success(let fields) = Payload.check(session, provider: provider) {
            log.append("\(name) \(fields.seq)")
        }
    }
    return state.violations == 0 ? 0 : 2
}

/// Dispatches on the mode.
func main(_ arguments: [String]) async -> Int32 {
    guard let mode = arguments.first, let directory = argument("--directory", in: arguments) else {
        fail("usage: run|verify --directory D …")
    }
    switch mode {
    case "run": return await run(arguments, directory: directory)
    case "verify": return await verify(directory: directory)
    default: fail("unknown mode \(mode)")
    }
}

exit(await main(Array(CommandLine.arguments.dropFirst())))
