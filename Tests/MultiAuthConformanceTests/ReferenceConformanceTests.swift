import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthSandbox
import Testing

/// The kit against the reference provider: every check passes (the harness enables every
/// ability, so nothing is skipped).
@Suite(.timeLimit(.minutes(10)))
struct ReferenceConformanceTests {
    @Test(arguments: ConformanceCheck.allCases)
    func referenceProviderPasses(_ check: ConformanceCheck) async {
        let result = await ProviderConformance.reference().run(check)
        #expect(result.status == .passed, "\(result)")
    }
}
