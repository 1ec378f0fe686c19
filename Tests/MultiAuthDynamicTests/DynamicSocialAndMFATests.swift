import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthDynamic
import MultiAuthSandbox
import Testing

/// Dynamic social login and the MFA TOTP step through `AuthClient` against the emulated
/// backend (Docs/Providers/Dynamic.md, "Social login" and "MFA").
@Suite(.timeLimit(.minutes(10)))
struct DynamicSocialAndMFATests {
    /// The social hand-off URL of a challenge.
    func authorizeURL(_ step: SignInStep) throws -> URL {
        guard case .oauthRedirect(let url)? = step.challenge?.kind else {
            throw AuthError(.generic, "expected a social hand-off, got \(step)")
        }
        return url
    }

    /// The code of `backend`'s emulated authenticator for `destination` at the sandbox's time.
    func totp(_ f: DynamicWorld, _ destination: String, offset: Int64 = 0) throws -> String {
        let secret = try #require(f.backend.totpSecret(for: destination))
        let now = Int64(f.sandbox.clock.wallNow.timeIntervalSince1970.rounded(.down))
        return try TOTP(secret: secret).code(at: now + offset)
    }

    @Test(
        "social login: hand-off, return link, handleRedirect signs in, stores, announces; a second client restores it",
        arguments: ["apple", "google", "github"] as [OAuthProviderName])
    func socialLoginSignsIn(provider: OAuthProviderName) async throws {
        let f = try DynamicWorld()
        let events = f.client.events.subscribe(bufferCapacity: 64)
        let step = try await f.client.signIn(with: .dynamic, .oauth(provider))
        let url = try authorizeURL(step)
        #expect(url.path == "/oauth-sandbox/\(provider.rawValue)/authorize")
        let state = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "state" }
        #expect((state?.value?.count ?? 0) >= 32)
        #expect(f.sandbox.requestCount(pathPrefix: f.path("providers/\(provider.rawValue)/initAuth")) == 1)

