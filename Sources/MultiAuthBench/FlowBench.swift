import Foundation
import MultiAuth
import MultiAuthDynamic
import MultiAuthSandbox

/// A whole sign-in through the in-process sandbox (Dynamic e-mail OTP: start + code from the
/// inbox + submit + persist + events) against the same HTTP exchanges and store write done
/// by hand: the figure is MultiAuth's framework overhead.
enum FlowBench {
    static let flows = 300

    static func world() throws -> (Sandbox, AuthClient, InMemorySessionStore) {
        let sandbox = Sandbox(seed: 7)
        sandbox.register(try DynamicBackend(), host: DynamicBackend.defaultHost)
        let store = InMemorySessionStore()
        let client = try AuthClient(
            providers: [DynamicProvider(environmentID: DynamicBackend.defaultEnvironmentID, baseURL: DynamicBackend.baseURL())],
            store: store, transport: sandbox.transport, time: sandbox.time)
        return (sandbox, client, store)
    }

    /// One flow through `AuthClient`; returns nanoseconds.
    static func ours(_ sandbox: Sandbox, _ client: AuthClient, email: String) async throws -> Double {
        let start = Measure.clock.now
        guard case .challenge(let challenge) = try await client.signIn(with: .dynamic, try .email(email)),
            let code = sandbox.inbox.latest(for: email, channel: .email)?.code,
            case .signedIn = try await client.submit(ChallengeAnswer(code: code), for: challenge)
        else { fatalError("flow did not sign in") }
        return (Measure.clock.now - start).nanoseconds
    }

    /// The same exchanges by hand: POST create, read the inbox, POST signin, build a session,
    /// save it.
    static func byHand(_ sandbox: Sandbox, _ store: InMemorySessionStore, email: String) async throws -> Double {
        let configuration = DynamicConfiguration(environmentID: DynamicBackend.defaultEnvironmentID, baseURL: DynamicBackend.baseURL())
        let start = Measure.clock.now
        let created = try await sandbox.transport.send(
            .json(.post, configuration.endpoint("emailVerifications/create"), body: ["email": email]))
        let uuid = (try JSONSerialization.jsonObject(with: created.body) as? [String: Any])?["verificationUUID"] as? String
        guard let uuid, let code = sandbox.inbox.latest(for: email, channel: .email)?.code else { fatalError("no verification") }
        let signedIn = try await sandbox.transport.send(
            .json(.post, configuration.endpoint("emailVerifications/signin"), body: ["verificationUUID": uuid, "verificationToken": code]))
        guard let body = try JSONSerialization.jsonObject(with: signedIn.body) as? [String: Any],
            let jwt = body["jwt"] as? String, let expiresAt = (body["expiresAt"] as? NSNumber)?.doubleValue,
            let user = body["user"] as? [String: Any], let id = user["id"] as? String
        else { fatalError("no session: HTTP \(signedIn.status) \(String(decoding: signedIn.body.prefix(200), as: UTF8.self))") }
        let session = AuthSession(
            provider: .dynamic, user: AuthUser(id: id, email: try EmailAddress(email)),
            credentials: Credentials(accessToken: body["minifiedJwt"] as? String, idToken: jwt, expiresAt: Date(timeIntervalSince1970: expiresAt)),
            createdAt: sandbox.clock.wallNow)
        try await store.save(session)
        return (Measure.clock.now - start).nanoseconds
    }

    static func run(repeats: Int) async throws -> [BenchRow] {
        var oursSamples: [Double] = []
        var handSamples: [Double] = []
        var oursMedians: [Double] = []
        var handMedians: [Double] = []
        for round in 0..<repeats {
            let (sandbox, client, _) = try world()
            let (handSandbox, _, handStore) = try world()
            var a: [Double] = []
            var b: [Double] = []
            for index in 0..<flows {
                // Alternate so neither side always runs on a warmer cache.
                let email = "bench\(round)-\(index)@example.com"
                if index % 2 == 0 {
                    a.append(try await ours(sandbox, client, email: email))
                    b.append(try await byHand(handSandbox, handStore, email: email))
                } else {
                    b.append(try await byHand(handSandbox, handStore, email: email))
                    a.append(try await ours(sandbox, client, email: email))
                }
            }
            oursSamples += a
            handSamples += b
            oursMedians.append(Measure.median(a))
            handMedians.append(Measure.median(b))
        }
        let ours = Measure.median(oursMedians)
        let hand = Measure.median(handMedians)
        let ratio = ours / hand
        return [
            BenchRow(
                group: "sign-in flow", name: "Dynamic e-mail OTP via sandbox, p50", value: ours / 1000, unit: "µs", baseline: hand / 1000,
                ratioLabel: String(format: "%.2f× same exchanges by hand", ratio), goal: "≤ 1.2×", met: ratio <= 1.2),
            BenchRow(group: "sign-in flow", name: "p99", value: Measure.percentile(oursSamples, 99) / 1000, unit: "µs",
                baseline: Measure.percentile(handSamples, 99) / 1000),
            BenchRow(group: "sign-in flow", name: "flows/s (sequential)", value: 1e9 / ours, unit: "/s"),
        ]
    }
}
