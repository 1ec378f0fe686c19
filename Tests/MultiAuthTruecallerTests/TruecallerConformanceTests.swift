import Foundation
import MultiAuth
import MultiAuthBuiltInConformance
import MultiAuthConformance
import MultiAuthSandbox
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
        #expect(report.passed.count == 17, "\(report.renderTable())")
        let skipped = Dictionary(uniqueKeysWithValues: report.skipped.map { ($0.id, $0.detail ?? "") })
        let expected: [String: ConformanceHarness.Abilities] = [
            "C05": .attemptLimit, "C07": .resend, "C17": .redirect, "C18": .refresh, "C21": .refresh, "C22": .refresh,
            "C23": .redirect,
        ]
        #expect(Set(skipped.keys) == Set(expected.keys), "\(report.renderTable())")
        for (id, ability) in expected {
            let reason = try #require(Self.reasons[ability])
            #expect(skipped[id]?.hasSuffix(": " + reason) == true, "\(id): \(skipped[id] ?? "not skipped")")
        }
    }
}
