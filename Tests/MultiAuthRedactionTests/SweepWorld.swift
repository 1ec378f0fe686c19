import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthCrypto
import MultiAuthDynamic
import MultiAuthHTTP
import MultiAuthOTPless
import MultiAuthPortal
import MultiAuthSandbox
import MultiAuthSandboxKit
import MultiAuthTestKeys
import MultiAuthTruecaller
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Secrets planted in every value the sweep builds. Each contains `PLANTED`, so one search
/// finds any of them; the base32 TOTP secret is planted by its encoding too.
enum Plant {
    static let token = "PLANTED-ACCESS-TOKEN-9f8e7d"
    static let refresh = "PLANTED-REFRESH-TOKEN-6c5b4a"
    static let idToken = "PLANTED-ID-TOKEN-3e2d1c"
    static let code = "PLANTEDCODE482913"
    static let state = "PLANTED-STATE-0a9b8c"
    static let pkce = "PLANTED-PKCE-CHALLENGE-7d6e5f"
    static let nonce = "PLANTED-NONCE-4c3b2a"
    static let payload = "PLANTED-PAYLOAD-base64"
    static let signature = "PLANTED-SIGNATURE-base64"
    static let verifier = "PLANTED-VERIFIER-hmac"
    static let appKey = "PLANTED-APP-KEY-1f2e3d"
    static let clientSecret = "PLANTED-CLIENT-SECRET-5a6b7c"
    static let cookie = "PLANTED-COOKIE-session"
    static let claim = "PLANTED-CLAIM-VALUE"
    static let header = "PLANTED-HEADER-VALUE"
    static let body = "PLANTED-BODY-VALUE"
    static let totpBase32 = "PLANTEDSECRETKEY"
    /// What every rendering is searched for.
    static let markers = ["PLANTED", totpBase32]
}

/// A `URLProtocol` that refuses every load, so `URLSessionTransport` builds its real error.
final class RefusingURLProtocol: URLProtocol {
    override class func canInit(with request: URLRequest) -> Bool { true }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }
    override func startLoading() { client?.urlProtocol(self, didFailWithError: URLError(.cannotConnectToHost)) }
    override func stopLoading() {}

    /// The real `URLSessionTransport` over a session whose every load fails (one session for
    /// the whole run: FoundationNetworking does not like sessions that come and go).
    static func transport() -> URLSessionTransport { shared }

    private static let shared: URLSessionTransport = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [RefusingURLProtocol.self]
        return URLSessionTransport(session: URLSession(configuration: configuration))
    }()
}

/// A recording transport that passes requests to `base` but fails number `failAt` (1-based)
/// through the refusing `URLSessionTransport`, so the error is the one the real transport
/// builds. Without a cellular path, as the transport it stands in for.
func failingAtTransport(_ base: any HTTPTransport, failAt: Int) -> ScriptedTransport {
    let transport = ScriptedTransport()
    // A request is recorded before the handler answers it: the count is its number.
    transport.setHandler { [weak transport] request in
        let number = transport?.requests.count ?? 0
        return try await (number == failAt ? RefusingURLProtocol.transport() : base).send(request)
    }
    transport.isCellularAvailable = false
    return transport
}

/// One sandbox with every built-in backend, and the providers that talk to them.
final class SweepWorld: Sendable {
    let sandbox: Sandbox
    let dynamic: DynamicBackend
    let truecaller: TruecallerBackend
    let portal: PortalBackend
    let otpless: OTPlessBackend
    let reference: ReferenceBackend
    let truecallerConfiguration: TruecallerConfiguration

    /// A world of its own for each test: tests run in parallel, and one that moves the manual
    /// clock (resend waits, the failing-request runs) must not shift another's TOTP step. The
    /// backends sign with the committed fixture keys (`MultiAuthTestKeys`), so building one is
    /// cheap and generates no key.
    init() throws {
        sandbox = Sandbox(seed: 15)
        dynamic = DynamicBackend(signingKey: TestKeys.rsaA)
        truecaller = TruecallerBackend(signingKey: TestKeys.rsaB)
        portal = try PortalBackend()
        otpless = OTPlessBackend(
            merchant: OTPlessMerchant(
                appID: "SANDBOXAPP", clientSecret: Secret(Plant.clientSecret), phoneAuthType: .otpLink,
                fallbackDelay: .seconds(900)),
            signingKey: TestKeys.rsaC)
        reference = ReferenceBackend()
        sandbox.register(dynamic, host: DynamicBackend.defaultHost)
        sandbox.register(truecaller, host: TruecallerBackend.defaultHost)
        sandbox.register(portal, host: PortalBackend.defaultHost)
        sandbox.register(reference, host: ReferenceProtocol.defaultHost)
        otpless.install(in: sandbox)
        truecallerConfiguration = TruecallerConfiguration(
            appKey: Plant.appKey, appLink: URL(string: "https://app.example.com/tc")!,
            baseURL: URL(string: "https://\(TruecallerBackend.defaultHost)")!, deviceID: "sweep-device")
    }

