import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthOTPless
import MultiAuthSandbox
import Testing

@Suite(.timeLimit(.minutes(1)))
struct OTPlessConformanceTests {
    static func error(_ name: String, _ stage: ConformanceHarness.ErrorFixture.Stage, _ status: Int, _ code: String, _ expected: AuthError.Code)
        -> ConformanceHarness.ErrorFixture
    {
        ConformanceHarness.ErrorFixture(
            name, stage: stage,
            pathPrefix: stage == .start ? "/v3/lp/user/transaction/intent" : "/v3/lp/user/transaction/otp",
            status: status, json: #"{"errorCode":"\#(code)","message":"Invalid Request","description":"Request error"}"#,
            expectedCode: expected, expectedProviderCode: code)
    }

    static let harness = ConformanceHarness(
        host: OTPlessBackend.clientHost,
        installBackend: { sandbox in
            try OTPlessBackend(merchant: OTPlessMerchant(phoneAuthType: .otpLink)).install(in: sandbox)
        },
        validRequest: { index in .phone(try! PhoneNumber(String(format: "+91987650%04d", index))) },
        invalidRequests: [
            .phone(try! PhoneNumber("+919876543210"), options: ["otpLength": "5"]),
            .phone(try! PhoneNumber("+919876543210"), options: ["expiry": "5"]),
        ],
        abilities: [.codeEntry, .attemptLimit, .expiry, .resend, .redirect],
        errorFixtures: [
            error("rate limited", .start, 429, "7022", .rateLimited),
            error("channel not enabled", .start, 400, "4003", .configuration),
            error("unknown code", .start, 400, "8888", .generic),
            error("incorrect OTP", .submit, 400, "7118", .invalidCode),
            error("expired", .submit, 400, "7303", .expired),
            error("replayed", .submit, 400, "7115", .codeAlreadyUsed),
        ],
        redirect: ConformanceHarness.RedirectFixture(
            validURL: { sandbox, request, _ in
                guard let link = sandbox.inbox.latest(for: ConformanceHarness.defaultDestination(request))?.link else {
                    throw AuthError(.invalidInput, "no link was delivered")
                }
                return link
            },
            forge: { url in
                var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
                components.queryItems = [URLQueryItem(name: "code", value: "forged0000000000")]
                return components.url!
            },
            foreignURLs: [URL(string: "otpless.otherapp://otpless?code=abc")!]),
        serverClockTolerance: .seconds(60),
        fixtureSecrets: ["sandbox-secret"])

    @Test(arguments: ConformanceCheck.allCases)
    func providerPassesTheConformanceCheck(_ check: ConformanceCheck) async throws {
        let result = await ProviderConformance(
            provider: { _ in try OTPlessProvider(configuration: OTPlessConfiguration(appID: "SANDBOXAPP")) },
            harness: Self.harness
        ).run(check)
        if check == .c18 {
            #expect(result.status == .skipped && result.detail?.isEmpty == false, "\(result)")
        } else {
            #expect(result.status == .passed, "\(result)")
        }
    }
}
