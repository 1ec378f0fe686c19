import Foundation
import MultiAuth
import MultiAuthSandboxRuntime

extension ConformanceHarness {
    /// The harness of the reference protocol: `ReferenceBackend` on `host`, e-mail identities
    /// `user<n>@example.com` (and a fictional +1 202 555 01xx number for every fifth index), every ability, error
    /// fixtures for `expired`, `already_used`, `rate_limited`, `invalid_identity`,
    /// `channel_unavailable` and an unknown code, the magic link from the inbox, and the
    /// protocol's clock skew tolerance.
    ///
    /// `attempts_exhausted` is not a fixture: C05 checks that mapping through the real
    /// exhaustion flow.
    public static func reference(host: String = ReferenceProtocol.defaultHost, seed: UInt64 = 1) -> ConformanceHarness {
        ConformanceHarness(
            host: host,
            installBackend: { sandbox in sandbox.register(ReferenceBackend(), host: host) },
            validRequest: emailOrSMSRequest,
            invalidRequests: [
                .oauth(.google), .email(try! EmailAddress("user@example.com"), channel: .sms),
                .phone(try! PhoneNumber("+12025550199"), channel: .email),
            ],
            abilities: .all,
            errorFixtures: [
                ErrorFixture(
                    "expired", stage: .submit, pathPrefix: "/otp/verify", status: 410, json: #"{"code":"expired"}"#,
                    expectedCode: .expired, expectedProviderCode: "expired"),
                ErrorFixture(
                    "already_used", stage: .submit, pathPrefix: "/otp/verify", status: 409,
                    json: #"{"code":"already_used"}"#,
                    expectedCode: .codeAlreadyUsed, expectedProviderCode: "already_used"),
                ErrorFixture(
                    "rate_limited", stage: .start, pathPrefix: "/otp/start", status: 429,
                    json: #"{"code":"rate_limited","retryAfter":30}"#, headers: ["Retry-After": "30"],
                    expectedCode: .rateLimited, expectedProviderCode: "rate_limited"),
                ErrorFixture(
                    "invalid_identity", stage: .start, pathPrefix: "/otp/start", status: 400,
                    json: #"{"code":"invalid_identity"}"#,
                    expectedCode: .invalidInput, expectedProviderCode: "invalid_identity"),
                ErrorFixture(
                    "channel_unavailable", stage: .start, pathPrefix: "/otp/start", status: 422,
                    json: #"{"code":"channel_unavailable"}"#, expectedCode: .channelUnavailable,
                    expectedProviderCode: "channel_unavailable"),
                ErrorFixture(
                    "unknown code", stage: .submit, pathPrefix: "/otp/verify", status: 400,
                    json: #"{"code":"quota_exceeded_v2"}"#,
                    expectedCode: .generic, expectedProviderCode: "quota_exceeded_v2"),
            ],
            redirect: .inboxLink(),
            serverClockTolerance: .seconds(ReferenceProtocol.clockSkewTolerance),
            seed: seed)
    }
}

extension ConformanceHarness {
    /// A distinct identity per index: `user<n>@example.com` by e-mail, and for every fifth
    /// index a fictional North American number +1 202 555 01xx by SMS. Package-only: the
    /// reference and Dynamic harnesses share it. Concurrency: a pure function.
    package static func emailOrSMSRequest(_ index: Int) -> SignInRequest {
        if index % 5 == 4 {
            return .phone(try! PhoneNumber("+1202555\(String(format: "%04d", 100 + index / 5))"), channel: .sms)
        }
        return .email(try! EmailAddress("User\(index)@Example.com"))
    }
}

extension ProviderConformance {
    /// The kit set up for `ReferenceProvider` against `ReferenceBackend`: what
    /// `multiauth conformance` runs by default.
    public static func reference(seed: UInt64 = 1) -> ProviderConformance {
        ProviderConformance(
            provider: { _ in ReferenceProvider(baseURL: URL(string: "https://\(ReferenceProtocol.defaultHost)")!) },
            harness: .reference(seed: seed))
    }
}
