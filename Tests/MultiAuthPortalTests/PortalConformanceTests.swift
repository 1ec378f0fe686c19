import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthCrypto
import MultiAuthSandbox
import MultiAuthSandboxKit
import Testing

@testable import MultiAuthPortal

/// The conformance kit against `PortalProvider` + `PortalBackend`: magic link → redirect →
/// TOTP step.
@Suite(.timeLimit(.minutes(10)))
struct PortalConformanceTests {
    static let reasons = BuiltInConformance.portalReasons
    static let replacingToken = BuiltInConformance.portalReplacingToken

    static func kit() -> ProviderConformance { BuiltInConformance.portal() }

    @Test func conformanceKitPassesWithReasonedSkipsOnly() async throws {
        let report = await Self.kit().run()
        #expect(report.failed.isEmpty, "\(report.renderTable())")
        #expect(report.passed.count == 16, "\(report.renderTable())")
        let skipped = Dictionary(uniqueKeysWithValues: report.skipped.map { ($0.id, $0.detail ?? "") })
        let expected: [String: ConformanceHarness.Abilities] = [
            "C03": .codeEntry, "C04": .codeEntry, "C05": .attemptLimit, "C07": .resend, "C18": .refresh,
            "C21": .refresh, "C22": .refresh, "C24": .codeEntry,
        ]
        #expect(Set(skipped.keys) == Set(expected.keys), "\(report.renderTable())")
        for (id, ability) in expected {
            let reason = try #require(Self.reasons[ability])
            #expect(skipped[id]?.hasSuffix(": " + reason) == true, "\(id): \(skipped[id] ?? "not skipped")")
        }
    }

    @Test func theForgedLinkKeepsEverythingButTheGrant() throws {
        let link = try #require(
            URL(string: "multiauth-portal://auth/callback?token=abc123&authMethod=EMAIL_MAGIC_LINK"))
        let forged = try #require(URLComponents(url: Self.replacingToken(link), resolvingAgainstBaseURL: false))
        #expect(forged.queryItems?.first { $0.name == "authMethod" }?.value == "EMAIL_MAGIC_LINK")
        let token = try #require(forged.queryItems?.first { $0.name == "token" }?.value)
        #expect(token != "abc123" && token.hasPrefix("forged-"))
        #expect(PortalProvider(configuration: PortalWorld.configuration()).canHandle(Self.replacingToken(link)))
    }
}
