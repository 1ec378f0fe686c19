import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthDynamic
import MultiAuthSandbox
import MultiAuthSandboxKit
import Testing

/// The conformance kit against `DynamicProvider` + `DynamicBackend`.
@Suite(.timeLimit(.minutes(10)))
struct DynamicConformanceTests {
    static let kit = BuiltInConformance.dynamic()

    /// Every check passes, C17 and C23 through social login.
    @Test(arguments: ConformanceCheck.allCases)
    func check(_ check: ConformanceCheck) async {
        let result = await Self.kit.run(check)
        #expect(result.status == .passed, "\(result)")
    }
}
