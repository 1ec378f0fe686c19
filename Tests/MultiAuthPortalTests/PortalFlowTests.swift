import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthSandbox
import Testing

@testable import MultiAuthPortal

@Suite(.timeLimit(.minutes(10)))
struct PortalFlowTests {
    @Test func magicLinkSignsInWithLifetimesAndReplaysTheRedirect() async throws {
        let bed = try PortalWorld(totpRequired: false)
        let start = try await bed.client.signIn(with: .portal, .email("  User@Example.com "))
        let challenge = try #require(start.challenge)
        #expect(challenge.kind == .magicLink(channel: .email))
        let link = try require_link(bed.sandbox.inbox.latest(for: PortalWorld.email)?.link)
        let now = bed.sandbox.clock.wallNow
        let session = try #require(try await bed.client.handleRedirect(link)?.session)
        #expect(session.credentials.expiresAt == now.addingTimeInterval(24 * 3600))
        #expect(session.maximumLifetimeEndsAt == now.addingTimeInterval(7 * 24 * 3600))
        #expect(session.user.email?.identityKey == PortalWorld.email)
        #expect(try await bed.store.load(for: .portal) == session)
        let requests = bed.sandbox.requestCount
        let replay = try #require(try await bed.client.handleRedirect(link)?.session)
        #expect(replay == session)
        #expect(bed.sandbox.requestCount == requests, "a replayed redirect makes no network call")
    }