        let link = try f.backend.approveSocialLogin(url, email: "ada@example.com", now: f.sandbox.clock.wallNow)
        #expect(link.scheme == "multiauth-sandbox")
        let session = try #require(try await f.client.handleRedirect(link)?.session)
        #expect(session.user.email == (try EmailAddress("ada@example.com")))
        #expect(session.user.identities.map(\.kind) == [provider.rawValue])
        #expect(session.credentials.scopes == ["user:basic"])
        #expect(try await f.store.load(for: .dynamic) == session)
        var signedIn = false
        for await event in events {
            if case .signedIn(let announced) = event.kind {
                #expect(announced == session)
                signedIn = true
                break
            }
        }
        #expect(signedIn)
        let second = try f.sandbox.makeClient(providers: [f.provider], store: f.store, autoRefresh: .disabled)
        #expect(try await second.validSession(for: .dynamic) == session)
        // The server verifies the token as any other Dynamic session.
        #expect(
            try await f.verifier().verify(session.credentials.accessToken?.reveal() ?? "").scopes.contains("user:basic")
        )
    }

    @Test("a return with another state, a declined consent and a spent return are typed errors; nothing stored")
    func socialRefusals() async throws {
        let f = try DynamicWorld()
        let url = try authorizeURL(try await f.client.signIn(with: .dynamic, .oauth(.google)))
        let genuine = try f.backend.approveSocialLogin(url, email: "ada@example.com", now: f.sandbox.clock.wallNow)

        var forged = try #require(URLComponents(url: genuine, resolvingAgainstBaseURL: false))
        forged.queryItems = forged.queryItems?.map {
            $0.name == "dynamicOauthState" ? URLQueryItem(name: $0.name, value: "forged-state") : $0
        }
        let wrongState = await #expect(throws: AuthError.self) { try await f.client.handleRedirect(forged.url!) }
        #expect(wrongState?.code == .challengeNotPending)

        let declined = await #expect(throws: AuthError.self) {
            try await f.client.handleRedirect(try f.backend.declineSocialLogin(url))
        }
        #expect(declined?.code == .cancelledByProvider)
        #expect(try await f.store.load(for: .dynamic) == nil)
        #expect(await f.client.pendingChallenge(for: .dynamic) != nil, "the user can try again")

        let pending = try #require(await f.client.pendingChallenge(for: .dynamic))
        let session = try #require(try await f.client.handleRedirect(genuine)?.session)
        #expect(try await f.store.load(for: .dynamic) == session)
        // The provider exchanges a return once, even without the client's single-flight.
        let spent = await #expect(throws: AuthError.self) {
            try await f.provider.handleRedirect(
                genuine, pending: pending,
                context: AuthContext(transport: f.sandbox.transport, time: f.sandbox.time))
        }
        #expect(spent?.code == .codeAlreadyUsed)
    }

    @Test("social requests the adapter cannot serve are refused before any network call")
    func socialInputIsCheckedLocally() async throws {
        let f = try DynamicWorld()
        for name in ["telegram", "farcaster", "whatsapp", "truecaller"] as [OAuthProviderName] {
            let error = await #expect(throws: AuthError.self) {
                try await f.client.signIn(with: .dynamic, .oauth(name))
            }
            #expect(error?.code == .unsupported, "\(name)")
        }
        var noLink = try DynamicConfiguration.sandbox()
        noLink.socialRedirectURL = nil
        let bare = try f.sandbox.makeClient(providers: [DynamicProvider(configuration: noLink)])
        let error = await #expect(throws: AuthError.self) { try await bare.signIn(with: .dynamic, .oauth(.apple)) }
        #expect(error?.code == .configuration)
        #expect(f.sandbox.requestCount == 0)
        #expect(throws: AuthError.self) {
            try DynamicConfiguration.sandbox(socialRedirectURL: URL(string: "callback")!)
        }
    }

    @Test("a provider the environment has not enabled, or a deep link it has not whitelisted, is configuration")
    func socialConfigurationRefusals() async throws {
        let f = try DynamicWorld()
        f.backend.setSocialProvider("github", enabled: false)
        let disabled = await #expect(throws: AuthError.self) {
            try await f.client.signIn(with: .dynamic, .oauth(.github))
        }
        #expect(disabled?.code == .configuration)
        #expect(disabled?.providerCode == "provider_not_available")
        f.backend.whitelistDeepLinks(["other-app://callback"])
        let unlisted = await #expect(throws: AuthError.self) {
            try await f.client.signIn(with: .dynamic, .oauth(.apple))
        }
        #expect(unlisted?.providerCode == "unauthorized_mobile_deeplink_url")
        #expect(unlisted?.code == .configuration)
    }

    @Test("foreign deep links are not claimed; hostile returns are typed errors")
    func socialLinksAreChecked() async throws {
        let f = try DynamicWorld()
        for text in [
            "multiauth-sandbox://dynamic/other?dynamicOauthState=x", "multiauth-sandbox://dynamic/callback?state=x",
            "other://dynamic/callback?dynamicOauthState=x", "https://dynamic/callback?dynamicOauthState=x",
        ] {
            #expect(!f.provider.canHandle(URL(string: text)!), "\(text)")
        }
        _ = try authorizeURL(try await f.client.signIn(with: .dynamic, .oauth(.google)))
        let long = "multiauth-sandbox://dynamic/callback?dynamicOauthState=" + String(repeating: "s", count: 9_000)
        let tooLong = await #expect(throws: AuthError.self) { try await f.client.handleRedirect(URL(string: long)!) }
        #expect(tooLong?.code == .invalidInput)
    }

    @Test("the MFA TOTP step: a wrong code keeps the step usable, the right code signs in with user:basic")
    func mfaTOTPStep() async throws {
        let f = try DynamicWorld()
        f.backend.requireMFA(for: "mfa@example.com")
        let events = f.client.events.subscribe(bufferCapacity: 64)
        let challenge = try #require(try await f.client.signIn(with: .dynamic, try .email("mfa@example.com")).challenge)
        let code = try #require(f.sandbox.inbox.latest(for: "mfa@example.com")?.code)
        let mfa = try #require(try await f.client.submit(ChallengeAnswer(code: code), for: challenge).challenge)
        #expect(mfa.kind == .totp(digits: 6, enrollment: nil))

        let right = try totp(f, "mfa@example.com")
        let wrongCode = right == "000000" ? "111111" : "000000"
        let wrong = await #expect(throws: AuthError.self) {
            try await f.client.submit(ChallengeAnswer(code: wrongCode), for: mfa)
        }
        #expect(wrong?.code == .invalidCode)
        #expect(wrong?.providerCode == "mfa_invalid_code")
        #expect(try await f.store.load(for: .dynamic) == nil)

        let session = try #require(try await f.client.submit(ChallengeAnswer(code: right), for: mfa).session)
        #expect(session.credentials.scopes == ["user:basic"])
        #expect(try await f.store.load(for: .dynamic) == session)
        var announced = false
        for await event in events {
            if case .signedIn(let s) = event.kind, s == session {
                announced = true
                break
            }
        }
        #expect(announced)
        #expect(
            try await f.verifier().verify(session.credentials.accessToken?.reveal() ?? "").userID == session.user.id)
        let second = try f.sandbox.makeClient(providers: [f.provider], store: f.store, autoRefresh: .disabled)
        #expect(try await second.validSession(for: .dynamic) == session)
    }

    @Test("a social sign-in of an MFA user continues with the TOTP step")
    func socialLoginWithMFA() async throws {
        let f = try DynamicWorld()
        f.backend.requireMFA(for: "ada@example.com")
        let url = try authorizeURL(try await f.client.signIn(with: .dynamic, .oauth(.apple)))
        let link = try f.backend.approveSocialLogin(url, email: "ada@example.com", now: f.sandbox.clock.wallNow)
        let mfa = try #require(try await f.client.handleRedirect(link)?.challenge)
        #expect(mfa.kind == .totp(digits: 6, enrollment: nil))
        #expect(try await f.store.load(for: .dynamic) == nil)
        let session = try #require(
            try await f.client.submit(ChallengeAnswer(code: try totp(f, "ada@example.com")), for: mfa).session)
        #expect(session.user.identities.map(\.kind) == ["apple"])
        #expect(try await f.store.load(for: .dynamic) == session)
    }

    @Test("an MFA-pending token is never a session: the token verifier refuses it, a refresh ends it")
    func mfaPendingTokensAreNotSessions() async throws {
        let f = try DynamicWorld()
        let token = try f.backend.mintToken(
            userID: "u", sessionID: "s", scopes: [DynamicBackend.requiresAdditionalAuthScope],
            issuedAt: f.sandbox.clock.wallNow)
        let refused = await #expect(throws: AuthError.self) { try await f.verifier().verify(token) }
        #expect(refused?.code == .unauthorized)
    }
}
