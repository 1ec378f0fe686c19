import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthSandbox
import MultiAuthTestKeys
import Testing

@testable import MultiAuthTruecaller

/// One-tap through `AuthClient` against the emulated Truecaller app and backend: the hand-off
/// challenge, the return link through `handleRedirect`, the stored and announced session, and
/// every refusal storing nothing (Docs/Providers/Truecaller.md, "One-tap hand-off").
@Suite(.timeLimit(.minutes(10)))
struct TruecallerOneTapTests {
    let sandbox = Sandbox(seed: 11)
    let backend: TruecallerBackend
    let configuration: TruecallerConfiguration

    init() throws {
        backend = TruecallerBackend(signingKey: TestKeys.rsaA, acceptedAppKeys: ["one-tap-key"])
        backend.install(in: sandbox)
        configuration = try .sandbox(appKey: "one-tap-key", deviceID: "device-1")
    }

    func provider() -> TruecallerProvider {
        let app = backend.app
        return TruecallerProvider(configuration: configuration, app: TruecallerApp { app.isInstalled })
    }

    func client(store: any SessionStore = InMemorySessionStore()) throws -> AuthClient {
        try AuthClient(providers: [provider()], store: store, transport: sandbox.transport, time: sandbox.time)
    }

    /// Starts one-tap and returns the hand-off challenge and its URL.
    func handoff(_ client: AuthClient, fallback: PhoneNumber? = nil) async throws -> (Challenge, URL) {
        let step = try await client.signIn(with: .truecaller, .truecallerOneTap(fallback: fallback))
        let challenge = try #require(step.challenge)
        guard case .oauthRedirect(let url) = challenge.kind else {
            Issue.record("one-tap gave \(challenge.kind), not a hand-off")
            throw CancellationError()
        }
        return (challenge, url)
    }

    @Test("one-tap: hand-off URL, return link, handleRedirect signs in, stores, announces; a second client restores it")
    func oneTapSignsInAndIsRestored() async throws {
        let store = InMemorySessionStore()
        let client = try client(store: store)
        let events = client.events.subscribe(bufferCapacity: 64)
        let (challenge, url) = try await handoff(client)
        #expect(url.host == "www.truecaller.com" && url.path == "/userProfile")
        #expect(provider().isOneTapHandoff(challenge))
        #expect(sandbox.requestCount == 0, "the hand-off makes no network call")
        #expect(challenge.expiresAt == sandbox.clock.wallNow.addingTimeInterval(600))

        let link = try backend.app.approve(url, now: sandbox.clock.wallNow)
        #expect(link.host == "app.example.test")
        let session = try #require(try await client.handleRedirect(link)?.session)
        #expect(session.user.phone == (try PhoneNumber("+91 98765 43210")))
        #expect(session.user.name?.fullName == "Asha Rao")
        #expect(session.credentials.extra[revealing: "signatureAlgorithm"] == "SHA512withRSA")
        #expect(try await store.load(for: .truecaller) == session)

        var kinds: [String] = []
        for await event in events {
            switch event.kind {
            case .challengeIssued: kinds.append("challengeIssued")
            case .signedIn(let announced):
                #expect(announced == session)
                kinds.append("signedIn")
            default: break
            }
            if kinds.last == "signedIn" { break }
        }
        #expect(kinds == ["challengeIssued", "signedIn"])

        let second = try self.client(store: store)
        #expect(try await second.validSession(for: .truecaller) == session)

        // The same link again replays the session without a request; the pending flow is over.
        let before = sandbox.requestCount
        #expect(try await client.handleRedirect(link)?.session == session)
        #expect(sandbox.requestCount == before)
    }

