import Foundation
import MultiAuth
import Testing

@testable import MultiAuthConformance

/// The conformance kit's byte-keeping store (C12) implements conditional writes atomically.
@Suite struct EncodedSessionStoreTests {
    static func session(_ counter: Int, provider: AuthProviderID = "p") -> AuthSession {
        AuthSession(
            id: "s1", provider: provider, user: AuthUser(id: "u1"),
            credentials: Credentials(
                accessToken: Secret("A\(counter)"), refreshToken: Secret("R\(counter)"),
                expiresAt: Date(timeIntervalSince1970: 1_700_000_000.25)),
            createdAt: Date(timeIntervalSince1970: 1_700_000_000))
    }

    @Test func conditionalWritesFollowTheContract() async throws {
        let store = EncodedSessionStore()
        let (v1, v2) = (Self.session(1), Self.session(2))
        #expect(try await store.replace(nil, with: v1, for: "p") == .written)
        #expect(try await store.replace(nil, with: v2, for: "p") == .conflict(current: v1))
        #expect(try await store.replace(v1, with: v2, for: "p") == .written)
        #expect(try await store.replace(v1, with: nil, for: "p") == .conflict(current: v2))
        #expect(try await store.replace(v2, with: nil, for: "p") == .written)
        #expect(try await store.load(for: "p") == nil)
        let error = await #expect(throws: AuthError.self) {
            _ = try await store.replace(nil, with: Self.session(1, provider: "q"), for: "p")
        }
        #expect(error?.code == .invalidInput)
        #expect(try await store.load(for: "q") == nil)
    }

    /// 8 tasks × 50 compare-and-set increments, called on the concrete type (which must pick the
    /// store's own `replace`, not the non-atomic protocol default): no update lost, no version
    /// written twice.
    @Test func concurrentReplacesHaveOneWinnerPerVersion() async throws {
        let store = EncodedSessionStore()
        try await store.save(Self.session(0))
        let won = try await withThrowingTaskGroup(of: [Int].self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var won: [Int] = []
                    for _ in 0..<50 {
                        let current = try await store.load(for: "p")
                        let next = Int(current?.credentials.accessToken?.reveal().dropFirst() ?? "0")! + 1
                        if try await store.replace(current, with: Self.session(next), for: "p") == .written {
                            won.append(next)
                        }
                    }
                    return won
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(try await store.load(for: "p")?.credentials.accessToken?.reveal() == "A\(won.count)")
        #expect(won.sorted() == (0..<won.count).map { $0 + 1 })
    }
}