    @Test func magicLinkThenTOTPEnrollmentWrongCodeThenRightCode() async throws {
        let bed = try PortalWorld()
        let step = try await bed.magicLinkRedirect()
        let challenge = try #require(step.challenge)
        guard case .totp(let digits, let enrollment?) = challenge.kind else {
            Issue.record("expected a TOTP challenge with enrollment, got \(challenge.kind)")
            return
        }
        #expect(digits == 6)
        let secret = try #require(bed.backend.totpSecret(for: PortalWorld.email))
        #expect(enrollment.totpSecret?.reveal() == Base32.encode(secret))
        let uri = try enrollment.parsedURI()
        #expect(uri.issuer == PortalBackend.issuer && uri.account == PortalWorld.email && uri.secretBytes == secret)
        #expect(try enrollment.qrCode().version >= 1)

        let code = try bed.code()
        let requests = bed.sandbox.requestCount
        await #expect(throws: AuthError.self) {
            try await bed.client.submit(ChallengeAnswer(code: bed.code(offsetSteps: 5)), for: challenge)
        }
        do {
            _ = try await bed.client.submit(ChallengeAnswer(code: bed.code(offsetSteps: 5)), for: challenge)
        } catch let error as AuthError {
            #expect(error.code == .invalidCode)
        }
        #expect(bed.sandbox.requestCount == requests + 2)
        let session = try #require(try await bed.client.submit(ChallengeAnswer(code: code), for: challenge).session)
        #expect(bed.backend.isEnrolled(PortalWorld.email))
        #expect(session.user.id.hasPrefix("eu_"))
        #expect(try await bed.store.load(for: .portal) == session)
    }

    @Test func oauthTOTPEnrollmentThenSecondSignInWithoutEnrollment() async throws {
        let bed = try PortalWorld()
        let redirect = try await bed.oauthRedirectURL(.google)
        #expect(redirect.absoluteString.contains("login_type=GOOGLE"))
        let challenge = try #require(try await bed.client.handleRedirect(redirect)?.challenge)
        guard case .totp(_, let enrollment) = challenge.kind else {
            Issue.record("expected TOTP")
            return
        }
        #expect(enrollment != nil)
        let session = try #require(
            try await bed.client.submit(ChallengeAnswer(code: bed.code()), for: challenge).session)
        #expect(session.user.attributes["authMethod"] == "GOOGLE")

        bed.sandbox.clock.advance(by: .seconds(30))
        let again = try #require(
            try await bed.client.handleRedirect(try await bed.oauthRedirectURL(.google))?.challenge)
        guard case .totp(_, let second) = again.kind else {
            Issue.record("expected TOTP")
            return
        }
        #expect(second == nil, "enrollment is offered only until the first correct code")
        #expect(try await bed.client.submit(ChallengeAnswer(code: bed.code()), for: again).session != nil)
    }

    @Test func oauthStateIsSingleUseAndForeignOrStaleStateIsRefused() async throws {
        let bed = try PortalWorld()
        let step = try await bed.client.signIn(with: .portal, .oauth(.apple))
        guard case .oauthRedirect(let authorize)? = step.challenge?.kind else {
            Issue.record("no OAuth URL")
            return
        }
        let first = try await bed.browse(authorize)
        #expect(first.absoluteString.contains("login_type=APPLE"))
        let reused = try await bed.browse(authorize)
        #expect(reused.absoluteString.hasSuffix("?error=oauth_failed"))
        do {
            _ = try await bed.client.handleRedirect(reused)
            Issue.record("expected an error")
        } catch let error as AuthError {
            #expect(error.code == .cancelledByProvider && error.providerCode == "oauth_failed")
        }
        let forged = ConformanceForge.replacingState(authorize)
        let response = try await bed.sandbox.transport.send(HTTPRequest(method: .get, url: forged))
        #expect(response.status == 400 && PortalBackend.redirectLocation(response) == nil)

        let stale = try await bed.client.signIn(with: .portal, .oauth(.google))
        guard case .oauthRedirect(let old)? = stale.challenge?.kind else {
            Issue.record("no OAuth URL")
            return
        }
        bed.sandbox.clock.advance(by: .seconds(601))
        #expect(try await bed.browse(old).absoluteString.hasSuffix("?error=oauth_failed"))
    }

    @Test(arguments: [
        ("blank", ""),
        ("two parts", "eyJhbGciOiJIUzI1NiJ9.eyJlbmRVc2VySWQiOiJ1MSJ9"),
        ("not base64url", "eyJhbGciOiJIUzI1NiJ9.eyJlbmRVc2VySWQi+OiJ1MSJ9.c2ln"),
        ("no endUserId", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1MSJ9.c2ln"),
        ("blank endUserId", "eyJhbGciOiJIUzI1NiJ9.eyJlbmRVc2VySWQiOiIgIn0.c2ln"),
        ("claims not JSON", "eyJhbGciOiJIUzI1NiJ9.bm90IGpzb24.c2ln"),
    ])
    func invalidUserJwtIsRefusedWithoutNetwork(label: String, token: String) async throws {
        let bed = try PortalWorld()
        var state = ProviderState()
        state[revealing: "userJwt"] = token
        let challenge = Challenge(
            flowID: .random(), provider: .portal, kind: .totp(digits: 6, enrollment: nil),
            issuedAt: bed.sandbox.clock.wallNow,
            providerState: state)
        do {
            _ = try await bed.client.submit(ChallengeAnswer(code: "123456"), for: challenge)
            Issue.record("\(label): expected invalidInput")
        } catch let error as AuthError {
            #expect(error.code == .invalidInput, "\(label)")
            #expect(error.reason == .invalidToken, "\(label)")
            #expect(!token.isEmpty ? !error.description.contains(token) : true)
        }
        #expect(bed.sandbox.requestCount == 0, "\(label): no network call")
    }

    /// Re-using an accepted TOTP code in the same time step is `codeAlreadyUsed`, not
    /// `invalidCode` (the backend's replay guard answers 409, and the adapter keeps that
    /// distinction); the challenge stays usable and the next step's code signs in.
    @Test func reusedAcceptedTOTPCodeIsCodeAlreadyUsed() async throws {
        let bed = try PortalWorld()
        let first = try #require(try await bed.magicLinkRedirect().challenge)
        let code = try bed.code()
        #expect(try await bed.client.submit(ChallengeAnswer(code: code), for: first).session != nil)
        // A new sign-in (OAuth, same user) in the same time step: the same code is a replay
        // (RFC 6238 §5.2, Docs/Cases.md, B08) even though the new userJwt is fresh.
        let second = try #require(
            try await bed.client.handleRedirect(try await bed.oauthRedirectURL(.google))?.challenge)
        let error = await #expect(throws: AuthError.self) {
            try await bed.client.submit(ChallengeAnswer(code: code), for: second)
        }
        #expect(error?.code == .codeAlreadyUsed)
        #expect(error?.providerCode == "409")
        bed.sandbox.clock.advance(by: .seconds(30))
        #expect(try await bed.client.submit(ChallengeAnswer(code: bed.code()), for: second).session != nil)
    }

    /// The TOTP step expires with its `userJwt` (`exp − iat` = 600 s, on the client's clock): a
    /// stale step is refused locally as `expired`, instead of a 401 that reads as a wrong code.
    @Test func expiredTOTPStepIsRefusedLocally() async throws {
        let bed = try PortalWorld()
        let challenge = try #require(try await bed.magicLinkRedirect().challenge)
        #expect(challenge.expiresAt == bed.sandbox.clock.wallNow.addingTimeInterval(600))
        bed.sandbox.clock.advance(by: .seconds(601))
        let requests = bed.sandbox.requestCount
        let error = await #expect(throws: AuthError.self) {
            try await bed.client.submit(ChallengeAnswer(code: bed.code()), for: challenge)
        }
        #expect(error?.code == .expired)
        #expect(bed.sandbox.requestCount == requests, "refused before any network call")
    }

    /// The sandbox requires `fromEmail` and `templateId` as the real backend does, so an adapter
    /// that omits them fails here too; its 400 is a request error, not account abstraction.
    @Test func sandboxRequiresFromEmailAndTemplateID() async throws {
        let bed = try PortalWorld()
        let base = try PortalConfiguration.sandbox().authBaseURL.appending(path: "magic-links")
        for body in [
            #"{"email":"a@b.co","redirectUrl":"multiauth-portal://auth/callback"}"#,
            #"{"email":"a@b.co","redirectUrl":"multiauth-portal://auth/callback","fromEmail":"x@y.co","templateId":" "}"#,
        ] {
            let request = HTTPRequest(
                method: .post, url: base,
                headers: [
                    "x-portal-auth-environment-id": PortalBackend.defaultEnvironmentID,
                    "Content-Type": "application/json",
                ],
                body: Data(body.utf8))
            let response = try await bed.sandbox.transport.send(request)
            #expect(response.status == 400)
            #expect(
                String(decoding: response.body, as: UTF8.self) == #"{"error":"fromEmail and templateId are required"}"#)
        }
        #expect(bed.sandbox.inbox.latest(for: "a@b.co") == nil)
    }

    @Test func storageFailureThenRetryFinishesWithoutNetwork() async throws {
        let bed = try PortalWorld()
        let challenge = try #require(try await bed.magicLinkRedirect().challenge)
        let code = try bed.code()
        await bed.store.failNext(.save)
        do {
            _ = try await bed.client.submit(ChallengeAnswer(code: code), for: challenge)
            Issue.record("expected storageFailure")
        } catch let error as AuthError {
            #expect(error.code == .storageFailure)
        }
        #expect(try await bed.store.load(for: .portal) == nil)
        let requests = bed.sandbox.requestCount
        let session = try #require(try await bed.client.submit(ChallengeAnswer(code: code), for: challenge).session)
        #expect(bed.sandbox.requestCount == requests, "the retry makes no network call")
        #expect(try await bed.store.load(for: .portal) == session)
    }

    @Test func redirectRedeliveredDuringTOTPReturnsTheSameChallenge() async throws {
        let bed = try PortalWorld()
        _ = try await bed.client.signIn(with: .portal, .email(PortalWorld.email))
        let link = try require_link(bed.sandbox.inbox.latest(for: PortalWorld.email)?.link)
        let challenge = try #require(try await bed.client.handleRedirect(link)?.challenge)
        let requests = bed.sandbox.requestCount
        let again = try #require(try await bed.client.handleRedirect(link)?.challenge)
        #expect(again == challenge)
        #expect(bed.sandbox.requestCount == requests)
    }

    @Test func magicLinkRateLimitIsNotRetried() async throws {
        let bed = try PortalWorld()
        _ = try await bed.client.signIn(with: .portal, .email(PortalWorld.email))
        do {
            _ = try await bed.client.signIn(with: .portal, .email(PortalWorld.email))
            Issue.record("expected rateLimited")
        } catch let error as AuthError {
            #expect(error.code == .rateLimited)
        }
        #expect(bed.sandbox.requestCount(pathPrefix: "/api/v3/auth/magic-links") == 2)
        bed.sandbox.clock.advance(by: .seconds(60))
        #expect(try await bed.client.signIn(with: .portal, .email(PortalWorld.email)).challenge != nil)
    }

    @Test func redirectWithoutPendingFlowIsRefused() async throws {
        let bed = try PortalWorld()
        let url = URL(string: PortalBackend.defaultRedirectURL + "?token=abc&authMethod=EMAIL_MAGIC_LINK")!
        do {
            _ = try await bed.client.handleRedirect(url)
            Issue.record("expected challengeNotPending")
        } catch let error as AuthError {
            #expect(error.code == .challengeNotPending)
        }
        #expect(bed.sandbox.requestCount == 0)
    }

    @Test func secretsNeverAppearInDescriptionsOrDumps() async throws {
        let bed = try PortalWorld()
        let challenge = try #require(try await bed.magicLinkRedirect().challenge)
        let jwt = try #require(challenge.providerState[revealing: "userJwt"])
        guard case .totp(_, let enrollment?) = challenge.kind else {
            Issue.record("expected enrollment")
            return
        }
        let secret = try #require(enrollment.totpSecret).reveal()
        let session = try #require(
            try await bed.client.submit(ChallengeAnswer(code: bed.code()), for: challenge).session)
        let cst = try #require(session.credentials.accessToken).reveal()
        var dumps = ""
        dump(challenge, to: &dumps)
        dump(session, to: &dumps)
        dump(enrollment, to: &dumps)
        dump(try enrollment.qrCode(), to: &dumps)
        let texts = [
            dumps, String(describing: challenge), String(describing: session), String(describing: enrollment),
            String(reflecting: challenge),
            String(describing: try enrollment.qrCode()),
        ]
        for text in texts {
            for needle in [jwt, secret, cst, enrollment.otpauthURI.reveal(), "otpauth://"] {
                #expect(!text.contains(needle))
            }
        }
    }
}

/// The conformance kit's "forge" rule (replace the `state` query item), local until the kit lands.
enum ConformanceForge {
    static func replacingState(_ url: URL) -> URL {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
        components.queryItems =
            (components.queryItems ?? []).filter { $0.name != "state" } + [URLQueryItem(name: "state", value: "forged")]
        return components.url!
    }
}
