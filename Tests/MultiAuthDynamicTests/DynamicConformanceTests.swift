import Foundation
import MultiAuth
import MultiAuthBuiltInConformance
import MultiAuthConformance
import MultiAuthDynamic
import MultiAuthSandbox
import Testing

/// The conformance kit against `DynamicProvider` + `DynamicBackend`.
@Suite(.timeLimit(.minutes(10)))
struct DynamicConformanceTests {
    static let redirectReason = BuiltInConformance.dynamicRedirectReason
    static let kit = BuiltInConformance.dynamic()

    @Test(arguments: ConformanceCheck.allCases)
    func check(_ check: ConformanceCheck) async {
        let result = await Self.kit.run(check)
        if check == .redirectsAreClaimedOnlyWhenValid || check == .duplicateRedirectsShareOneExchange {
            #expect(result.status == .skipped, "\(result)")
            #expect(result.detail == "redirect unsupported: " + Self.redirectReason)
        } else {
            #expect(result.status == .passed, "\(result)")
        }
    }
}
