import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthOTPless
import MultiAuthSandbox

extension BuiltInConformance {
    /// `OTPlessProvider` against `OTPlessBackend` (phone OTP + link).
    public static func otpless() -> ProviderConformance {
        ProviderConformance(
            provider: { _ in try OTPlessProvider(configuration: .sandbox(appID: otplessAppID)) },
            harness: .otpless())
    }

    /// Why the ability the harness leaves out does not apply to OTPLESS (shown in the skip).
    public static let otplessReasons: [ConformanceHarness.Abilities: String] = [
        .refresh:
            "OTPlessProvider refreshes through the session API host (api.otpless.test), which this harness's single-host fault rules cannot hold for C18; OTPlessRefreshTests prove single-flight refresh and revocation there"
    ]

    /// An OTPLESS error answer (`{errorCode, message, description}`) on the intent (`.start`) or
    /// the OTP verification (`.submit`) endpoint, expected to map to `expected` with
    /// providerCode `code`.
    public static func otplessError(
        _ name: String, _ stage: ConformanceHarness.ErrorFixture.Stage, _ status: Int, _ code: String,
        _ expected: AuthError.Code
    ) -> ConformanceHarness.ErrorFixture {
        ConformanceHarness.ErrorFixture(
            name, stage: stage,
            pathPrefix: stage == .start ? "/v3/lp/user/transaction/intent" : "/v3/lp/user/transaction/otp",
            status: status,
            json: #"{"errorCode":"\#(code)","message":"Invalid Request","description":"Request error"}"#,
            expectedCode: expected, expectedProviderCode: code)
    }

    /// The app id of the sandbox merchant (`OTPlessMerchant`'s default).
    static let otplessAppID = "SANDBOXAPP"

    /// The deep link with its code replaced by one the backend never issued.
    public static let otplessForgedLink: @Sendable (URL) -> URL = { url in
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        components.queryItems = [URLQueryItem(name: "code", value: "forged0000000000")]
        return components.url ?? url
    }

    /// The OTPLESS harness with the default seed (`ConformanceHarness.otpless(seed:)`).
    public static var otplessHarness: ConformanceHarness { .otpless() }
}

extension ConformanceHarness {
    /// The harness of `OTPlessProvider` against `OTPlessBackend` with a merchant that sends a
    /// code and a link for phone numbers (`OTP_LINK`): Indian mobile numbers
    /// `+91 98765 0xxxx` (no timed SmartAuth fallback within a code's life), code entry,
    /// attempt limit, expiry, resend and redirect (the link from the inbox); refresh is skipped
    /// with `BuiltInConformance.otplessReasons`. Error fixtures from Docs/Providers/OTPless.md
    /// ("Error table"), a 60 s clock tolerance.
    public static func otpless(seed: UInt64 = 1) -> ConformanceHarness {
        ConformanceHarness(
            host: OTPlessBackend.clientHost,
            installBackend: { sandbox in
                // SmartAuth's timed fallback (a new code on the next channel, which restarts the resend
                // cooldown) is kept out of the checks' way: it would race C07's resend at
                // `resendAvailableAt` with the status poller. OTPlessPollingTests cover the fallback.
                let merchant = OTPlessMerchant(
                    appID: BuiltInConformance.otplessAppID, phoneAuthType: .otpLink, fallbackDelay: .seconds(900))
                try OTPlessBackend(merchant: merchant).install(in: sandbox)
            },
            validRequest: { index in .phone(try! PhoneNumber(String(format: "+91987650%04d", index))) },
            invalidRequests: [
                .phone(try! PhoneNumber("+919876543210"), options: ["otpLength": "5"]),  // 7116
                // Not whole seconds: refused for its form. An expiry outside the guessed range
                // goes to the server, which decides (Docs/Providers/OTPless.md, "Set-up").
                .phone(try! PhoneNumber("+919876543210"), options: ["expiry": "5 minutes"]),
            ],
            abilities: [.codeEntry, .attemptLimit, .expiry, .resend, .redirect],
            unsupportedReasons: BuiltInConformance.otplessReasons,
            errorFixtures: [
                BuiltInConformance.otplessError("rate limited", .start, 429, "7022", .rateLimited),
                BuiltInConformance.otplessError("channel not enabled", .start, 400, "4003", .configuration),
                BuiltInConformance.otplessError("unknown code", .start, 400, "8888", .generic),
                BuiltInConformance.otplessError("incorrect OTP", .submit, 400, "7118", .invalidCode),
                BuiltInConformance.otplessError("expired", .submit, 400, "7303", .expired),
                BuiltInConformance.otplessError("replayed", .submit, 400, "7115", .codeAlreadyUsed),
            ],
            redirect: RedirectFixture(
                validURL: RedirectFixture.inboxLink().validURL, forge: BuiltInConformance.otplessForgedLink,
                foreignURLs: [URL(string: "otpless.otherapp://otpless?code=abc")!]),
            serverClockTolerance: .seconds(60),
            fixtureSecrets: ["sandbox-secret"],
            seed: seed)
    }
}
