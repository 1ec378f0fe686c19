import Foundation
import MultiAuth
import MultiAuthSandbox

/// An in-memory store whose next `load`s read the session, then sleep on the manual clock
/// before returning it: reads that a sign-in, refresh or sign-out overtakes, deterministically.
actor SlowLoadStore: SessionStore {
    let base = InMemorySessionStore()
    let time: TimeSource
    private var delayNextLoad: Duration?
    private var delayedLoads = 0

    init(time: TimeSource) { self.time = time }

    /// Makes the next `count` loads (of any provider) take `delay` on the clock after reading.
    func delayNextLoad(by delay: Duration, count: Int = 1) {
        delayNextLoad = delay
        delayedLoads = count
    }

    func load(for provider: AuthProviderID) async throws -> AuthSession? {
        let session = try await base.load(for: provider)
        if let delay = delayNextLoad, delayedLoads > 0 {
            delayedLoads -= 1
            try await time.sleep(for: delay)
        }
        return session
    }

    func save(_ session: AuthSession) async throws { try await base.save(session) }
    func remove(for provider: AuthProviderID) async throws { try await base.remove(for: provider) }
    func removeAll() async throws { try await base.removeAll() }
    func replace(_ expected: AuthSession?, with replacement: AuthSession?, for provider: AuthProviderID) async throws
        -> SessionStoreWriteResult
    {
        try await base.replace(expected, with: replacement, for: provider)
    }
}
