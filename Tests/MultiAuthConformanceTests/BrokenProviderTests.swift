import MultiAuth
import MultiAuthConformance
import MultiAuthSandbox
import Testing

/// One deliberately broken provider per check: each makes exactly its own check fail and
/// every other check pass, so no check is vacuous.
@Suite(.timeLimit(.minutes(10)))  // a hang guard only: 23 full kit runs take 10–70 s on a busy 2-core machine
struct BrokenProviderTests {
    @Test(arguments: ConformanceCheck.allCases)
    func brokenProviderFailsExactlyItsCheck(_ check: ConformanceCheck) async {
        var harness = ConformanceHarness.reference()
        if check == .challengeAnnouncesAnswerRequirements {
            // The name comes up front in every request but C24's bare one, so only C24 meets
            // the silent demand.
            let valid = harness.validRequest
            harness.validRequest = { index in
                var request = valid(index)
                request.options[BrokenProvider.nameOption] = "Ada"
                return request
            }
            harness.bareRequest = valid
        }
        let kit = ProviderConformance(provider: { _ in BrokenProvider(breaking: check) }, harness: harness)
        let report = await kit.run()
        #expect(report.failed.map(\.id) == [check.rawValue], "\(report.renderTable())")
        #expect(report.skipped.isEmpty)
        #expect(report.result(for: check)?.detail?.isEmpty == false)
    }
}
