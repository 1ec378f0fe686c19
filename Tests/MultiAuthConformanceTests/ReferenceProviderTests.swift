import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthSandbox
import Testing

/// Behaviour of the reference provider beyond the kit: fallback, channels, redaction.
@Suite(.timeLimit(.minutes(10)))
struct ReferenceProviderTests {
    let sandbox: Sandbox
    let client: AuthClient
    let recorder: RecordingSubscriber

    init() throws {
        sandbox = Sandbox(seed: 21)
        sandbox.register(ReferenceBackend(), host: ReferenceProtocol.defaultHost)
        client = try sandbox.makeClient(providers: [ReferenceProvider()])
        recorder = RecordingSubscriber(client: client)
    }

    @Test func whatsappFailureFallsBackToSMSWhenTheSystemChose() async throws {
        sandbox.faults.failDelivery(on: .whatsapp)
        let step = try await client.signIn(with: "reference", .phone(try PhoneNumber("+12025550123")))
        let challenge = try #require(step.challenge)
        #expect(challenge.kind == .oneTimeCode(length: 6, channel: .sms, linkAlsoSent: true))
        let events = await recorder.waitFor(kind: "fallbackTriggered")
        #expect(events?.kind.description == "fallbackTriggered(from: whatsapp, to: sms)")
        let code = try #require(try await sandbox.inbox.next(for: "+12025550123", channel: .sms).code)
        let session = try #require(try await client.submit(ChallengeAnswer(code: code), for: challenge).session)
        #expect(session.user.phone?.e164 == "+12025550123")
    }

    @Test func anExplicitChannelNeverFallsBack() async throws {
        sandbox.faults.failDelivery(on: .whatsapp)
        let error = await #expect(throws: AuthError.self) {
            try await client.signIn(with: "reference", .phone(try PhoneNumber("+12025550123"), channel: .whatsapp))
        }
        #expect(error?.code == .channelUnavailable)
        #expect(error?.providerCode == "channel_unavailable")
        #expect(sandbox.inbox.latest(for: "+12025550123") == nil)
    }

    @Test func theMagicLinkCompletesThePendingFlow() async throws {
        let step = try await client.signIn(with: "reference", .email(try EmailAddress("Ann@Example.com")))
        #expect(step.challenge != nil)
        let link = try #require(sandbox.inbox.latest(for: "ann@example.com")?.link)
        let session = try #require(try await client.handleRedirect(link)?.session)
        #expect(session.user.email?.identityKey == "ann@example.com")
        #expect(try await client.session(for: "reference") == session)
    }

    @Test func unsupportedIdentitiesAreRefusedLocally() async throws {
        for request in ConformanceHarness.reference().invalidRequests {
            await #expect(throws: AuthError.self) { try await client.signIn(with: "reference", request) }
        }
        #expect(sandbox.requestCount == 0)
    }

    @Test func unknownErrorCodesMapToGenericWithTheRawCode() {
        let error = ReferenceProvider().mapError(HTTPResponse(status: 418, body: Data(#"{"code":"teapot"}"#.utf8)))
        #expect(error.code == .generic && error.providerCode == "teapot")
        let unreadable = ReferenceProvider().mapError(HTTPResponse(status: 400, body: Data("<html>".utf8)))
        #expect(unreadable.code == .malformedResponse)
        let unavailable = ReferenceProvider().mapError(HTTPResponse(status: 502))
        #expect(unavailable.code == .providerUnavailable && unavailable.isRetryable)
    }
}
