// Samples: sign in with a phone OTP (Truecaller-style), complete a magic link through a
// redirect (Portal-style, with a TOTP second step), and keep sessions in a FileSessionStore.
// Compiled and run by `swift test` (target MultiAuthSamples).
import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthPortal
import MultiAuthSandbox
import MultiAuthTruecaller
import Testing

@Suite(.timeLimit(.minutes(10)))
struct PhoneOTPAndRedirectsSample {
    @Test func phoneOTPWithANameToFinish() async throws {
        let sandbox = Sandbox(seed: 3)
        sandbox.register(try TruecallerBackend(), host: TruecallerBackend.defaultHost)
        let truecaller = TruecallerProvider(configuration: TruecallerConfiguration(
            appKey: "<partner key>", appLink: URL(string: "https://example.com/truecaller")!,
            baseURL: URL(string: "https://\(TruecallerBackend.defaultHost)")!))
        let client = try AuthClient(providers: [truecaller], transport: sandbox.transport, time: sandbox.time)

        let phone = try PhoneNumber("098765 43210", defaultRegion: "IN")          // → +919876543210
        let challenge = try #require(try await client.signIn(with: .truecaller, .phone(phone)).challenge)
        #expect(challenge.expiresAt == challenge.issuedAt.addingTimeInterval(300)) // tokenTtl on the injected clock
        let code = try #require(sandbox.inbox.latest(for: phone.e164, channel: .sms)?.code)
        let name = try PersonName(firstName: "Asha", lastName: "Rao")              // checked before any network call
        let session = try await client.submit(ChallengeAnswer(code: code, name: name), for: challenge).session
        #expect(session?.user.phone == phone)
    }

    @Test func magicLinkRedirectThenTOTPAndAFileStore() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("multiauth-sample-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let sandbox = Sandbox(seed: 4)
        sandbox.register(try PortalBackend(), host: PortalBackend.defaultHost)
        let portal = PortalProvider(configuration: try .sandbox())   // magic links need fromEmail + templateID
        let store = try FileSessionStore(directory: directory)
        let client = try AuthClient(providers: [portal], store: store, transport: sandbox.transport, time: sandbox.time)

        _ = try await client.signIn(with: .portal, .email("grace@example.com"))     // sends the magic link
        let link = try #require(sandbox.inbox.latest(for: "grace@example.com")?.link)
        // In an app: `.onOpenURL { url in Task { try await client.handleRedirect(url) } }`.
        let totpStep = try #require(try await client.handleRedirect(link)?.challenge)
        guard case .totp(_, let enrollment?) = totpStep.kind else { Issue.record("no enrollment"); return }
        let authenticator = try enrollment.parsedURI().makeTOTP()                  // what scanning the QR gives
        let code = try authenticator.code(at: sandbox.clock.wallNow)
        let session = try #require(try await client.submit(ChallengeAnswer(code: code), for: totpStep).session)

        // A new process: a fresh client over the same directory restores the session.
        let relaunched = try AuthClient(
            providers: [portal], store: try FileSessionStore(directory: directory), transport: sandbox.transport, time: sandbox.time)
        #expect(try await relaunched.session(for: .portal) == session)
        #expect(try await client.handleRedirect(link)?.session == session)         // a re-delivered link replays
    }
}
