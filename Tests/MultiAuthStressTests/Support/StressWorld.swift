import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthOTPless
import MultiAuthSandbox
import MultiAuthTestKeys
import Synchronization

/// One sandbox hosting every provider's emulated backend on one `ManualClock`, and the lanes
/// that drive them.
final class StressWorld: Sendable {
    /// One RSA key for every Dynamic backend (key generation is the slow part of set-up).
    static let dynamicSigningKey: PrivateKey = TestKeys.rsaA

    let sandbox: Sandbox
    let dynamic: DynamicBackend
    let truecaller: TruecallerBackend
    let portal: PortalBackend
    let otpless: OTPlessBackend
    /// Every `OTPlessProvider` the OTPLESS lane made, for ``backgroundSleepers``; guarded by
    /// ``otplessLock`` (a pthread lock ThreadSanitizer sees; it cannot see `Mutex`'s futex).
    nonisolated(unsafe) private var otplessProviders: [OTPlessProvider] = []
    private let otplessLock = NSLock()

    init(seed: UInt64) throws {
        sandbox = Sandbox(seed: seed)
        dynamic = DynamicBackend(signingKey: Self.dynamicSigningKey)
        truecaller = try TruecallerBackend(acceptedAppKeys: ["stress-key"])
        portal = try PortalBackend()
        sandbox.register(dynamic, host: DynamicBackend.defaultHost)
        sandbox.register(truecaller, host: TruecallerBackend.defaultHost)
        sandbox.register(portal, host: PortalBackend.defaultHost)
        otpless = try OTPlessBackend(merchant: OTPlessMerchant(appID: StressLane.otplessAppID))
        otpless.install(in: sandbox)
    }

    /// Remembers a provider the OTPLESS lane made (its status pollers sleep on the clock).
    func track(_ provider: OTPlessProvider) { otplessLock.withLock { otplessProviders.append(provider) } }

    /// Status pollers currently running (asleep on the clock or about to be): tasks that are
    /// not flows but may sit among the clock's sleepers. ``ClockDriver`` subtracts them.
    var backgroundSleepers: Int {
        otplessLock.withLock { otplessProviders.reduce(0) { $0 + $1.activePollerCount } }
    }

    /// Every provider the tests drive, in a fixed order. Add new adapters here.
    var lanes: [StressLane] { [.dynamic(self), .truecaller(self), .portal(self), .otpless(self)] }

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
///
/// Not every sleeper is a flow: OTPLESS status pollers sleep on the same clock (they stop at
/// a confirmed delivery, the server's timeout, or when the flow ends: `AuthClient` calls
/// `AuthProvider.flowEnded`). `background` counts those that are running; the driver
/// subtracts it from the sleepers, so "sleepers − pollers ≥ unfinished flows" still means every
/// flow is asleep. Running pollers are an upper bound on sleeping ones, so the check can only
/// be too strict (it waits one more yield until the poller sleeps or finishes), never too
/// lenient; the count is read before and after the sleepers and the larger one is used, so a
/// poller ending between the reads cannot make it lenient either.
final class ClockDriver: Sendable {
    let clock: ManualClock
    private let active: Atomic<Int>
    private let advanced = Atomic<Int>(0)
    private let background: @Sendable () -> Int

    init(clock: ManualClock, flows: Int, background: @escaping @Sendable () -> Int = { 0 }) {
        self.clock = clock
        active = Atomic(flows)
        self.background = background
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
            let before = background()
            let sleepers = clock.sleeperCount
            let pollers = max(before, background())
            if sleepers > 0 && sleepers - pollers >= remaining {
                clock.advance(by: step)
                advanced.add(1, ordering: .relaxed)
            }
            await Task.yield()
        }
    }
}
