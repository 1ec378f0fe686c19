import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthCrypto
import MultiAuthPortal
import MultiAuthSandbox

/// The backend each check's sandbox got, so `readCode` can compute the TOTP from the user's
/// enrolled secret (`PortalBackend.totpSecret(for:)`).
public final class PortalBackendRegistry: @unchecked Sendable {
    /// Creates an empty registry.
    public init() {}

    private let lock = NSLock()
    private var backends: [ObjectIdentifier: PortalBackend] = [:]

    /// Creates a backend, registers it in `sandbox` and remembers it.
    public func install(in sandbox: Sandbox) throws {
        let backend = try PortalBackend()
        sandbox.register(backend, host: PortalBackend.defaultHost)
        lock.withLock { backends[ObjectIdentifier(sandbox)] = backend }
    }

    /// The backend installed in `sandbox`, if any.
    public func backend(of sandbox: Sandbox) -> PortalBackend? {
        lock.withLock { backends[ObjectIdentifier(sandbox)] }
    }
}

extension ConformanceHarness {
    /// The harness of `PortalProvider` against `PortalBackend` (TOTP required): e-mail
    /// identities `user<n>@example.com`, answered like an app: the magic link from the inbox
    /// (redirect), then the TOTP step with a code computed from the user's secret at the
    /// client's time.
    public static func portal(backends: PortalBackendRegistry, seed: UInt64 = 1) -> ConformanceHarness {
        let auth = "/api/v3/auth/"
        return ConformanceHarness(
            host: PortalBackend.defaultHost,
            installBackend: { sandbox in try backends.install(in: sandbox) },
            validRequest: { index in .email(try! EmailAddress("User\(index)@Example.com")) },
            invalidRequests: [
                .phone(try! PhoneNumber("+12025550199"), channel: .sms), .oauth(.github),
                .email(try! EmailAddress("user@example.com"), channel: .sms),
            ],
            readCode: { sandbox, request, challenge in
                guard case .totp(let digits, _) = challenge.kind else {
                    throw ConformanceFailure("Portal's only typed code is the TOTP step, not \(challenge.kind)")
                }
                guard case .email(let email) = request.identity,
                    let secret = backends.backend(of: sandbox)?.totpSecret(for: email.identityKey)
                else { throw ConformanceFailure("no TOTP secret is enrolled for \(request)") }
                return try TOTP(secret: secret, digits: digits).code(at: sandbox.clock.wallNow)
            },
            abilities: [.expiry, .redirect],
            unsupportedReasons: BuiltInConformance.portalReasons,
            errorFixtures: [
                ErrorFixture(
                    "magic-link rate limit", stage: .start, pathPrefix: auth + "magic-links", status: 429,
                    json: #"{"error":"Too many requests"}"#, headers: ["Retry-After": "60"], expectedCode: .rateLimited,
                    expectedProviderCode: "rateLimited"),
                ErrorFixture(
                    "environment or redirect not allow-listed", stage: .start, pathPrefix: auth + "magic-links", status: 401,
                    json: #"{"error":"Unauthorized"}"#, expectedCode: .configuration, expectedProviderCode: "401"),
                ErrorFixture(
                    "magic-link request rejected", stage: .start, pathPrefix: auth + "magic-links", status: 400,
                    json: #"{"error":"fromEmail and templateId are required"}"#, expectedCode: .configuration,
                    expectedProviderCode: "badRequest"),
                ErrorFixture(
                    "grant rejected or used", stage: .submit, pathPrefix: auth + "magic-links/validations", status: 401,
                    json: #"{"error":"Unauthorized"}"#, expectedCode: .unauthorized, expectedProviderCode: "401"),
                ErrorFixture(
                    "unknown status", stage: .submit, pathPrefix: auth + "magic-links/validations", status: 409,
                    json: #"{"error":"Conflict"}"#, expectedCode: .generic, expectedProviderCode: "409"),
            ],
            redirect: RedirectFixture(
                validURL: RedirectFixture.inboxLink().validURL, forge: BuiltInConformance.portalReplacingToken,
                foreignURLs: [
                    URL(string: "multiauth-portal://auth/other?token=abc&authMethod=EMAIL_MAGIC_LINK")!,
                    URL(string: "multiauth-other://auth/callback?token=abc&authMethod=EMAIL_MAGIC_LINK")!,
                    URL(string: "https://\(PortalBackend.defaultHost)/auth/callback?token=abc")!,
                ]),
            // TOTP codes are checked at ±1 time step (30 s); expiries are computed on the client's clock.
            serverClockTolerance: .seconds(30),
            // The sign-in method (EMAIL_MAGIC_LINK, GOOGLE, APPLE) is a wire constant the provider
            // also shows as the user's `authMethod` attribute.
            publicProviderStateKeys: ["method"],
            seed: seed)
    }
}

extension BuiltInConformance {
    /// Why the abilities the harness leaves out do not apply to Portal (shown in the skips).
    public static let portalReasons: [ConformanceHarness.Abilities: String] = [
        .codeEntry:
            "the first challenge is a magic link; the TOTP step's wrong and malformed codes are covered by PortalFlowTests",
        .attemptLimit: "Portal documents no limit on wrong TOTP codes; a wrong code leaves the same challenge usable",
        .resend: "PortalProvider has no resend; a new start sends a new link (at most one a minute per address)",
        .refresh: "Portal has no refresh API; the CST lasts 24 h idle, 7 days at most",
    ]

    /// The magic link with its grant replaced by one the backend never issued.
    public static let portalReplacingToken: @Sendable (URL) -> URL = { url in
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        components.queryItems = (components.queryItems ?? []).map { item in
            item.name == "token" ? URLQueryItem(name: "token", value: "forged-" + FlowID.random().rawValue) : item
        }
        return components.url ?? url
    }

    /// `PortalProvider` against `PortalBackend`: magic link → redirect → TOTP step.
    public static func portal() -> ProviderConformance {
        ProviderConformance(
            provider: { _ in PortalProvider(configuration: portalConfiguration()) },
            harness: .portal(backends: PortalBackendRegistry()))
    }

    /// The Portal configuration pointing at the sandbox's `PortalBackend`
    /// (`PortalConfiguration.sandbox()`).
    public static func portalConfiguration() -> PortalConfiguration {
        try! PortalConfiguration.sandbox()
    }
}
