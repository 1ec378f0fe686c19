import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthOTPless
import MultiAuthSandbox
import MultiAuthSandboxKit
import Testing

/// The conformance kit against `OTPlessProvider` + `OTPlessBackend` (phone OTP + link): every
/// check passes except C18, skipped with the reason refresh does not apply.
@Suite(.timeLimit(.minutes(10)))
struct OTPlessConformanceTests {
    static let refreshReason = BuiltInConformance.otplessReasons[.refresh]!
    static let kit = BuiltInConformance.otpless()

    @Test(arguments: ConformanceCheck.allCases)
    func check(_ check: ConformanceCheck) async {
        let result = await Self.kit.run(check)
        if [
            .concurrentRefreshesCoalesce, .refreshDoesNotOverwriteNewerSession,
            .revocationEndsSessionTransientFailureKeepsIt,
        ].contains(check) {
            #expect(result.status == .skipped, "\(result)")
            #expect(result.detail == "refresh unsupported: " + Self.refreshReason, "\(result)")
        } else {
            #expect(result.status == .passed, "\(result)")
        }
    }

    @Test func theForgedLinkKeepsTheSchemeButNotTheCode() throws {
        let link = try #require(URL(string: "otpless.sandboxapp://otpless?code=abc123"))
        let forged = try #require(
            URLComponents(url: BuiltInConformance.otplessForgedLink(link), resolvingAgainstBaseURL: false))
        #expect(forged.scheme == "otpless.sandboxapp")
        #expect(forged.queryItems?.first { $0.name == "code" }?.value != "abc123")
    }
}
