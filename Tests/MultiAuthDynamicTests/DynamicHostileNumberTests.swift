import Foundation
import MultiAuth
import MultiAuthSandbox
import Testing

@testable import MultiAuthDynamic

/// A hostile `expiresAt` (Docs/Security.md, "Numbers from the wire"): before, `1e300` was stored
/// as the session's expiry and the background refresh task trapped converting it to a
/// `Duration`; now the answer is a `malformedResponse` and nothing is stored.
@Suite(.timeLimit(.minutes(10)))
struct DynamicHostileNumberTests {
    static let jwt =
        "eyJhbGciOiJSUzI1NiIsImtpZCI6ImR5bmFtaWMtZXhhbXBsZS1rZXkiLCJ0eXAiOiJKV1QifQ."
        + "eyJzdWIiOiIzZjFjMGUxYS03ZDViLTRjOGUtOWE1MS0wYzJkNGU2ZjhhMTAiLCJpYXQiOjE3MDAwMDAwMDAsImV4cCI6MTcwMDAwNzIwMH0."
        + "c2lnbmF0dXJl"

    static func signIn(expiresAt: String) -> String {
        #"{"jwt":"\#(jwt)","minifiedJwt":"\#(jwt)","expiresAt":\#(expiresAt),"user":{"id":"u-1","#
            + #""verifiedCredentials":[{"id":"c-1","format":"email","email":"ada@example.com"}],"#
            + #""sessionId":"s-1","email":"ada@example.com"}}"#
    }

    @Test(arguments: ["1e300", "1e19", "-9.3e18", "-1", "1.7e300", "4102444800000"])
    func anAbsurdExpiresAtIsRefusedAndNothingIsStored(expiresAt: String) async throws {
        let clock = ManualClock()
        let transport = ScriptedTransport([
            ScriptedTransport.json(201, #"{"verificationUUID":"v-1","email":"ada@example.com"}"#),
            ScriptedTransport.json(200, Self.signIn(expiresAt: expiresAt)),
        ])
        let store = InMemorySessionStore()
        let client = try AuthClient(
            providers: [DynamicProvider(environmentID: "env-1", baseURL: URL(string: "https://dyn.test/api/v0")!)],
            store: store, transport: transport, time: clock.timeSource, autoRefresh: AutoRefresh(jitterSeed: 1))
        let challenge = try #require(try await client.signIn(with: .dynamic, .email("ada@example.com")).challenge)
        let error = await #expect(throws: AuthError.self) {
            try await client.submit(ChallengeAnswer(code: "123456"), for: challenge)
        }
        #expect(error?.code == .malformedResponse, "\(String(describing: error))")
        #expect(try await store.load(for: .dynamic) == nil)
        #expect(client.autoRefreshTaskCount == 0)
    }

    @Test func aPlausibleExpiresAtStillSignsIn() async throws {
        let clock = ManualClock()
        let transport = ScriptedTransport([
            ScriptedTransport.json(201, #"{"verificationUUID":"v-1","email":"ada@example.com"}"#),
            ScriptedTransport.json(200, Self.signIn(expiresAt: "1700007200")),
        ])
        let client = try AuthClient(
            providers: [DynamicProvider(environmentID: "env-1", baseURL: URL(string: "https://dyn.test/api/v0")!)],
            transport: transport, time: clock.timeSource, autoRefresh: .disabled)
        let challenge = try #require(try await client.signIn(with: .dynamic, .email("ada@example.com")).challenge)
        let session = try #require(try await client.submit(ChallengeAnswer(code: "123456"), for: challenge).session)
        #expect(session.credentials.expiresAt == Date(timeIntervalSince1970: 1_700_007_200))
    }
}
