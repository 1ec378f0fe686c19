import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthDynamic
import MultiAuthSandbox

extension ConformanceHarness {
    /// The harness of `DynamicProvider` against `DynamicBackend`: e-mail identities
    /// `user<n>@example.com` (a fictional +1 202 555 01xx number by SMS for every fifth index),
    /// code entry, attempt limit, expiry, resend and refresh (no redirects: Dynamic's OTP flow
    /// has none), error fixtures from Docs/Providers/Dynamic.md ("Errors") and a 15-minute clock
    /// tolerance.
    public static func dynamic(seed: UInt64 = 1) -> ConformanceHarness {
        let env = DynamicBackend.defaultEnvironmentID
        let base = "/api/v0/sdk/\(env)/"
        return ConformanceHarness(
            host: DynamicBackend.defaultHost,
            installBackend: { sandbox in
                sandbox.register(DynamicBackend(signingKey: BuiltInConformance.sandboxSigningKey), host: DynamicBackend.defaultHost)
            },
            validRequest: { index in
                if index % 5 == 4 {
                    return .phone(try! PhoneNumber("+1202555\(String(format: "%04d", 100 + index / 5))"), channel: .sms)
                }
                return .email(try! EmailAddress("User\(index)@Example.com"))
            },
            invalidRequests: [
                .oauth(.google), .email(try! EmailAddress("user@example.com"), channel: .sms),
                .phone(try! PhoneNumber("+12025550199"), channel: .whatsapp), .phone(try! PhoneNumber("+80012345678")),
            ],
            abilities: [.codeEntry, .attemptLimit, .expiry, .resend, .refresh],
            unsupportedReasons: [.redirect: BuiltInConformance.dynamicRedirectReason],
            errorFixtures: [
                ErrorFixture(
                    "email_verification_expired", stage: .submit, pathPrefix: base, status: 422,
                    json: #"{"error":"Verification expired","code":"email_verification_expired"}"#, expectedCode: .expired,
                    expectedProviderCode: "email_verification_expired"),
                ErrorFixture(
                    "too_many_email_verification_attempts", stage: .submit, pathPrefix: base, status: 422,
                    json: #"{"error":"x","code":"too_many_email_verification_attempts"}"#, expectedCode: .attemptsExhausted,
                    expectedProviderCode: "too_many_email_verification_attempts"),
                ErrorFixture(
                    "send limit", stage: .start, pathPrefix: base, status: 429,
                    json: #"{"error":"Too many requests"}"#, headers: ["Retry-After": "300"], expectedCode: .rateLimited,
                    expectedProviderCode: "429"),
                ErrorFixture(
                    "invalid_email_address", stage: .start, pathPrefix: base, status: 422,
                    json: #"{"error":"x","code":"invalid_email_address"}"#, expectedCode: .invalidInput,
                    expectedProviderCode: "invalid_email_address"),
                ErrorFixture(
                    "403 blocked", stage: .submit, pathPrefix: base, status: 403,
                    json: #"{"error":{"code":"user_blocked","message":"blocked"},"payload":{}}"#, expectedCode: .unauthorized,
                    expectedProviderCode: "user_blocked"),
                ErrorFixture(
                    "unknown code", stage: .submit, pathPrefix: base, status: 422,
                    json: #"{"error":"x","code":"quota_exceeded_v2","payload":{}}"#, expectedCode: .generic,
                    expectedProviderCode: "quota_exceeded_v2"),
            ],
            serverClockTolerance: .seconds(900),
            seed: seed)
    }
}
