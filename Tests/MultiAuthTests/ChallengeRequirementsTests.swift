import Foundation
import Testing

@testable import MultiAuth

/// `Challenge.requirements` — what the answer needs besides the code.
@Suite struct ChallengeRequirementsTests {
    static let issued = Date(timeIntervalSince1970: 1_700_000_000)

    static func challenge(requirements: Set<Challenge.Requirement> = []) -> Challenge {
        Challenge(
            flowID: FlowID(rawValue: "flow-1"), provider: "truecaller",
            kind: .oneTimeCode(length: 6, channel: .sms, linkAlsoSent: false), destination: "+91 •••••• 3210",
            issuedAt: issued, expiresAt: issued + 300, providerState: ProviderState(["token": "vt-1"]),
            requirements: requirements)
    }

    /// A challenge saved by a build before `requirements` existed (no such key) decodes with
    /// none, and everything else intact.
    @Test func aChallengeSavedBeforeRequirementsExistedDecodesWithNone() throws {
        let withKey = try JSONEncoder.multiAuth.encode(Self.challenge(requirements: [.name]))
        var object = try #require(try JSONSerialization.jsonObject(with: withKey) as? [String: Any])
        #expect(object.removeValue(forKey: "requirements") != nil)
        let old = try JSONSerialization.data(withJSONObject: object)
        let decoded = try JSONDecoder.multiAuth.decode(Challenge.self, from: old)
        #expect(decoded.requirements.isEmpty)
        #expect(decoded == Self.challenge())
    }

    /// Without requirements the encoding has no `requirements` key (what earlier builds
    /// wrote); with them it round-trips, sorted.
    @Test func encodingOmitsEmptyRequirementsAndRoundTripsTheRest() throws {
        let plain = String(decoding: try JSONEncoder.multiAuth.encode(Self.challenge()), as: UTF8.self)
        #expect(!plain.contains("requirements"))
        let needs = Self.challenge(requirements: [.name, Challenge.Requirement("zeta")])
        let data = try JSONEncoder.multiAuth.encode(needs)
        #expect(String(decoding: data, as: UTF8.self).contains(#""requirements":["name","zeta"]"#))
        #expect(try JSONDecoder.multiAuth.decode(Challenge.self, from: data) == needs)
    }

    @Test func descriptionAndMirrorNameTheRequirements() {
        let needs = Self.challenge(requirements: [.name])
        #expect(String(describing: needs).contains("requirements: Set([name])"))
        #expect(String(describing: Self.challenge()).contains("requirements: Set([])"))
        let child = Mirror(reflecting: needs).children.first { $0.label == "requirements" }
        #expect(child?.value as? Set<Challenge.Requirement> == [.name])
    }
}
