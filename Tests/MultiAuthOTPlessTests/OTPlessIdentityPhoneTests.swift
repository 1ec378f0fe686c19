import Foundation
import MultiAuth
import Testing

@testable import MultiAuthOTPless

/// Phone identities as OTPLESS reports them (WhatsApp ids: calling code and national digits,
/// no `+`) against libphonenumber's verdict (`Tests/Fixtures/Phone/identity-values.json`,
/// written by `Scripts/generate_identity_phone_fixture.py` from PyPI `phonenumbers`):
/// every value libphonenumber normalizes to a valid E.164 number becomes `user.phone` with
/// that E.164 form, legacy national forms included (a trunk `0` after the calling code,
/// Argentina's `15`, Brazil's carrier codes); every value it cannot parse is kept as the raw
/// hint `user.attributes["unparsedPhone"]`; nothing is ever dropped from `user.identities`
/// (Docs/Providers/OTPless.md, "Session mapping"). Numbers libphonenumber parses but calls
/// invalid are not pinned: our parser checks possible lengths only.
@Suite(.timeLimit(.minutes(10)))
struct OTPlessIdentityPhoneTests {
    struct Entry: Decodable, Sendable {
        let value: String
        /// `valid`, `invalid` (parses, not a valid number) or `refused` (does not parse).
        let verdict: String
        let e164: String?
    }

    struct IdentityValues: Decodable {
        let entries: [Entry]
    }

    static let entries: [Entry] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appending(path: "Fixtures/Phone/identity-values.json")
        guard let data = try? Data(contentsOf: url),
            let fixture = try? JSONDecoder().decode(IdentityValues.self, from: data)
        else { return [] }
        return fixture.entries
    }()

    static func user(_ value: String) throws -> AuthUser {
        let identity = OTPlessWire.Identity(
            channel: "WHATSAPP", identityType: "MOBILE", identityValue: value, verified: true, name: nil)
        return try OTPlessSessionMapper.user(
            from: OTPlessWire.UserInfo(token: "t", userId: "OT_1", idToken: nil, identities: [identity]),
            provider: .otpless)
    }

    @Test func theFixtureCoversEveryRegionAndTheLegacyForms() {
        #expect(Self.entries.count > 700)
        #expect(Self.entries.count { $0.verdict == "valid" } > 600)
        #expect(Self.entries.count { $0.verdict == "refused" } >= 3)
        let byValue = Dictionary(Self.entries.map { ($0.value, $0) }, uniquingKeysWith: { first, _ in first })
        #expect(byValue["540111523456789"]?.e164 == "+5491123456789")  // trunk 0, area 11, mobile 15
        #expect(byValue["5501511912345678"]?.e164 == "+5511912345678")  // trunk 0, carrier 15
        #expect(byValue["5215512345678"]?.verdict == "invalid")  // too long for libphonenumber 9 too
    }

    @Test func everyValueLibphonenumberNormalizesIsTheUsersPhoneAndEveryOtherIsKeptAsAHint() throws {
        var mismatches: [String] = []
        for entry in Self.entries {
            let user = try Self.user(entry.value)
            #expect(user.identities == [AuthUser.Identity(kind: "phone", value: entry.value, verified: true)])
            switch entry.verdict {
            case "valid":
                if user.phone?.e164 != entry.e164 || user.attributes["unparsedPhone"] != nil {
                    mismatches.append(
                        "\(entry.value): libphonenumber \(entry.e164 ?? "?"), ours \(user.phone?.e164 ?? "none")")
                }
            case "refused":
                if user.phone != nil || user.attributes["unparsedPhone"] != entry.value {
                    mismatches.append(
                        "\(entry.value): libphonenumber refuses it, ours \(user.phone?.e164 ?? "no hint")")
                }
            default:
                // Either reading is allowed, but the value is never lost.
                if user.phone == nil, user.attributes["unparsedPhone"] != entry.value {
                    mismatches.append("\(entry.value): neither a phone nor the hint")
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) of \(Self.entries.count): \(mismatches.prefix(20))")
    }
}
