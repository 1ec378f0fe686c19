import Foundation
import MultiAuthLocking

/// The background refresh of one `AuthClient` (``AutoRefresh``): at most one scheduler task
/// per provider, each sleeping on the client's clock until its stored session is due, then
/// refreshing it through the client's lifecycle.
///
/// Invariants:
/// - S1. At most one scheduler task per provider: ``restart(_:)`` cancels the previous task of
///   that provider before it starts the next, and a task never outlives its replacement's
///   start by more than the time it takes to notice the cancellation.
/// - S2. A task ends on sign-out or session end (``stop(_:)``), on ``stopAll()`` (explicit
///   stop, client deinit), when no refreshable session is stored, when the session's
///   maximum lifetime ends before it is due, or when its task is cancelled. Nothing else keeps
///   a task alive: no per-session task is left behind (``activeTaskCount``).
/// - S3. Due time is `expiresAt − margin` on the client's `TimeSource`; a transient failure is
///   retried after `min(maximumBackoff, initialBackoff × 2ⁿ⁻¹)`, jittered into [½, 1] of that by
///   a seeded generator, and never before the error's `retryAfter`.
/// - S4. Its sleeps are marked as background work (``BackgroundWork``), so a test clock counts
///   them apart from the sleeps of the operation under test.
/// - S5. A stored session whose refreshed version is kept unsaved (a failed store write, rule
///   L9) is not waited on until it is due: the write is retried at once, then with the back-off
///   of S3 while it keeps failing. ``retryUnsaved(_:)`` (called after a failed write outside the
///   scheduler, e.g. a manual refresh) starts that retry after the first back-off.
final class AutoRefreshScheduler: Sendable {
    /// What one background refresh came to.
    enum Step: Sendable {
        /// Refreshed, or superseded by a newer stored session: look again.
        case proceed
        /// Nothing more to refresh (signed out, ended by the provider, cannot refresh).
        case stop
        /// A transient failure: retry after back-off, not before `retryAfter`.
        case retry(retryAfter: Duration?)
    }

    /// What the scheduler needs from its client.
    struct Hooks: Sendable {
        /// Loads the stored session of a provider.
        let load: @Sendable (AuthProviderID) async throws -> AuthSession?
        /// Refreshes a stored session and classifies the outcome.
        let refresh: @Sendable (AuthSession) async -> Step
        /// Whether a refreshed version of this stored session is kept unsaved (S5).
        let hasUnsaved: @Sendable (AuthSession) -> Bool
    }

    let policy: AutoRefresh
    let margin: Duration
    let time: TimeSource

    private struct State {
        var hooks: Hooks?
        var tasks: [AuthProviderID: (generation: UInt64, task: Task<Void, Never>)] = [:]
        var generation: UInt64 = 0
        var running = 0
        var random: SplitMix64
    }

    private let state: Locked<State>

    init(policy: AutoRefresh, margin: Duration, time: TimeSource) {
        self.policy = policy
        self.margin = margin
        self.time = time
        var system = SystemRandomNumberGenerator()
        state = Locked(State(random: SplitMix64(seed: policy.jitterSeed ?? system.next())))
    }

    /// Connects the scheduler to its client (once, after the client is initialized).
    func connect(_ hooks: Hooks) { state.withLock { $0.hooks = hooks } }

    /// Scheduler tasks currently running (started and not yet ended).
    var activeTaskCount: Int { state.withLock { $0.running } }

    /// Providers with a scheduler task.
    var scheduledProviders: Set<AuthProviderID> { state.withLock { Set($0.tasks.keys) } }

    /// Starts `provider`'s scheduler, replacing a running one (S1). Does nothing when
    /// auto-refresh is off.
    func restart(_ provider: AuthProviderID) { restart(provider, afterFailure: false) }

    /// Restarts `provider`'s scheduler so it retries an unsaved write (S5) after the first
    /// back-off, whatever the stored session's due time. Does nothing when auto-refresh is off
    /// (the write is then retried by the next refresh or `validSession`).
    func retryUnsaved(_ provider: AuthProviderID) { restart(provider, afterFailure: true) }

