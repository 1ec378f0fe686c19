import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthSandbox
import Synchronization

/// One sandbox hosting every provider's emulated backend on one `ManualClock`, and the lanes
/// that drive them.
final class StressWorld: Sendable {
    /// One RSA key for every Dynamic backend (key generation is the slow part of set-up).
    static let dynamicSigningKey: PrivateKey = try! PrivateKey.generateRSA(bits: 2048)

    let sandbox: Sandbox
    let dynamic: DynamicBackend
    let truecaller: TruecallerBackend
    let portal: PortalBackend

    init(seed: UInt64) throws {
        sandbox = Sandbox(seed: seed)
        dynamic = DynamicBackend(signingKey: Self.dynamicSigningKey)
        truecaller = try TruecallerBackend(acceptedAppKeys: ["stress-key"])
        portal = try PortalBackend()
        sandbox.register(dynamic, host: DynamicBackend.defaultHost)
        sandbox.register(truecaller, host: TruecallerBackend.defaultHost)
        sandbox.register(portal, host: PortalBackend.defaultHost)
    }

    /// Every provider the tests drive, in a fixed order. Add new adapters here.
    var lanes: [StressLane] { [.dynamic(self), .truecaller(self), .portal(self)] }

    var clock: ManualClock { sandbox.clock }

    func lane(_ id: AuthProviderID) -> StressLane { lanes.first { $0.id == id }! }
}

/// A session store that keeps a ledger of every save (for "no session lost or duplicated")
/// and can fail its first saves (invariant 2: the same submit again only finishes the write).
actor LedgerStore: SessionStore {
    private var sessions: [AuthProviderID: AuthSession] = [:]
    private var failuresLeft: Int
    /// Every successful save, in order.
    private(set) var saves: [AuthSession] = []
    /// How many saves failed on purpose.
    private(set) var injectedFailures = 0

    init(failingFirstSaves: Int = 0) { failuresLeft = failingFirstSaves }

    func load(for provider: AuthProviderID) throws -> AuthSession? { sessions[provider] }

    func save(_ session: AuthSession) throws {
        if failuresLeft > 0 {
            failuresLeft -= 1
            injectedFailures += 1
            throw AuthError(.storageFailure, "stress: injected write failure", provider: session.provider)
        }
        sessions[session.provider] = session
        saves.append(session)
    }

    func remove(for provider: AuthProviderID) throws { sessions[provider] = nil }

    func removeAll() throws { sessions.removeAll() }

    func saves(for provider: AuthProviderID) -> [AuthSession] { saves.filter { $0.provider == provider } }
}

/// Advances the manual clock only when every unfinished flow is asleep on it (quiescence), one
/// second at a time, so latency faults and retry back-offs pass without real sleeping and time
/// never runs ahead of flows that still have work to do.
final class ClockDriver: Sendable {
    let clock: ManualClock
    private let active: Atomic<Int>
    private let advanced = Atomic<Int>(0)

    init(clock: ManualClock, flows: Int) {
        self.clock = clock
        active = Atomic(flows)
    }

    /// Called by each flow when it ends (session or error).
    func flowEnded() { active.subtract(1, ordering: .sequentiallyConsistent) }

    /// Seconds the clock was advanced.
    var advances: Int { advanced.load(ordering: .relaxed) }

    /// Runs until every flow ended. Yields between checks; never sleeps in real time.
    func run(step: Duration = .seconds(1)) async {
        while true {
            let remaining = active.load(ordering: .sequentiallyConsistent)
            if remaining <= 0 { return }
            let sleepers = clock.sleeperCount
            if sleepers > 0 && sleepers >= remaining {
                clock.advance(by: step)
                advanced.add(1, ordering: .relaxed)
            }
            await Task.yield()
        }
    }
}
