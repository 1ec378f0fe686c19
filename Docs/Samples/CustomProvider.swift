// Sample: prove your own provider with the conformance kit (Docs/WritingAProvider.md). In your
// package this file is Tests/AcmeAuthTests/AcmeConformanceTests.swift, the test target
// `AcmeAuthTests`, which depends on your adapter `AcmeAuth`, your test-support target
// `AcmeAuthTestSupport` (the emulated backend) and the products `MultiAuth` and
// `MultiAuthConformance`. Compiled and run by `swift test`.
import Foundation
import MultiAuth
import MultiAuthConformance
import Testing

// In your package the adapter and the backend are modules of their own, imported here. In this
// repository the three sample files are one target (MultiAuthSamples), where those modules do
// not exist and the types are already in scope; hence the condition.
#if canImport(AcmeAuth)
import AcmeAuth
import AcmeAuthTestSupport
#endif

extension ConformanceHarness {
    /// Everything the kit needs to know about Acme besides the provider: its backend, the
    /// identities it takes and refuses, its abilities, and one error fixture per Acme error
    /// code plus an unknown one.
    static var acme: ConformanceHarness {
        ConformanceHarness(
            host: AcmeBackend.host,
            installBackend: { sandbox in sandbox.register(AcmeBackend(), host: AcmeBackend.host) },
            validRequest: { index in .email(try! EmailAddress("user\(index)@example.com")) },
            invalidRequests: [.oauth(.google), .phone(try! PhoneNumber("+12025550199"))],
            abilities: [.codeEntry, .attemptLimit, .expiry],
            unsupportedReasons: [
                .resend: "Acme has no resend; a new start sends a new code",
                .redirect: "Acme sends codes, not links", .refresh: "Acme sessions are not refreshed",
            ],
            errorFixtures: [
                ErrorFixture(
                    "invalid_email", stage: .start, pathPrefix: "/v1/email-codes", status: 400,
                    json: #"{"error":"invalid_email"}"#, expectedCode: .invalidInput, expectedProviderCode: "invalid_email"),
                ErrorFixture(
                    "slow_down", stage: .start, pathPrefix: "/v1/email-codes", status: 429,
                    json: #"{"error":"slow_down"}"#, headers: ["Retry-After": "30"],
                    expectedCode: .rateLimited, expectedProviderCode: "slow_down"),
                ErrorFixture(
                    "wrong_code", stage: .submit, pathPrefix: "/v1/email-codes/verify", status: 401,
                    json: #"{"error":"wrong_code","attempts_left":2}"#, expectedCode: .invalidCode, expectedProviderCode: "wrong_code"),
                ErrorFixture(
                    "code_expired", stage: .submit, pathPrefix: "/v1/email-codes/verify", status: 410,
                    json: #"{"error":"code_expired"}"#, expectedCode: .expired, expectedProviderCode: "code_expired"),
                ErrorFixture(
                    "too_many_attempts", stage: .submit, pathPrefix: "/v1/email-codes/verify", status: 423,
                    json: #"{"error":"too_many_attempts"}"#, expectedCode: .attemptsExhausted,
                    expectedProviderCode: "too_many_attempts"),
                ErrorFixture(
                    "code_used", stage: .submit, pathPrefix: "/v1/email-codes/verify", status: 409,
                    json: #"{"error":"code_used"}"#, expectedCode: .codeAlreadyUsed, expectedProviderCode: "code_used"),
                ErrorFixture(
                    "unknown_ticket", stage: .submit, pathPrefix: "/v1/email-codes/verify", status: 404,
                    json: #"{"error":"unknown_ticket"}"#, expectedCode: .challengeNotPending, expectedProviderCode: "unknown_ticket"),
                ErrorFixture(
                    "an unknown code", stage: .submit, pathPrefix: "/v1/email-codes/verify", status: 400,
                    json: #"{"error":"quota_exceeded_v2"}"#, expectedCode: .generic, expectedProviderCode: "quota_exceeded_v2"),
            ])
    }
}

@Suite(.timeLimit(.minutes(10)))
struct CustomProviderSample {
    @Test func acmeConformsWhereItCanAndSaysWhyElsewhere() async throws {
        let report = await ProviderConformance(provider: { _ in AcmeProvider(baseURL: AcmeBackend.baseURL) }, harness: .acme).run()
        #expect(report.failed.isEmpty, "\(report.renderTable())")
        #expect(Set(report.skipped.map(\.id)) == ["C07", "C17", "C18", "C19", "C21", "C22", "C23"], "\(report.renderTable())")
    }

    /// The kit's job: a provider that forgets one mapping fails C08, naming the fixture.
    @Test func aMissingErrorMappingFailsC08() async throws {
        struct Forgetful: AuthProvider {
            let acme = AcmeProvider(baseURL: AcmeBackend.baseURL)
            var id: AuthProviderID { acme.id }
            func start(_ request: SignInRequest, context: AuthContext) async throws -> SignInStep {
                try await acme.start(request, context: context)
            }
            func respond(to challenge: Challenge, with answer: ChallengeAnswer, context: AuthContext) async throws -> SignInStep {
                do { return try await acme.respond(to: challenge, with: answer, context: context) } catch let error as AuthError
                    where error.providerCode == "code_used" {
                    throw AuthError(.generic, "Acme answered code_used", provider: id, providerCode: "code_used")   // forgot it
                }
            }
            func signOut(_ session: AuthSession, context: AuthContext) async throws {}
        }
        let report = await ProviderConformance(provider: { _ in Forgetful() }, harness: .acme).run()
        #expect(report.failed.map(\.id) == ["C08"], "\(report.renderTable())")
        #expect(report.failed.first?.detail?.contains("code_used") == true, "\(report.renderTable())")
    }
}
