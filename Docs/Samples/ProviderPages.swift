// The Swift blocks of Docs/Providers/*.md, verbatim (Scripts/check_doc_blocks.py) inside
// functions whose parameters are the names each block leaves open. The sandbox walkthroughs
// run against the emulated backends; the production set-ups and server-side verifiers are
// compiled only (they need the real services).
import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthDynamic
import MultiAuthHTTP
import MultiAuthOTPless
import MultiAuthPortal
import MultiAuthSandbox
import MultiAuthTruecaller
import Testing

/// Docs/Providers/Dynamic.md, "Configuration".
func dynamicConfiguration() throws -> [DynamicProvider] {
    let provider = DynamicProvider(configuration: try .production(environmentID: "<environment UUID>"))
    // the emulated backend instead (app.dynamic.test; StandardSandbox wires it):
    let sandboxed = DynamicProvider(configuration: try .sandbox())
    return [provider, sandboxed]
}

/// Docs/Providers/Dynamic.md, "Server side": `config` and `env` are the app's Dynamic
/// environment, `request` the HTTP request the server received.
func dynamicServerSide(config: DynamicConfiguration, env: String, request: HTTPRequest) async throws -> DynamicVerifiedToken {
    let verifier = DynamicTokenVerifier(configuration: config, transport: URLSessionTransport(), time: .system,
                                        leeway: .seconds(60), issuer: "app.dynamicauth.com/\(env)", audience: "https://app.example.com")
    let token = try await verifier.verify(request.header("Authorization") ?? "")   // token.userID, token.scopes
    return token
}

/// Docs/Providers/Dynamic.md, "Sandbox".
func dynamicSandbox() async throws -> AuthSession {
    let sandbox = Sandbox()
    sandbox.register(try DynamicBackend(), host: DynamicBackend.defaultHost)         // "app.dynamic.test"
    let provider = DynamicProvider(configuration: try .sandbox())                     // https://app.dynamic.test/api/v0
    let client = try AuthClient(providers: [provider], transport: sandbox.transport, time: sandbox.time)
    let challenge = try await client.signIn(with: .dynamic, .email("user@example.com")).challenge!
    let code = sandbox.inbox.latest(for: "user@example.com", channel: .email)!.code!   // SMS: E.164 key, channel .sms
    let session = try await client.submit(ChallengeAnswer(code: code), for: challenge).session!
    return session
}

/// Docs/Providers/OTPless.md, "Set-up".
func otplessSetUp() throws -> (AuthClient, OTPlessProvider, Sandbox) {
    // Production: the real hosts. The bundle id is required (the SDK sends it with every call).
    let provider = try OTPlessProvider(configuration: .production(
        appID: "YOURAPPID",                                  // public; names the scheme otpless.yourappid
        packageName: Bundle.main.bundleIdentifier!,          // empty → .configuration
        preferredChannels: [.whatsapp, .sms],                // checked locally only: the dashboard sets the real order
        enabledChannels: [.whatsapp, .sms, .email, "google"])) // optional: makes 4003 a local check
    let client = try AuthClient(providers: [provider], transport: URLSessionTransport()) // no cellular path: no SNA
    // Apple platforms: transport: CellularTransport() (MultiAuthHTTP, Network framework) adds the path SNA needs

    // Sandbox: the same provider against the emulated server on reserved .test hosts.
    let sandbox = Sandbox()
    try OTPlessBackend().install(in: sandbox)               // user-auth.otpless.test, api.otpless.test
    let test = try OTPlessProvider(configuration: .sandbox()) // app id SANDBOXAPP, bundle id com.multiauth.sandbox
    return (client, test, sandbox)
}

/// Docs/Providers/OTPless.md, "Server side": `id`/`secret` are the OTPLESS client credentials,
/// `t` the transport, `session` a signed-in OTPLESS session.
func otplessServerSide(id: String, secret: String, t: any HTTPTransport, session: AuthSession) async throws {
    let verifier = OTPlessTokenVerifier(clientID: id, clientSecret: secret, transport: t, time: .system)
    let user = try await verifier.validate(token: session.credentials.accessToken!.reveal())   // POST /auth/v1/validate/token
    let jwt = try await verifier.verifyIDToken(session.credentials.idToken!.reveal())           // discovery → jwks_uri → RS256
    _ = (user, jwt)
}

/// Docs/Providers/Portal.md, "Configuration".
func portalConfiguration() throws -> [PortalProvider] {
    let portal = PortalProvider(configuration: try .production(
        authEnvironmentID: "…",                                  // x-portal-auth-environment-id
        redirectURL: URL(string: "myapp://auth/callback")!,      // allow-listed byte for byte
        fromEmail: "login@myapp.example", templateID: "…"))      // both, or neither (OAuth only)
    // the emulated backend instead (api.portal.test; StandardSandbox wires it):
    let sandboxed = PortalProvider(configuration: try .sandbox())
    return [portal, sandboxed]
}

