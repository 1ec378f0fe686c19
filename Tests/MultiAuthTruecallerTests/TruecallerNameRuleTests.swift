import Foundation
import MultiAuth
import Testing

@testable import MultiAuthTruecaller

/// The name rules (error 18 meaning, Docs/Providers/Truecaller.md): checked before the verify call.
@Suite(.timeLimit(.minutes(10)))
struct TruecallerNameRuleTests {
    static let valid: [(String, String)] = [
        ("Asha", ""), ("Asha", "Rao"), ("  Asha ", " Rao "), ("A", ""), ("Ōkubo", "Tōru"), ("अनन्या", "शर्मा"),
        ("Mary-Jane", "O'Brien"), ("R2D2", ""),
        (String(repeating: "a", count: 127), String(repeating: "b", count: 127)),
        ("J.", "R.R."),
        // TrueSDK's last-name rule is its length only (Docs/Providers/Truecaller.md, "OTP flow and states").
        ("Asha", "123"), ("Asha", "!!"), ("Asha", String(repeating: "b", count: 128)), ("Asha", "III 3rd"),
    ]
    static let invalid: [(String, String)] = [
        ("", "Rao"), ("   ", ""), ("12345", ""), ("!!!", ""), ("123-456", ""), ("@#$", "Rao"),
        (String(repeating: "a", count: 128), ""), ("Asha", String(repeating: "b", count: 129)),
        ("Asha", String(repeating: "😀", count: 65)),  // 130 UTF-16 code units
    ]

    @Test(arguments: valid)
    func validNamesReachTheVerifyCall(first: String, last: String) async throws {
        let name = try PersonName(firstName: first, lastName: last)
        let transport = TruecallerOTPFlowTests.server()
        let provider = TruecallerProvider(configuration: TruecallerWorld.configuration)
        let challenge = try #require(
            try await provider.start(.phone(TruecallerWorld.phone), context: TruecallerWorld.context(transport))
                .challenge)
        _ = try await provider.respond(
            to: challenge, with: ChallengeAnswer(code: "123456", name: name),
            context: TruecallerWorld.context(transport))
        let sent = Stub.body(transport.requests[2])
        #expect(sent["firstName"] as? String == first.trimmingCharacters(in: .whitespaces))
        #expect(sent["lastName"] as? String == last.trimmingCharacters(in: .whitespaces))
    }

    @Test(arguments: invalid)
    func invalidNamesAreRefusedWithReasonInvalidName(first: String, last: String) async throws {
        #expect(throws: AuthError.self) { _ = try PersonName(firstName: first, lastName: last) }
        // The same name cannot be smuggled in through Codable: decoding applies the rules too.
        let json = try JSONSerialization.data(withJSONObject: ["firstName": first, "lastName": last])
        #expect(throws: DecodingError.self) { _ = try JSONDecoder().decode(PersonName.self, from: json) }
    }

    @Test func aNameGivenUpFrontInTheRequestOptionsIsCheckedBeforeCreateAndUsedAtVerify() async throws {
        let provider = TruecallerProvider(configuration: TruecallerWorld.configuration)
        let transport = TruecallerOTPFlowTests.server()
        let bad = await #expect(throws: AuthError.self) {
            _ = try await provider.start(
                .phone(TruecallerWorld.phone, options: ["firstName": "123"]),
                context: TruecallerWorld.context(transport))
        }
        #expect(bad?.reason == .invalidName)
        #expect(bad?.providerCode == "18")
        #expect(transport.requests.isEmpty)

        let request = SignInRequest.phone(
            TruecallerWorld.phone,
            options: [TruecallerProvider.firstNameOption: "Asha", TruecallerProvider.lastNameOption: "Rao"])
        let challenge = try #require(
            try await provider.start(request, context: TruecallerWorld.context(transport)).challenge)
        _ = try await provider.respond(
            to: challenge, with: ChallengeAnswer(code: "123456"), context: TruecallerWorld.context(transport))
        #expect(Stub.body(transport.requests[2])["firstName"] as? String == "Asha")
        #expect(Stub.body(transport.requests[2])["lastName"] as? String == "Rao")

        // The answer's name wins over the preset one.
        let second = try #require(
            try await provider.start(request, context: TruecallerWorld.context(transport)).challenge)
        _ = try await provider.respond(
            to: second, with: ChallengeAnswer(code: "123456", name: try PersonName(firstName: "Anu")),
            context: TruecallerWorld.context(transport))
        #expect(Stub.body(transport.requests[6])["firstName"] as? String == "Anu")
    }

    /// The challenge says it needs a name before the code is sent, unless the request
    /// carried one; the requirement survives encode → decode.
    @Test func theChallengeSaysANameIsRequiredUnlessTheRequestCarriedOne() async throws {
        let provider = TruecallerProvider(configuration: TruecallerWorld.configuration)
        let transport = TruecallerOTPFlowTests.server()
        let bare = try #require(
            try await provider.start(.phone(TruecallerWorld.phone), context: TruecallerWorld.context(transport))
                .challenge)
        #expect(bare.requirements == [.name])
        let decoded = try JSONDecoder.multiAuth.decode(Challenge.self, from: try JSONEncoder.multiAuth.encode(bare))
        #expect(decoded.requirements == [.name])
        #expect(decoded == bare)
        let missing = await #expect(throws: AuthError.self) {
            _ = try await provider.respond(
                to: bare, with: ChallengeAnswer(code: "123456"), context: TruecallerWorld.context(transport))
        }
        #expect(missing?.code == .invalidInput)
        #expect(missing?.reason == .answerMismatch)

        let named = SignInRequest.phone(TruecallerWorld.phone, options: [TruecallerProvider.firstNameOption: "Asha"])
        let preset = try #require(
            try await provider.start(named, context: TruecallerWorld.context(transport)).challenge)
        #expect(preset.requirements.isEmpty)
    }
}
