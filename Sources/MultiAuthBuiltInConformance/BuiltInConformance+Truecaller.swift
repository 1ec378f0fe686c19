import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthSandbox
import MultiAuthTruecaller

extension BuiltInConformance {
    /// The sandbox host of the Truecaller OTP endpoints (`api4.truecaller.test`).
    static let truecallerHost = TruecallerBackend.otpHost

    /// Distinct Indian mobile numbers `+91 98765 0xxxx`; the name comes in the request options
    /// because the kit answers with a code only.
    public static func truecallerRequest(_ index: Int) -> SignInRequest {
        let phone = try! PhoneNumber("+9198765" + String(format: "%05d", index))
        return .phone(phone, options: [TruecallerProvider.firstNameOption: "Test", TruecallerProvider.lastNameOption: "User \(index)"])
    }

    /// Why the abilities the harness leaves out do not apply to Truecaller (shown in the skips).
    public static let truecallerReasons: [ConformanceHarness.Abilities: String] = [
        .attemptLimit:
            "the attempt limit (code 4290) maps to rateLimited with retryAfter as issue 7 demands, not attemptsExhausted (see C08)",
        .resend: "Truecaller has no resend API; a new create starts over",
        .redirect: "one-tap is an app hand-off, not a redirect",
        .refresh: "no refresh API",
    ]

    /// The harness of `TruecallerProvider` against `TruecallerBackend`: Indian mobile numbers,
    /// code entry and expiry; the other abilities are skipped with ``truecallerReasons``.
    public static let truecallerHarness = ConformanceHarness(
        host: truecallerHost,
        installBackend: { sandbox in TruecallerBackend(signingKey: sandboxSigningKey).install(in: sandbox) },
        validRequest: truecallerRequest,
        invalidRequests: [
            .email(try! EmailAddress("user@example.com")),
            .oauth(.google),
            .phone(try! PhoneNumber("+1 650 555 0100")),  // the OTP flow is India only
            .phone(try! PhoneNumber("+91 98765 43210"), channel: .whatsapp),
            .phone(try! PhoneNumber("+91 98765 43210"), options: [TruecallerProvider.firstNameOption: "1234"]),  // error 18
        ],
        abilities: [.codeEntry, .expiry],
        unsupportedReasons: truecallerReasons,
        errorFixtures: [
            .init("invalid partner credentials", stage: .start, pathPrefix: "/v1/otp/installation/create", status: 404,
                json: #"{"code":404,"message":"Invalid partner credentials."}"#, expectedCode: .configuration, expectedProviderCode: "404"),
            .init("too many requests", stage: .start, pathPrefix: "/v1/otp/installation/create", status: 429,
                json: #"{"code":4291,"message":"Too many requests","retryAfter":60}"#, expectedCode: .rateLimited, expectedProviderCode: "4291"),
            .init("internal on a 200", stage: .start, pathPrefix: "/v1/otp/installation/create", status: 200,
                json: #"{"code":10,"message":"Internal"}"#, expectedCode: .providerUnavailable, expectedProviderCode: "10"),
            .init("token expired", stage: .submit, pathPrefix: "/v1/otp/installation/verify", status: 400,
                json: #"{"code":4002,"message":"expired"}"#, expectedCode: .expired, expectedProviderCode: "4002"),
            .init("attempt limit", stage: .submit, pathPrefix: "/v1/otp/installation/verify", status: 429,
                json: #"{"code":4290,"message":"Too many attempts","retryAfter":300}"#, expectedCode: .rateLimited, expectedProviderCode: "4290"),
            .init("invalid name", stage: .submit, pathPrefix: "/v1/otp/installation/verify", status: 400,
                json: #"{"code":18,"message":"Invalid name"}"#, expectedCode: .invalidInput, expectedProviderCode: "18"),
            .init("unknown code", stage: .submit, pathPrefix: "/v1/otp/installation/verify", status: 400,
                json: #"{"code":7777,"message":"?"}"#, expectedCode: .generic, expectedProviderCode: "7777"),
        ],
        // Expiry is relative (`tokenTtl` seconds from the local clock), so any server offset works.
        serverClockTolerance: .seconds(300),
        fixtureSecrets: ["sandbox-app-key-secret"],
        // C24: without the name options the challenge must say it needs a name.
        bareRequest: { index in SignInRequest(identity: truecallerRequest(index).identity) })

    /// `TruecallerProvider` (`TruecallerConfiguration.sandbox(…)`: the production host layout
    /// on `.test` names) against `TruecallerBackend`.
    public static func truecaller() -> ProviderConformance {
        ProviderConformance(
            provider: { _ in
                TruecallerProvider(configuration: try .sandbox(appKey: "sandbox-app-key-secret", deviceID: "conformance-device"))
            },
            harness: truecallerHarness)
    }
}