    @Test("a forged signature is signatureInvalid (15) and stores nothing")
    func forgedSignatureIsRefused() async throws {
        let store = InMemorySessionStore()
        let client = try client(store: store)
        let (_, url) = try await handoff(client)
        let nonce = try backend.app.requestNonce(of: url)
        let forger = TruecallerBackend(signingKey: TestKeys.rsaB)
        let forged = try forger.oneTapResponse(
            e164: "+919876543210", countryCode: "IN", firstName: "Mallory", requestNonce: nonce,
            requestTime: sandbox.clock.wallNow)
        let link = try backend.app.returnLink(for: url, response: forged)
        let error = await #expect(throws: AuthError.self) { try await client.handleRedirect(link) }
        #expect(error?.code == .signatureInvalid)
        #expect(error?.providerCode == "15")
        #expect(try await store.load(for: .truecaller) == nil)
    }

    @Test("a response for another nonce is signatureInvalid (16) and stores nothing")
    func wrongNonceIsRefused() async throws {
        let store = InMemorySessionStore()
        let client = try client(store: store)
        let (_, url) = try await handoff(client)
        let other = try backend.oneTapResponse(
            e164: "+919876543210", countryCode: "IN", firstName: "Asha", requestNonce: "ANOTHER-NONCE",
            requestTime: sandbox.clock.wallNow)
        let error = await #expect(throws: AuthError.self) {
            try await client.handleRedirect(try backend.app.returnLink(for: url, response: other))
        }
        #expect(error?.code == .signatureInvalid)
        #expect(error?.providerCode == "16")
        #expect(try await store.load(for: .truecaller) == nil)
    }

    @Test("a declined hand-off is cancelledByProvider (3); an error return keeps its code; nothing stored")
    func declinedAndErrorReturnsAreTypedErrors() async throws {
        let store = InMemorySessionStore()
        let client = try client(store: store)
        let (challenge, url) = try await handoff(client)
        let declined = await #expect(throws: AuthError.self) {
            try await client.handleRedirect(try backend.app.decline(url))
        }
        #expect(declined?.code == .cancelledByProvider)
        #expect(declined?.providerCode == "3")
        let failed = await #expect(throws: AuthError.self) {
            try await client.handleRedirect(try backend.app.fail(url, code: 10))
        }
        #expect(failed?.code == .providerUnavailable)
        #expect(failed?.providerCode == "10")
        backend.app.signOut()
        let notSignedIn = await #expect(throws: AuthError.self) {
            try await client.handleRedirect(try backend.app.approve(url, now: sandbox.clock.wallNow))
        }
        #expect(notSignedIn?.code == .unsupported)
        #expect(notSignedIn?.providerCode == "4")
        #expect(try await store.load(for: .truecaller) == nil)
        // The flow is still pending: the user can try again.
        #expect(await client.pendingChallenge(for: .truecaller) == challenge)
    }

    @Test("an error return on the truecallersdk-<appKey> scheme is claimed and mapped")
    func urlSchemeErrorReturnIsClaimed() async throws {
        let client = try client()
        let (_, url) = try await handoff(client)
        let declined = try backend.app.decline(url)
        var components = try #require(URLComponents(url: declined, resolvingAgainstBaseURL: false))
        components.scheme = "truecallersdk-one-tap-key"
        components.host = nil
        components.path = ""
        let schemeLink = try #require(components.url)
        #expect(provider().canHandle(schemeLink))
        let error = await #expect(throws: AuthError.self) { try await client.handleRedirect(schemeLink) }
        #expect(error?.code == .cancelledByProvider)
    }

    @Test("without the Truecaller app, one-tap with a fallback number runs the OTP flow; without one, code 8")
    func fallsBackToTheOTPFlow() async throws {
        backend.app.isInstalled = false
        let client = try client()
        let phone = try PhoneNumber("+91 98765 43210")
        let step = try await client.signIn(with: .truecaller, .truecallerOneTap(fallback: phone))
        let challenge = try #require(step.challenge)
        #expect(challenge.kind == .oneTimeCode(length: 6, channel: .sms, linkAlsoSent: false))
        let code = try #require(sandbox.inbox.latest(for: phone.e164, channel: .sms)?.code)
        let session = try #require(
            try await client.submit(
                ChallengeAnswer(code: code, name: try PersonName(firstName: "Asha")), for: challenge
            )
            .session)
        #expect(session.credentials.accessToken != nil)

        let requests = sandbox.requestCount
        let missing = await #expect(throws: AuthError.self) {
            try await client.signIn(with: .truecaller, .truecallerOneTap())
        }
        #expect(missing?.code == .unsupported)
        #expect(missing?.providerCode == "8")
        #expect(sandbox.requestCount == requests, "refused before any network call")
    }

    @Test("bad one-tap input is refused before any network call or hand-off")
    func badInputIsRefusedLocally() async throws {
        let client = try client()
        for nonce in ["", " padded ", String(repeating: "n", count: 129)] {
            let error = await #expect(throws: AuthError.self) {
                try await client.signIn(
                    with: .truecaller, .truecallerOneTap(options: [TruecallerProvider.requestNonceOption: nonce]))
            }
            #expect(error?.code == .invalidInput)
        }
        var plainLink = configuration
        plainLink.appLink = URL(string: "myapp://truecaller")!
        let noUniversalLink = try AuthClient(
            providers: [TruecallerProvider(configuration: plainLink, app: .installed)], transport: sandbox.transport,
            time: sandbox.time)
        let error = await #expect(throws: AuthError.self) {
            try await noUniversalLink.signIn(with: .truecaller, .truecallerOneTap())
        }
        #expect(error?.code == .configuration)
        #expect(error?.providerCode == "2")
        #expect(backend.app.requestCount == 0 && sandbox.requestCount == 0)
    }

    @Test("the app's own request nonce is sent and checked")
    func presetNonceIsUsed() async throws {
        let client = try client()
        let step = try await client.signIn(
            with: .truecaller, .truecallerOneTap(options: [TruecallerProvider.requestNonceOption: "app-nonce-1"]))
        guard case .oauthRedirect(let url)? = step.challenge?.kind else {
            Issue.record("no hand-off")
            return
        }
        #expect(try backend.app.requestNonce(of: url) == "app-nonce-1")
        #expect(
            try await client.handleRedirect(try backend.app.approve(url, now: sandbox.clock.wallNow))?.session != nil)
    }

    @Test("a return link without a pending one-tap flow is challengeNotPending; foreign links are not claimed")
    func linksOutsideAFlow() async throws {
        let provider = provider()
        let client = try client()
        let (_, url) = try await handoff(client)
        let link = try backend.app.approve(url, now: sandbox.clock.wallNow)
        let other = try self.client()
        let error = await #expect(throws: AuthError.self) { try await other.handleRedirect(link) }
        #expect(error?.code == .challengeNotPending)
        for foreign in [
            "https://app.example.test/truecaller?state=x", "https://other.example.test/truecaller?response=AAAA",
            "otherapp://cb?error=AAAA", "https://app.example.test:8443/truecaller?response=AAAA",
        ] {
            #expect(!provider.canHandle(URL(string: foreign)!), "\(foreign)")
        }
    }

    @Test("hostile return links are malformedResponse (13), never a crash")
    func hostileReturnLinks() async throws {
        let client = try client()
        _ = try await handoff(client)
        let bases = [
            "https://app.example.test/truecaller?response=", "https://app.example.test/truecaller?error=",
        ]
        let bodies = [
            "", "%%%", "YnBsaXN0MDA=", Base64.encode(Array("bplist00".utf8) + [UInt8](repeating: 0xFF, count: 40)),
            Base64.encode(BinaryPropertyList.encode(.array([.string("x")]))),
            Base64.encode(KeyedArchive.encode(KeyedArchiveObject(classes: ["TCTrueProfileResponse"], fields: [:]))),
            String(repeating: "A", count: 40_000),
        ]
        for base in bases {
            for body in bodies {
                let text = base + (body.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
                guard let url = URL(string: text) else { continue }
                let error = await #expect(throws: AuthError.self) { try await client.handleRedirect(url) }
                #expect(error?.code == .malformedResponse, "\(base) \(body.prefix(20))")
            }
        }
    }
}
