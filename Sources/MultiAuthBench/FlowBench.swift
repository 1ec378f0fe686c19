import Foundation
import MultiAuth
import MultiAuthDynamic
import MultiAuthLocking
import MultiAuthSandbox
import MultiAuthTestKeys

/// A whole sign-in through the in-process sandbox (Dynamic e-mail OTP: start + code from the
/// inbox + submit + persist + events) against the same HTTP exchanges, JSON and store work done
/// by hand: the two sign-in exchanges, reading the stored session before the save and revoking
/// the one the save displaced (every sign-in after the first displaces the one before, and
/// MultiAuth revokes it, L14). The difference is MultiAuth's own overhead. Both sides talk to their own
/// sandbox, whose backend signs an RS256 JWT per sign-in (with the committed test key A, so no
/// key is generated).
enum FlowBench {
    final class Counter: Sendable {
        private let value = Locked(0)
        func next() -> Int {
            value.withLock { value in
                value += 1
                return value
            }
        }
    }

    static func world() -> (Sandbox, InMemorySessionStore) {
        let sandbox = Sandbox(seed: 7)
        sandbox.register(DynamicBackend(signingKey: TestKeys.rsaA), host: DynamicBackend.defaultHost)
        return (sandbox, InMemorySessionStore())
    }

    static let ours = Kernel("flow.ours", batch: 100, instructions: 40) {
        let (sandbox, store) = world()
        let client = try AuthClient(
            providers: [
                DynamicProvider(environmentID: DynamicBackend.defaultEnvironmentID, baseURL: DynamicBackend.baseURL())
            ],
            store: store, transport: sandbox.transport, time: sandbox.time)
        let counter = Counter()
        return Kernel.timedAsync { count in
            for _ in 0..<count {
                let email = "bench\(counter.next())@example.com"
                guard case .challenge(let challenge) = try await client.signIn(with: .dynamic, try .email(email)),
                    let code = sandbox.inbox.latest(for: email, channel: .email)?.code,
                    case .signedIn = try await client.submit(ChallengeAnswer(code: code), for: challenge)
                else { throw BenchError("flow did not sign in") }
            }
        }
    }

    static let byHand = Kernel("flow.hand", batch: 100, instructions: 40) {
        let (sandbox, store) = world()
        let configuration = DynamicConfiguration(
            environmentID: DynamicBackend.defaultEnvironmentID, baseURL: DynamicBackend.baseURL())
        let counter = Counter()
        return Kernel.timedAsync { count in
            for _ in 0..<count {
                let email = "bench\(counter.next())@example.com"
                let created = try await sandbox.transport.send(
                    .json(.post, configuration.endpoint("emailVerifications/create"), body: ["email": email]))
                let uuid =
                    (try JSONSerialization.jsonObject(with: created.body) as? [String: Any])?["verificationUUID"]
                    as? String
                guard let uuid, let code = sandbox.inbox.latest(for: email, channel: .email)?.code else {
                    throw BenchError("no verification")
                }
                let signedIn = try await sandbox.transport.send(
                    .json(
                        .post, configuration.endpoint("emailVerifications/signin"),
                        body: ["verificationUUID": uuid, "verificationToken": code]))
                guard let body = try JSONSerialization.jsonObject(with: signedIn.body) as? [String: Any],
                    let jwt = body["jwt"] as? String, let expiresAt = (body["expiresAt"] as? NSNumber)?.doubleValue,
                    let user = body["user"] as? [String: Any], let id = user["id"] as? String
                else { throw BenchError("no session: HTTP \(signedIn.status)") }
                let session = AuthSession(
                    provider: .dynamic, user: AuthUser(id: id, email: try EmailAddress(email)),
                    credentials: Credentials(
                        accessToken: (body["minifiedJwt"] as? String).map { Secret($0) }, idToken: Secret(jwt),
                        expiresAt: Date(timeIntervalSince1970: expiresAt)),
                    createdAt: sandbox.clock.wallNow)
                // What MultiAuth does with a session it displaces (Docs/Architecture.md, "Session
                // lifecycle"): read before the save, revoked on the server after it.
                let displaced = try await store.load(for: .dynamic)
                try await store.save(session)
                if let token = (displaced?.credentials.accessToken ?? displaced?.credentials.idToken)?.reveal() {
                    _ = try await sandbox.transport.send(
                        HTTPRequest(
                            method: .post, url: configuration.endpoint("revoke"),
                            headers: ["Authorization": "Bearer \(token)", "Accept": "application/json"]))
                }
            }
        }
    }

    static let comparisons = [
        Comparison(
            group: "sign-in", label: "Dynamic e-mail OTP via AuthClient vs the same exchanges by hand", ours: ours,
            baseline: byHand, goal: .atMost(1.1))
    ]
}
