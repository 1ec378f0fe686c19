import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthDynamic
import MultiAuthSandbox

extension BuiltInConformance {
    /// `DynamicProvider` (``/MultiAuthDynamic/DynamicConfiguration/sandbox(environmentID:sessionPublicKey:)``)
    /// against `DynamicBackend`.
    public static func dynamic() -> ProviderConformance {
        ProviderConformance(provider: { _ in DynamicProvider(configuration: try .sandbox()) }, harness: .dynamic())
    }

    /// Why C17 does not apply to Dynamic.
    public static let dynamicRedirectReason =
        "Dynamic's e-mail and SMS OTP flows complete by code; DynamicProvider handles no redirect URLs"

    /// Why the ability the harness leaves out does not apply to Dynamic (shown in the skip).
    public static let dynamicReasons: [ConformanceHarness.Abilities: String] = [.redirect: dynamicRedirectReason]

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
    /// code entry, attempt limit, expiry, resend and refresh (no redirects: Dynamic's OTP flow
    /// has none), error fixtures from Docs/Providers/Dynamic.md ("Errors") and a 15-minute clock
    /// tolerance.
    public static func dynamic(seed: UInt64 = 1) -> ConformanceHarness {
        ConformanceHarness(
            host: DynamicBackend.defaultHost,
            installBackend: { sandbox in
                sandbox.register(
                    DynamicBackend(signingKey: BuiltInConformance.sandboxSigningKey), host: DynamicBackend.defaultHost)
            },
            validRequest: emailOrSMSRequest,
            invalidRequests: [
                .oauth(.google), .email(try! EmailAddress("user@example.com"), channel: .sms),
                .phone(try! PhoneNumber("+12025550199"), channel: .whatsapp), .phone(try! PhoneNumber("+80012345678")),
            ],
            abilities: [.codeEntry, .attemptLimit, .expiry, .resend, .refresh],
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
            serverClockTolerance: .seconds(900),
            seed: seed)
    }
}
