// Sample: verify a Dynamic session JWT on your server (RS256 via the environment's JWKS,
// scope `user:basic`, exp/nbf with leeway). Compiled and run by `swift test`.
import Foundation
import MultiAuth
import MultiAuthDynamic
import MultiAuthSandbox
import Testing

@Suite(.timeLimit(.minutes(10)))
struct ServerSideVerificationSample {
    @Test func verifyTheJWTAnAppSends() async throws {
        let sandbox = Sandbox(seed: 5)
        sandbox.register(try DynamicBackend(), host: DynamicBackend.defaultHost)
        let client = try makeClient(sandbox: sandbox, store: InMemorySessionStore())
        let session = try await signInWithEmail(client, address: "ada@example.com") { _ in
            sandbox.inbox.latest(for: "ada@example.com")!.code!
        }

        // On the server (URLSessionTransport() in production; the JWKS is fetched once and cached).
        let configuration = DynamicConfiguration(environmentID: DynamicBackend.defaultEnvironmentID, baseURL: DynamicBackend.baseURL())
        // The audience is required (the app's Origin); `.anyAudience` opts out explicitly.
        let verifier = DynamicTokenVerifier(
            configuration: configuration, transport: sandbox.transport, time: sandbox.time, audience: "https://app.sandbox.test")
        let verified = try await verifier.verify("Bearer " + session.credentials.idToken!.reveal())
        #expect(verified.userID == session.user.id)

        var tampered = session.credentials.idToken!.reveal()
        tampered.removeLast()
        tampered.append(session.credentials.idToken!.reveal().hasSuffix("A") ? "B" : "A")
        await #expect(throws: AuthError.self) { _ = try await verifier.verify(tampered) }
    }
}
