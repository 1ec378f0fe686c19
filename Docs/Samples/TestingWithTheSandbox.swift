// Sample: test a sign-in screen's logic without SMS: inbox, faults, manual clock.
// Compiled and run by `swift test` (target MultiAuthSamples); quoted in Docs/Testing.md.
import Foundation
import MultiAuth
import MultiAuthDynamic
import MultiAuthSandbox
import Testing

@Suite(.timeLimit(.minutes(10)))
struct TestingWithTheSandboxSample {
    let sandbox = Sandbox(seed: 42)
    let client: AuthClient

    init() throws {
        sandbox.register(try DynamicBackend(), host: DynamicBackend.defaultHost)
        let dynamic = DynamicProvider(environmentID: DynamicBackend.defaultEnvironmentID, baseURL: DynamicBackend.baseURL())
        client = try sandbox.makeClient(providers: [dynamic])      // the sandbox's transport and clock, an in-memory store
    }

    @Test func aMalformedCodeNeverReachesTheServer() async throws {
        let challenge = try #require(try await client.signIn(with: .dynamic, .email("kim@example.com")).challenge)
        let before = sandbox.requestCount
        let error = await #expect(throws: AuthError.self) {
            _ = try await client.submit(ChallengeAnswer(code: "12 34"), for: challenge)
        }
        #expect(error?.reason == .invalidCodeFormat)
        #expect(sandbox.requestCount == before)                  // zero network calls, no attempt used
    }

    @Test func anExpiredCodeIsRefusedLocally() async throws {
        let challenge = try #require(try await client.signIn(with: .dynamic, .email("kim@example.com")).challenge)
        sandbox.clock.advance(by: .seconds(601))                 // no sleeping: the clock is manual
        let error = await #expect(throws: AuthError.self) {
            _ = try await client.submit(ChallengeAnswer(code: "123456"), for: challenge)
        }
        #expect(error?.code == .expired)
    }

    @Test func aServerOutageIsRetryableAndKeepsTheChallenge() async throws {
        let challenge = try #require(try await client.signIn(with: .dynamic, .email("kim@example.com")).challenge)
        let code = try #require(sandbox.inbox.latest(for: "kim@example.com")?.code)
        _ = sandbox.faults.add(.jsonStatus(503, ["error": "maintenance"]), host: DynamicBackend.defaultHost, repeat: .once)
        let error = await #expect(throws: AuthError.self) { _ = try await client.submit(ChallengeAnswer(code: code), for: challenge) }
        #expect(error?.isRetryable == true)
        let session = try await client.submit(ChallengeAnswer(code: code), for: challenge).session
        #expect(session != nil)                                  // the same challenge still works
    }
}
