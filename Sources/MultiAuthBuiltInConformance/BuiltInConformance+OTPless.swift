import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthOTPless
import MultiAuthSandbox

extension BuiltInConformance {
    /// The app id of the sandbox merchant (`OTPlessMerchant`'s default).
    static let otplessAppID = "SANDBOXAPP"

    /// Why the ability the harness leaves out does not apply to OTPLESS (shown in the skip).
    public static let otplessReasons: [ConformanceHarness.Abilities: String] = [
        .refresh:
            "OTPlessProvider refreshes through the session API host (api.otpless.test), which this harness's single-host fault rules cannot hold for C18; OTPlessRefreshTests prove single-flight refresh and revocation there"
    ]

    /// An OTPLESS error answer (`{errorCode, message, description}`) on the intent (`.start`) or
    /// the OTP verification (`.submit`) endpoint, expected to map to `expected` with
    /// providerCode `code`.
    public static func otplessError(
        _ name: String, _ stage: ConformanceHarness.ErrorFixture.Stage, _ status: Int, _ code: String, _ expected: AuthError.Code
    ) -> ConformanceHarness.ErrorFixture {
        ConformanceHarness.ErrorFixture(
            name, stage: stage,
            pathPrefix: stage == .start ? "/v3/lp/user/transaction/intent" : "/v3/lp/user/transaction/otp",
            status: status, json: #"{"errorCode":"\#(code)","message":"Invalid Request","description":"Request error"}"#,
            expectedCode: expected, expectedProviderCode: code)
    }

    /// The harness of `OTPlessProvider` against `OTPlessBackend` with a merchant that sends a
    /// code and a link for phone numbers (`OTP_LINK`): Indian mobile numbers
    /// `+91 98765 0xxxx` (no timed SmartAuth fallback within a code's life), code entry, attempt limit, expiry, resend and redirect (the link from
    /// the inbox); refresh is skipped with ``otplessReasons``. Error fixtures from
    /// Docs/Providers/OTPless.md ("Error table"), a 60 s clock tolerance.
    public static let otplessHarness = ConformanceHarness(
        host: OTPlessBackend.clientHost,
        installBackend: { sandbox in
            // SmartAuth's timed fallback (a new code on the next channel, which restarts the resend
            // cooldown) is kept out of the checks' way: it would race C07's resend at
            // `resendAvailableAt` with the status poller. OTPlessPollingTests cover the fallback.
            let merchant = OTPlessMerchant(appID: otplessAppID, phoneAuthType: .otpLink, fallbackDelay: .seconds(900))
            try OTPlessBackend(merchant: merchant).install(in: sandbox)
        },
        validRequest: { index in .phone(try! PhoneNumber(String(format: "+91987650%04d", index))) },
        invalidRequests: [
            .phone(try! PhoneNumber("+919876543210"), options: ["otpLength": "5"]),  // 7116
            .phone(try! PhoneNumber("+919876543210"), options: ["expiry": "5"]),  // 7113
        ],
        abilities: [.codeEntry, .attemptLimit, .expiry, .resend, .redirect],
        unsupportedReasons: otplessReasons,
        errorFixtures: [
            otplessError("rate limited", .start, 429, "7022", .rateLimited),
            otplessError("channel not enabled", .start, 400, "4003", .configuration),
            otplessError("unknown code", .start, 400, "8888", .generic),
            otplessError("incorrect OTP", .submit, 400, "7118", .invalidCode),
            otplessError("expired", .submit, 400, "7303", .expired),
            otplessError("replayed", .submit, 400, "7115", .codeAlreadyUsed),
        ],
        redirect: ConformanceHarness.RedirectFixture(
            validURL: { sandbox, request, _ in
                guard let link = sandbox.inbox.latest(for: ConformanceHarness.defaultDestination(request))?.link else {
                    throw ConformanceFailure("no link was delivered for \(request)")
                }
                return link
            },
            forge: otplessForgedLink,
            foreignURLs: [URL(string: "otpless.otherapp://otpless?code=abc")!]),
        serverClockTolerance: .seconds(60),
        fixtureSecrets: ["sandbox-secret"])

    /// The deep link with its code replaced by one the backend never issued.
    public static let otplessForgedLink: @Sendable (URL) -> URL = { url in
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        components.queryItems = [URLQueryItem(name: "code", value: "forged0000000000")]
        return components.url ?? url
    }

    /// `OTPlessProvider` against `OTPlessBackend` (phone OTP + link).
    public static func otpless() -> ProviderConformance {
        ProviderConformance(
            provider: { _ in try OTPlessProvider(configuration: .sandbox(appID: otplessAppID)) },
            harness: otplessHarness)
    }
}
