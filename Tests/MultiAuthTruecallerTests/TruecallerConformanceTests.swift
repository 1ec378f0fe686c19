import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthSandbox
import MultiAuthSandboxKit
import Testing

@testable import MultiAuthTruecaller

/// The provider conformance kit against `TruecallerProvider` and the emulated backend.
@Suite(.timeLimit(.minutes(10)))
struct TruecallerConformanceTests {
    static let reasons = BuiltInConformance.truecallerReasons

    static func kit() -> ProviderConformance { BuiltInConformance.truecaller() }

    @Test func conformanceKitPassesWithReasonedSkipsOnly() async throws {
        let report = await Self.kit().run()
        #expect(report.failed.isEmpty, "\(report.renderTable())")
        #expect(report.passed.count == 19, "\(report.renderTable())")
        #expect(report.passed.map(\.id).contains("C17") && report.passed.map(\.id).contains("C23"))
        let skipped = Dictionary(uniqueKeysWithValues: report.skipped.map { ($0.id, $0.detail ?? "") })
        let expected: [String: ConformanceHarness.Abilities] = [
            "C05": .attemptLimit, "C07": .resend, "C18": .refresh, "C21": .refresh, "C22": .refresh,
        ]
        #expect(Set(skipped.keys) == Set(expected.keys), "\(report.renderTable())")
        for (id, ability) in expected {
            let reason = try #require(Self.reasons[ability])
            #expect(skipped[id]?.hasSuffix(": " + reason) == true, "\(id): \(skipped[id] ?? "not skipped")")
        }
    }
}
