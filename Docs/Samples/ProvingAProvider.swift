// Sample: prove a provider with the conformance kit (Docs/WritingAProvider.md).
// Compiled and run by `swift test` (target MultiAuthSamples).
import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthSandbox
import Testing

@Suite(.timeLimit(.minutes(10)))
struct ProvingAProviderSample {
    @Test func theReferenceProviderConforms() async throws {
        // Your provider: replace the factory and the harness (backend, identities, abilities).
        let kit = ProviderConformance(
            provider: { _ in ReferenceProvider(baseURL: URL(string: "https://\(ReferenceProtocol.defaultHost)")!) },
            harness: .reference())
        let report = await kit.run()
        #expect(report.failed.isEmpty, "\(report.renderTable())")
        #expect(report.passed.count + report.skipped.count == ConformanceCheck.allCases.count)
    }
}
