import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthDynamic
import MultiAuthSandbox

extension BuiltInConformance {
    /// `DynamicProvider` (``/MultiAuthDynamic/DynamicConfiguration/sandbox(environmentID:sessionPublicKey:socialRedirectURL:)``)
    /// against `DynamicBackend`.
    public static func dynamic() -> ProviderConformance {
        ProviderConformance(provider: { _ in DynamicProvider(configuration: try .sandbox()) }, harness: .dynamic())
    }

    /// Why C17 did not apply to Dynamic before social login. No longer a reason: the harness
    /// checks redirects through social login (``dynamicSocialRedirects``).
    @available(*, deprecated, message: "Dynamic's harness checks redirects through social login")
    public static let dynamicRedirectReason =
        "Dynamic's e-mail and SMS OTP flows complete by code; DynamicProvider handles no redirect URLs"

    /// Why the abilities the harness leaves out do not apply to Dynamic (none: every ability is
    /// checked; redirects through social login).
    public static let dynamicReasons: [ConformanceHarness.Abilities: String] = [:]

    /// The social request of C17 and C23: Google.
    public static func dynamicSocialRequest(_ index: Int) -> SignInRequest { .oauth(.google) }

    /// The redirects of social login (Docs/Providers/Dynamic.md, "Social login"): the genuine
    /// return is the emulated provider's consent to the challenge's authorization URL; the
    /// forged one carries another `dynamicOauthState`; the refusal is the user declining.
    public static let dynamicSocialRedirects = ConformanceHarness.RedirectFixture(
        validURL: { sandbox, _, challenge in
            try dynamicBackend(sandbox).approveSocialLogin(
                try authorizationURL(challenge), email: "social-user@example.com", now: sandbox.time.now)
        },
        forge: { url in
            guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
            components.queryItems = (components.queryItems ?? []).map {
                $0.name == "dynamicOauthState" ? URLQueryItem(name: $0.name, value: "forged-state") : $0
            }
            return components.url ?? url
        },
        foreignURLs: [URL(string: "multiauth-sandbox://dynamic/other?dynamicOauthState=abc")!],
        refusals: { sandbox, _, challenge in
            [
                .init(
                    "declined", url: try dynamicBackend(sandbox).declineSocialLogin(try authorizationURL(challenge)),
                    expectedCodes: [.cancelledByProvider])
            ]
        })

    static func dynamicBackend(_ sandbox: Sandbox) throws -> DynamicBackend {
        guard let backend = sandbox.backend(forHost: DynamicBackend.defaultHost) as? DynamicBackend else {
            throw ConformanceFailure("no DynamicBackend on \(DynamicBackend.defaultHost)")
        }
        return backend
    }

    static func authorizationURL(_ challenge: Challenge) throws -> URL {
        guard case .oauthRedirect(let url) = challenge.kind else {
            throw ConformanceFailure("the social start gave \(challenge.kind), not an authorization URL")
        }
        return url
    }

    /// The sandbox environment's SDK path prefix, `/api/v0/sdk/<environment id>/`.
    static let dynamicSDKPath = "/api/v0/sdk/\(DynamicBackend.defaultEnvironmentID)/"

    /// A Dynamic error answer `{"error": error, "code": code}` (plus an empty `payload` when
    /// asked) on any SDK path of the sandbox environment, expected to map to `expected` with
    /// providerCode `code` (status 422 unless given).
    public static func dynamicError(
        _ name: String, _ stage: ConformanceHarness.ErrorFixture.Stage, status: Int = 422, code: String,
        error: String = #""x""#, payload: Bool = false, _ expected: AuthError.Code
    ) -> ConformanceHarness.ErrorFixture {
        ConformanceHarness.ErrorFixture(
            name, stage: stage, pathPrefix: dynamicSDKPath, status: status,
            json: #"{"error":\#(error),"code":"\#(code)"\#(payload ? #","payload":{}"# : "")}"#, expectedCode: expected,
            expectedProviderCode: code)
    }
}

extension ConformanceHarness {
    /// The harness of `DynamicProvider` against `DynamicBackend`: e-mail identities
    /// `user<n>@example.com` (a fictional +1 202 555 01xx number by SMS for every fifth index),
    /// code entry, attempt limit, expiry, resend and refresh; redirects through social login
    /// (Google, `BuiltInConformance.dynamicSocialRedirects`); error fixtures from
    /// Docs/Providers/Dynamic.md ("Errors") and a 15-minute clock tolerance.
    public static func dynamic(seed: UInt64 = 1) -> ConformanceHarness {
        ConformanceHarness(
            host: DynamicBackend.defaultHost,
            installBackend: { sandbox in
                sandbox.register(
                    DynamicBackend(signingKey: BuiltInConformance.sandboxSigningKey), host: DynamicBackend.defaultHost)
            },
            validRequest: emailOrSMSRequest,
            invalidRequests: [
                .oauth("telegram"), .oauth(.whatsapp), .oauth(.google, options: [:]).withChannel(.email),
                .email(try! EmailAddress("user@example.com"), channel: .sms),
                .phone(try! PhoneNumber("+12025550199"), channel: .whatsapp), .phone(try! PhoneNumber("+80012345678")),
            ],
            abilities: [.codeEntry, .attemptLimit, .expiry, .resend, .refresh, .redirect],
            unsupportedReasons: BuiltInConformance.dynamicReasons,
            errorFixtures: [
                BuiltInConformance.dynamicError(
                    "email_verification_expired", .submit, code: "email_verification_expired",
                    error: #""Verification expired""#,
                    .expired),
                BuiltInConformance.dynamicError(
                    "too_many_email_verification_attempts", .submit, code: "too_many_email_verification_attempts",
                    .attemptsExhausted),
                ErrorFixture(
                    "send limit", stage: .start, pathPrefix: BuiltInConformance.dynamicSDKPath, status: 429,
                    json: #"{"error":"Too many requests"}"#, headers: ["Retry-After": "300"],
                    expectedCode: .rateLimited,
                    expectedProviderCode: "429"),
                BuiltInConformance.dynamicError(
                    "invalid_email_address", .start, code: "invalid_email_address", .invalidInput),
                ErrorFixture(
                    "403 blocked", stage: .submit, pathPrefix: BuiltInConformance.dynamicSDKPath, status: 403,
                    json: #"{"error":{"code":"user_blocked","message":"blocked"},"payload":{}}"#,
                    expectedCode: .unauthorized,
                    expectedProviderCode: "user_blocked"),
                BuiltInConformance.dynamicError(
                    "unknown code", .submit, code: "quota_exceeded_v2", payload: true, .generic),
            ],
            redirect: BuiltInConformance.dynamicSocialRedirects,
            serverClockTolerance: .seconds(900),
            seed: seed, redirectRequest: BuiltInConformance.dynamicSocialRequest)
    }
}

extension SignInRequest {
    /// The request with `channel` set (an invalid social request: social logins take no channel).
    fileprivate func withChannel(_ channel: DeliveryChannel) -> SignInRequest {
        var copy = self
        copy.channel = channel
        return copy
    }
}