    /// One provider as the flows drive it.
    struct Lane: Sendable {
        let id: AuthProviderID
        let provider: any AuthProvider
        let harness: ConformanceHarness
    }

    var lanes: [Lane] {
        let portal = self.portal
        var portalHarness = ConformanceHarness.portal(backends: PortalBackendRegistry())
        portalHarness.readCode = { sandbox, request, challenge in
            guard case .totp(let digits, _) = challenge.kind, case .email(let email) = request.identity,
                let secret = portal.totpSecret(for: email.identityKey)
            else { throw ConformanceFailure("no TOTP secret") }
            return try TOTP(secret: secret, digits: digits).code(at: sandbox.clock.wallNow)
        }
        return [
            Lane(id: "reference", provider: ReferenceProvider(), harness: ProviderConformance.reference().harness),
            Lane(
                id: .dynamic,
                provider: DynamicProvider(
                    environmentID: DynamicBackend.defaultEnvironmentID, baseURL: DynamicBackend.baseURL()),
                harness: .dynamic()),
            Lane(
                id: .truecaller, provider: TruecallerProvider(configuration: truecallerConfiguration),
                harness: BuiltInConformance.truecallerHarness),
            Lane(
                id: .portal, provider: PortalProvider(configuration: BuiltInConformance.portalConfiguration()),
                harness: portalHarness),
            Lane(
                id: .otpless, provider: try! OTPlessProvider(configuration: .sandbox()),
                harness: BuiltInConformance.otplessHarness),
        ]
    }

    /// What one flow produced: the errors it threw, the sign-out outcome, the session.
    struct FlowResult: Sendable {
        var errors: [AuthError] = []
        var otherErrors: [String] = []
        var session: AuthSession?
        var challenges: [Challenge] = []
        var signOut: AuthClient.SignOutOutcome?
        var codes: [String] = []
        /// The provider and client the flow ran with (with whatever they remember).
        var provider: (any AuthProvider)?
        var client: AuthClient?
    }

    /// Signs in with `lane` for identity `index` through `transport` (answering every challenge),
    /// resends once when the provider can, refreshes when it can, and signs out. Stops at the
    /// first error, which it records.
    func runFlow(_ lane: Lane, index: Int, transport: any HTTPTransport) async -> FlowResult {
        var result = FlowResult()
        do {
            let client = try AuthClient(
                providers: [lane.provider], store: InMemorySessionStore(), transport: transport, time: sandbox.time)
            result.provider = lane.provider
            result.client = client
            let request = lane.harness.validRequest(index)
            var step = try await client.signIn(with: lane.id, request)
            if case .challenge(let challenge) = step, lane.provider is any ResendableProvider,
                lane.harness.abilities.contains(.resend), let at = challenge.resendAvailableAt
            {
                let wait = at.timeIntervalSince(sandbox.clock.wallNow)
                if wait > 0 { sandbox.clock.advance(by: .interval(wait)) }
                step = .challenge(try await client.resend(challenge))
            }
            for _ in 0..<4 {
                guard case .challenge(let challenge) = step else { break }
                result.challenges.append(challenge)
                switch challenge.kind {
                case .magicLink, .oauthRedirect:
                    let url = try lane.harness.redirect!.validURL(sandbox, request, challenge)
                    step = try await client.handleRedirect(url, resuming: challenge) ?? step
                default:
                    let code = try lane.harness.readCode(sandbox, request, challenge)
                    result.codes.append(code)
                    step = try await client.submit(ChallengeAnswer(code: code), for: challenge)
                }
            }
            guard case .signedIn(var session) = step else { return result }
            result.session = session
            if lane.provider is any RefreshableProvider {
                session = try await client.refresh(lane.id)
                result.session = session
            }
            result.signOut = try await client.signOut(lane.id)
            if let remote = result.signOut?.remoteError { result.errors.append(remote) }
        } catch let error as AuthError {
            result.errors.append(error)
        } catch {
            result.otherErrors.append(String(describing: type(of: error)))
        }
        return result
    }
}

extension HTTPRequest {
    /// The values in this request that are credentials or personal data: header values
    /// (but media types and the user agent), query values, JSON body strings and path
    /// segments that are marked secret or look like credentials.
    var secretValues: [String] {
        var values: [String] = []
        let benign: Set<String> = ["content-type", "accept", "user-agent", "content-length"]
        values += headers.filter { !benign.contains($0.key.lowercased()) }.map(\.value)
        if let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems {
            values += items.compactMap(\.value)
        }
        if let body, let json = try? JSONValue(parsing: Array(body)) {
            var stack = [json]
            while let value = stack.popLast() {
                switch value {
                case .string(let text): values.append(text)
                case .array(let elements): stack += elements
                case .object(let members): stack += Array(members.values)
                default: break
                }
            }
        }
        values += url.path.split(separator: "/").map(String.init).filter { HTTPRequest.looksLikeCredential($0) }
        return values.filter { $0.count >= 6 }
    }
}
