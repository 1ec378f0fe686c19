import Foundation
import MultiAuth
import Testing

@testable import MultiAuthOTPless

@Suite(.timeLimit(.minutes(10)))
struct OTPlessErrorMappingTests {
    static let cases: [(String, AuthError.Code)] = [
        ("5003", .providerUnavailable), ("4000", .invalidInput), ("4001", .configuration), ("4002", .invalidInput),
        ("4003", .configuration), ("5900", .unsupported), ("7101", .invalidInput), ("7102", .invalidInput),
        ("7103", .channelUnavailable), ("7104", .invalidInput), ("7105", .channelUnavailable), ("7106", .invalidInput),
        ("7113", .invalidInput), ("7116", .invalidInput), ("7121", .configuration), ("401", .configuration),
        ("7025", .channelUnavailable), ("7020", .rateLimited), ("7022", .rateLimited), ("7023", .rateLimited),
        ("7024", .rateLimited), ("7112", .invalidInput), ("7115", .codeAlreadyUsed), ("7118", .invalidCode),
        ("7303", .expired), ("500", .providerUnavailable), ("9100", .network), ("9101", .network), ("9102", .network),
        ("9103", .network), ("9104", .network), ("9105", .network), ("9110", .cancelledByProvider),
        ("9106", .channelUnavailable), ("400", .invalidInput), ("7160", .channelUnavailable),
        ("7161", .channelUnavailable), ("5800", .unsupported), ("5005", .network), ("5006", .malformedResponse),
        ("5002", .network), ("7122", .channelUnavailable), ("7128", .channelUnavailable), ("7169", .rateLimited),
        ("7119", .invalidInput), ("7170", .challengeNotPending), ("7002", .unauthorized), ("7012", .configuration),
        ("7019", .unauthorized), ("8888", .generic),
    ]

    @Test(arguments: cases)
    func errorBodyMapsWithTheRawCodeKept(_ raw: String, _ expected: AuthError.Code) {
        let body = Data(#"{"errorCode":"\#(raw)","message":"Invalid Request","description":"Request error"}"#.utf8)
        let error = OTPlessErrorMapping.error(status: 400, body: body)
        #expect(error.code == expected)
        #expect(error.providerCode == raw)
        #expect(error.provider == .otpless)
        #expect(OTPlessErrorMapping.code(for: raw) == expected)
    }

    @Test(
        arguments: [(Int, AuthError.Code, String)]([
            (503, .providerUnavailable, "503"), (429, .rateLimited, "429"), (404, .generic, "404"),
            (401, .configuration, "401"),
        ]))
    func aBodyWithoutErrorCodeIsKeyedByTheStatus(_ status: Int, _ expected: AuthError.Code, _ raw: String) {
        let error = OTPlessErrorMapping.error(status: status, body: Data("<html>".utf8), retryAfter: .seconds(7))
        #expect(error.code == expected)
        #expect(error.providerCode == raw)
        if expected == .rateLimited { #expect(error.retryAfter == .seconds(7)) }
    }

    @Test func numericErrorCodesAreRead() {
        let error = OTPlessErrorMapping.error(
            status: 400, body: Data(#"{"errorCode":7118}"#.utf8), attemptsRemaining: 2)
        #expect(error.code == .invalidCode)
        #expect(error.providerCode == "7118")
        #expect(error.attemptsRemaining == 2)
    }

    @Test(arguments: ["7116", "7022", "7303", "4003", "500", "8888"])
    func serverErrorsDuringStartKeepTheirCode(_ raw: String) async throws {
        let world = try OTPlessWorld()
        let provider = try world.provider()
        world.inject(
            OTPlessPath.intent,
            HTTPResponse(
                status: raw == "7022" ? 429 : 400, headers: ["Retry-After": "12"],
                body: Data(#"{"errorCode":"\#(raw)","message":"Invalid Request","description":"Request error"}"#.utf8)))
        let error = await #expect(throws: AuthError.self) {
            _ = try await provider.start(.phone(phone), context: world.context())
        }
        #expect(error?.code == OTPlessErrorMapping.code(for: raw))
        #expect(error?.providerCode == raw)
        if raw == "7022" { #expect(error?.retryAfter == .seconds(12)) }
    }

    @Test func theFifthWrongCodeExhaustsTheChallenge() async throws {
        let world = try OTPlessWorld()
        let provider = try world.provider()
        let client = try AuthClient(providers: [provider], transport: world.transport, time: world.time)
        var challenge = try #require(try await client.signIn(with: .otpless, .email(email)).challenge)
        let code = try #require(world.latest(email.identityKey)?.code)
        let wrong = code == "000000" ? "111111" : "000000"
        for expected in [4, 3, 2, 1] {
            let error = await #expect(throws: AuthError.self) {
                _ = try await client.submit(ChallengeAnswer(code: wrong), for: challenge)
            }
            #expect(error?.attemptsRemaining == expected)
            challenge = try #require(await client.pendingChallenge(for: .otpless))
        }
        let last = await #expect(throws: AuthError.self) {
            _ = try await client.submit(ChallengeAnswer(code: wrong), for: challenge)
        }
        #expect(last?.code == .attemptsExhausted)
        #expect(last?.providerCode == "7118")
    }
}
