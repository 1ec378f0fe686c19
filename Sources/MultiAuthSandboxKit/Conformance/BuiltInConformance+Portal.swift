import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthCrypto
import MultiAuthLocking
import MultiAuthPortal
import MultiAuthSandbox

extension BuiltInConformance {
    /// `PortalProvider` against `PortalBackend`: magic link → redirect → TOTP step.
    public static func portal() -> ProviderConformance {
        ProviderConformance(
            provider: { _ in PortalProvider(configuration: portalConfiguration()) },
            harness: .portal(backends: PortalBackendRegistry()))
    }

    /// Why the abilities the harness leaves out do not apply to Portal (shown in the skips).
    public static let portalReasons: [ConformanceHarness.Abilities: String] = [
        .codeEntry:
            "the first challenge is a magic link; the TOTP step's wrong and malformed codes are covered by PortalFlowTests",
        .attemptLimit: "Portal documents no limit on wrong TOTP codes; a wrong code leaves the same challenge usable",
        .resend: "PortalProvider has no resend; a new start sends a new link (at most one a minute per address)",
        .refresh: "Portal has no refresh API; the CST lasts 24 h idle, 7 days at most",
    ]

    /// A Portal error answer `{"error": error}` on the auth API path `path` (below
    /// `/api/v3/auth/`), expected to map to `expected` with `providerCode`.
    public static func portalError(
        _ name: String, _ stage: ConformanceHarness.ErrorFixture.Stage, _ path: String, _ status: Int, _ error: String,
        headers: [String: String] = [:], _ expected: AuthError.Code, providerCode: String
    ) -> ConformanceHarness.ErrorFixture {
        ConformanceHarness.ErrorFixture(
            name, stage: stage, pathPrefix: "/api/v3/auth/" + path, status: status, json: #"{"error":"\#(error)"}"#,
            headers: headers, expectedCode: expected, expectedProviderCode: providerCode)
    }

    /// The magic link with its grant replaced by one the backend never issued.
    public static let portalReplacingToken: @Sendable (URL) -> URL = { url in
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        components.queryItems = (components.queryItems ?? []).map { item in
            item.name == "token" ? URLQueryItem(name: "token", value: "forged-" + FlowID.random().rawValue) : item
        }
        return components.url ?? url
    }

    /// The Portal configuration pointing at the sandbox's `PortalBackend`
    /// (`PortalConfiguration.sandbox()`).
    public static func portalConfiguration() -> PortalConfiguration {
        try! PortalConfiguration.sandbox()
    }
}

extension ConformanceHarness {
    /// The harness of `PortalProvider` against `PortalBackend` (TOTP required): e-mail
    /// identities `user<n>@example.com`, answered like an app: the magic link from the inbox
    /// (redirect), then the TOTP step with a code computed from the user's secret at the
    /// client's time; the other abilities are skipped with `BuiltInConformance.portalReasons`.
    /// Error fixtures from Docs/Providers/Portal.md ("Errors").
    public static func portal(backends: PortalBackendRegistry, seed: UInt64 = 1) -> ConformanceHarness {
        ConformanceHarness(
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
                BuiltInConformance.portalError(
                    "magic-link rate limit", .start, "magic-links", 429, "Too many requests",
                    headers: ["Retry-After": "60"],
                    .rateLimited, providerCode: "rateLimited"),
                BuiltInConformance.portalError(
                    "environment or redirect not allow-listed", .start, "magic-links", 401, "Unauthorized",
                    .configuration,
                    providerCode: "401"),
                BuiltInConformance.portalError(
                    "magic-link request rejected", .start, "magic-links", 400, "fromEmail and templateId are required",
                    .configuration, providerCode: "badRequest"),
                BuiltInConformance.portalError(
                    "grant rejected or used", .submit, "magic-links/validations", 401, "Unauthorized", .unauthorized,
                    providerCode: "401"),
                BuiltInConformance.portalError(
                    "unknown status", .submit, "magic-links/validations", 409, "Conflict", .generic, providerCode: "409"
                ),
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

/// The backend each check's sandbox got, so `readCode` can compute the TOTP from the user's
/// enrolled secret (`PortalBackend.totpSecret(for:)`).
public final class PortalBackendRegistry: Sendable {
    /// Creates an empty registry.
    public init() {}

    private let backends = Locked([ObjectIdentifier: PortalBackend]())

    /// Creates a backend, registers it in `sandbox` and remembers it.
    public func install(in sandbox: Sandbox) throws {
        let backend = try PortalBackend()
        sandbox.register(backend, host: PortalBackend.defaultHost)
        backends.withLock { $0[ObjectIdentifier(sandbox)] = backend }
    }

    /// The backend installed in `sandbox`, if any.
    public func backend(of sandbox: Sandbox) -> PortalBackend? {
        backends.withLock { $0[ObjectIdentifier(sandbox)] }
    }
}