/// Docs/Providers/Portal.md, the OAuth → TOTP walkthrough.
func portalSandbox() async throws -> AuthSession? {
    let sandbox = Sandbox(seed: 1)
    let backend = try PortalBackend()
    sandbox.register(backend, host: PortalBackend.defaultHost)
    let client = try AuthClient(providers: [PortalProvider(configuration: try .sandbox())], transport: sandbox.transport, time: sandbox.time)
    guard case .oauthRedirect(let authorize)? = try await client.signIn(with: .portal, .oauth(.google)).challenge?.kind else { return nil }
    let consent = try await sandbox.transport.send(HTTPRequest(method: .get, url: URL(string: authorize.absoluteString + "&login_hint=ada@example.com")!))
    let totpStep = try await client.handleRedirect(PortalBackend.redirectLocation(consent)!)!.challenge!   // .totp(6, enrollment)
    // show totpStep's enrollment.qrCode().terminalString(); the "authenticator app" computes:
    let code = try TOTP(secret: backend.totpSecret(for: "ada@example.com")!).code(at: sandbox.clock.wallNow)
    let session = try await client.submit(ChallengeAnswer(code: code), for: totpStep).session!
    return session
}

/// Docs/Providers/Truecaller.md, "Configuration": `installationID` is the app's stable
/// installation id.
func truecallerConfiguration(installationID: String) throws -> [TruecallerProvider] {
    let provider = TruecallerProvider(configuration: try .production(
        appKey: "<partner key>", appLink: URL(string: "https://example.com/truecaller")!,
        deviceID: installationID))            // IDFV on iOS; keep it stable (verifiedBefore)
    // the emulated backend instead (the same host layout on .test names; StandardSandbox wires it):
    let sandboxed = TruecallerProvider(configuration: try .sandbox())
    return [provider, sandboxed]
}

/// Docs/Providers/Truecaller.md, driving the sandbox.
func truecallerSandbox() async throws -> AuthSession {
    let sandbox = Sandbox(seed: 1)
    try TruecallerBackend().install(in: sandbox)
    let provider = TruecallerProvider(configuration: try .sandbox())
    let client = try AuthClient(providers: [provider], transport: sandbox.transport, time: sandbox.time)
    let phone = try PhoneNumber("+91 98765 43210")
    let challenge = try await client.signIn(with: .truecaller, .phone(phone)).challenge!
    let code = sandbox.inbox.latest(for: phone.e164, channel: .sms)!.code!   // or: try await sandbox.inbox.next(for: phone.e164)
    let session = try await client.submit(ChallengeAnswer(code: code, name: try PersonName(firstName: "Asha")), for: challenge).session!
    return session
}

/// Docs/Providers/Truecaller.md, "One-tap hand-off": the sandbox's emulated Truecaller app
/// answers the hand-off.
func truecallerOneTap() async throws -> AuthSession? {
    let sandbox = Sandbox(seed: 1)
    let backend = try TruecallerBackend()
    backend.install(in: sandbox)
    let app = backend.app                                                 // the emulated Truecaller app
    let provider = TruecallerProvider(configuration: try .sandbox(), app: TruecallerApp { app.isInstalled })
    let client = try AuthClient(providers: [provider], transport: sandbox.transport, time: sandbox.time)
    let phone = try PhoneNumber("+91 98765 43210")                        // used only without the Truecaller app
    guard case .oauthRedirect(let handoff)? = try await client.signIn(with: .truecaller, .truecallerOneTap(fallback: phone)).challenge?.kind else { return nil }
    // on a device: await TruecallerAppHandoff.open(handoff); the answer arrives as userActivity.webpageURL
    let returnLink = try app.approve(handoff, now: sandbox.time.now)      // or app.decline(handoff): cancelledByProvider
    let session = try await client.handleRedirect(returnLink)!.session!   // verified, stored, signedIn published
    return session
}

/// Docs/Providers/Dynamic.md, "Social login" and "MFA": Google through the emulated consent
/// page, then the TOTP step the environment asks of this user.
func dynamicSocialLogin() async throws -> AuthSession? {
    let sandbox = Sandbox()
    let backend = try DynamicBackend()
    sandbox.register(backend, host: DynamicBackend.defaultHost)
    backend.requireMFA(for: "ada@example.com")                                    // Ada has an authenticator app
    let provider = DynamicProvider(configuration: try .sandbox())                   // deep link multiauth-sandbox://dynamic/callback
    let client = try AuthClient(providers: [provider], transport: sandbox.transport, time: sandbox.time)
    guard case .oauthRedirect(let authorize)? = try await client.signIn(with: .dynamic, .oauth(.google)).challenge?.kind else { return nil }
    // on a device: open `authorize` in ASWebAuthenticationSession, callback scheme "multiauth-sandbox"
    let deepLink = try backend.approveSocialLogin(authorize, email: "ada@example.com", now: sandbox.time.now)
    let mfaStep = try await client.handleRedirect(deepLink)!.challenge!             // .totp(6 digits): MFA owed
    let code = try TOTP(secret: backend.totpSecret(for: "ada@example.com")!).code(at: sandbox.clock.wallNow)
    let session = try await client.submit(ChallengeAnswer(code: code), for: mfaStep).session!
    return session
}

@Suite(.timeLimit(.minutes(10)))
struct ProviderPagesSample {
    @Test func theSandboxWalkthroughsSignIn() async throws {
        #expect(try await dynamicSandbox().provider == .dynamic)
        #expect(try await portalSandbox()?.provider == .portal)
        #expect(try await truecallerSandbox().user.phone?.e164 == "+919876543210")
        #expect(try await truecallerOneTap()?.user.name?.fullName == "Asha Rao")
        #expect(try await dynamicSocialLogin()?.user.identities.map(\.kind) == ["google"])
    }

    @Test func theSandboxConfigurationsBuild() throws {
        #expect(try dynamicConfiguration().count == 2)
        #expect(try portalConfiguration().count == 2)
        #expect(try truecallerConfiguration(installationID: "installation-1").count == 2)
    }
}