    private func restart(_ provider: AuthProviderID, afterFailure: Bool) {
        guard policy.isEnabled else { return }
        let previous: Task<Void, Never>? = state.withLock { state in
            state.generation += 1
            let current = state.generation
            let previous = state.tasks[provider]?.task
            // Unstructured: it outlives every caller. Owned by `tasks` (one per provider, S1);
            // ends as S2 says, and is cancelled by `restart`, `stop`, `stopAll` and the client's
            // deinit.
            let task = Task { [self] in await self.run(provider, generation: current, failures: afterFailure ? 1 : 0) }
            state.tasks[provider] = (current, task)
            return previous
        }
        previous?.cancel()
    }

    /// Starts `provider`'s scheduler unless one is running.
    func ensure(_ provider: AuthProviderID) {
        guard policy.isEnabled, state.withLock({ $0.tasks[provider] == nil }) else { return }
        restart(provider)
    }

    /// Stops `provider`'s scheduler.
    func stop(_ provider: AuthProviderID) {
        state.withLock { $0.tasks.removeValue(forKey: provider) }?.task.cancel()
    }

    /// Stops every scheduler.
    func stopAll() {
        let all = state.withLock { state in
            let all = state.tasks.values.map(\.task)
            state.tasks.removeAll()
            return all
        }
        for task in all { task.cancel() }
    }

    /// When `session` is due for a background refresh: `expiresAt − margin` of its access
    /// token; `nil` when it has no token expiry or its maximum lifetime ends first (a refresh
    /// cannot extend that).
    static func dueDate(of session: AuthSession, margin: Duration) -> Date? {
        guard let tokenExpiry = session.credentials.expiresAt else { return nil }
        let due = tokenExpiry.addingTimeInterval(-margin.timeInterval)
        if let end = session.maximumLifetimeEndsAt, end <= due { return nil }
        return due
    }

    /// The back-off before retry number `failures` (1, 2, …), jittered (S3).
    func backoff(failures: Int, retryAfter: Duration?) -> Duration {
        let exponent = min(max(failures - 1, 0), 30)
        let base = min(policy.maximumBackoff, policy.initialBackoff * (1 << exponent))
        let unit = state.withLock { Double($0.random.next() >> 11) / Double(1 << 53) }
        let jittered = Duration.interval(base.timeInterval * (0.5 + 0.5 * unit))
        guard let retryAfter else { return jittered }
        return max(jittered, retryAfter)
    }

    private func run(_ provider: AuthProviderID, generation: UInt64, failures initialFailures: Int) async {
        state.withLock { $0.running += 1 }
        defer {
            state.withLock { state in
                state.running -= 1
                if state.tasks[provider]?.generation == generation { state.tasks[provider] = nil }
            }
        }
        var failures = initialFailures
        var justRefreshed = false
        // Started for a write that just failed (S5): wait one back-off before the first retry.
        if failures > 0, !(await pause(backoff(failures: failures, retryAfter: nil))) { return }
        while !Task.isCancelled {
            guard let hooks = state.withLock({ $0.hooks }) else { return }
            let session: AuthSession?
            do { session = try await hooks.load(provider) } catch {
                // The store cannot be read right now: not a sign-out; look again later.
                failures += 1
                guard await pause(backoff(failures: failures, retryAfter: nil)) else { return }
                continue
            }
            guard let session else { return }
            // S5: an unsaved refreshed version is written now, not when the stored one is due.
            let unsaved = hooks.hasUnsaved(session)
            guard let due = unsaved ? time.now : Self.dueDate(of: session, margin: margin) else { return }
            let wait = due.timeIntervalSince(time.now)
            if wait > 0 || (justRefreshed && !unsaved) {
                // A session due again right after its refresh (a lifetime shorter than the
                // margin) waits the initial back-off instead of spinning.
                let duration = wait > 0 ? Duration.interval(wait) : policy.initialBackoff
                justRefreshed = false
                guard await pause(duration) else { return }
                continue  // look again: the session may have changed while sleeping
            }
            switch await hooks.refresh(session) {
            case .proceed:
                failures = 0
                justRefreshed = true
            case .stop: return
            case .retry(let retryAfter):
                failures += 1
                guard await pause(backoff(failures: failures, retryAfter: retryAfter)) else { return }
            }
        }
    }

    /// Sleeps on the client's clock as background work (S4); `false` when cancelled.
    private func pause(_ duration: Duration) async -> Bool {
        do {
            try await BackgroundWork.$isActive.withValue(true) {
                try await time.sleep(for: max(duration, .milliseconds(1)))
            }
            return !Task.isCancelled
        } catch {
            return false
        }
    }
}
