import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthSandbox
import MultiAuthTruecaller

extension BuiltInConformance {
    /// `TruecallerProvider` (`TruecallerConfiguration.sandbox(…)`: the production host layout
    /// on `.test` names) against `TruecallerBackend`.
    public static func truecaller() -> ProviderConformance {
        ProviderConformance(
            provider: { _ in
                TruecallerProvider(
                    configuration: try .sandbox(appKey: "sandbox-app-key-secret", deviceID: "conformance-device"))
            },
            harness: .truecaller())
    }

    /// Why the abilities the harness leaves out do not apply to Truecaller (shown in the skips).
    public static let truecallerReasons: [ConformanceHarness.Abilities: String] = [
        .attemptLimit:
            "the attempt limit (code 4290) maps to rateLimited with retryAfter (a lock-out is a wait), not attemptsExhausted (see C08)",
        .resend: "Truecaller has no resend API; a new create starts over",
        .redirect: "one-tap is an app hand-off, not a redirect",
        .refresh: "no refresh API",
    ]

    /// A Truecaller error answer `{"code": code, "message": message}` (plus `retryAfter` in
    /// seconds when given) on the create (`.start`) or verify (`.submit`) endpoint, expected to
    /// map to `expected` with providerCode `code`.
    public static func truecallerError(
        _ name: String, _ stage: ConformanceHarness.ErrorFixture.Stage, _ status: Int, _ code: Int, _ message: String,
        retryAfter: Int? = nil, _ expected: AuthError.Code
    ) -> ConformanceHarness.ErrorFixture {
        ConformanceHarness.ErrorFixture(
            name, stage: stage,
            pathPrefix: stage == .start ? "/v1/otp/installation/create" : "/v1/otp/installation/verify",
            status: status,
            json: #"{"code":\#(code),"message":"\#(message)"\#(retryAfter.map { #","retryAfter":\#($0)"# } ?? "")}"#,
            expectedCode: expected, expectedProviderCode: String(code))
    }

    /// The sandbox host of the Truecaller OTP endpoints (`api4.truecaller.test`).
    static let truecallerHost = TruecallerBackend.otpHost

    /// Distinct Indian mobile numbers `+91 98765 0xxxx`; the name comes in the request options
    /// because the kit answers with a code only.
    public static func truecallerRequest(_ index: Int) -> SignInRequest {
        let phone = try! PhoneNumber("+9198765" + String(format: "%05d", index))
        return .phone(
            phone,
            options: [TruecallerProvider.firstNameOption: "Test", TruecallerProvider.lastNameOption: "User \(index)"])
    }

    /// The Truecaller harness with the default seed (`ConformanceHarness.truecaller(seed:)`).
    public static var truecallerHarness: ConformanceHarness { .truecaller() }
}

extension ConformanceHarness {
    /// The harness of `TruecallerProvider` against `TruecallerBackend`: Indian mobile numbers,
    /// code entry and expiry; the other abilities are skipped with
    /// `BuiltInConformance.truecallerReasons`. Error fixtures from Docs/Providers/Truecaller.md
    /// ("Error table"); any clock offset works (expiry is relative).
    public static func truecaller(seed: UInt64 = 1) -> ConformanceHarness {
        ConformanceHarness(
            host: BuiltInConformance.truecallerHost,
            installBackend: { sandbox in
                TruecallerBackend(signingKey: BuiltInConformance.sandboxSigningKey).install(in: sandbox)
            },
            validRequest: BuiltInConformance.truecallerRequest,
            invalidRequests: [
                .email(try! EmailAddress("user@example.com")),
                .oauth(.google),
                .phone(try! PhoneNumber("+1 650 555 0100")),  // the OTP flow is India only
                .phone(try! PhoneNumber("+91 98765 43210"), channel: .whatsapp),
                // error 18
                .phone(try! PhoneNumber("+91 98765 43210"), options: [TruecallerProvider.firstNameOption: "1234"]),
            ],
            abilities: [.codeEntry, .expiry],
            unsupportedReasons: BuiltInConformance.truecallerReasons,
            errorFixtures: [
                BuiltInConformance.truecallerError(
                    "invalid partner credentials", .start, 404, 404, "Invalid partner credentials.", .configuration),
                BuiltInConformance.truecallerError(
                    "too many requests", .start, 429, 4291, "Too many requests", retryAfter: 60, .rateLimited),
                BuiltInConformance.truecallerError(
                    "internal on a 200", .start, 200, 10, "Internal", .providerUnavailable),
                BuiltInConformance.truecallerError("token expired", .submit, 400, 4002, "expired", .expired),
                BuiltInConformance.truecallerError(
                    "attempt limit", .submit, 429, 4290, "Too many attempts", retryAfter: 300, .rateLimited),
                BuiltInConformance.truecallerError("invalid name", .submit, 400, 18, "Invalid name", .invalidInput),
                // A refused verify is a wrong code whatever its code (the real one is unpublished);
                // an unknown code elsewhere stays generic (Docs/Providers/Truecaller.md, "Error table").
                BuiltInConformance.truecallerError("unknown code on verify", .submit, 400, 7777, "?", .invalidCode),
                BuiltInConformance.truecallerError("unknown code on create", .start, 400, 7777, "?", .generic),
            ],
            // Expiry is relative (`tokenTtl` seconds from the local clock), so any server offset works.
            serverClockTolerance: .seconds(300),
            fixtureSecrets: ["sandbox-app-key-secret"],
            seed: seed,
            // C24: without the name options the challenge must say it needs a name.
            bareRequest: { index in SignInRequest(identity: BuiltInConformance.truecallerRequest(index).identity) })
    }
}
