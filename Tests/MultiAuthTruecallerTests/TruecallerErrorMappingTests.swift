import Foundation
import MultiAuth
import MultiAuthSandbox
import Testing

@testable import MultiAuthTruecaller

/// Every Truecaller code maps to one `AuthError.Code` with the raw code kept (Docs/Providers/Truecaller.md).
@Suite(.timeLimit(.minutes(10)))
struct TruecallerErrorMappingTests {
    static let table: [(Int, AuthError.Code, String)] = [
        (1, .configuration, "AppKeyMissing"),
        (2, .configuration, "AppLinkMissing"),
        (3, .cancelledByProvider, "UserCancelled"),
        (4, .unsupported, "UserNotSignedIn"),
        (5, .configuration, "SDKTooOld"),
        (6, .unsupported, "TruecallerTooOld"),
        (7, .unsupported, "OSNotSupported"),
        (8, .unsupported, "TruecallerNotInstalled"),
        (9, .network, "Network"),
        (10, .providerUnavailable, "Internal"),
        (11, .unauthorized, "UnauthorizedUser"),
        (12, .configuration, "UnauthorizedDeveloper"),
        (13, .malformedResponse, "UserProfileContentNotValid"),
        (14, .invalidInput, "BadRequest"),
        (15, .signatureInvalid, "VerificationFailed"),
        (16, .signatureInvalid, "RequestNonceMismatch"),
        (17, .configuration, "ViewDelegateNil"),
        (18, .invalidInput, "InvalidName"),
        (19, .configuration, "UniversalLinkFailed"),
        (20, .configuration, "UrlSchemeMissing"),
        (404, .configuration, "InvalidPartnerCredentials"),
        (1404, .unauthorized, "InvalidAccessToken"),
        (500, .providerUnavailable, "ServerError"),
        (4001, .invalidCode, "InvalidOTP"),
        (4002, .expired, "VerificationTokenExpired"),
        (4290, .rateLimited, "TooManyAttempts"),
        (4291, .rateLimited, "TooManyRequests"),
    ]

    @Test(arguments: table)
    func codeMapsAndKeepsTheRawCode(raw: Int, expected: AuthError.Code, name: String) {
        let code = TruecallerErrorCode(raw)
        #expect(code.authErrorCode == expected)
        #expect(code.name == name)
        let error = code.authError()
        #expect(error.code == expected)
        #expect(error.providerCode == String(raw))
        #expect(error.provider == .truecaller)
        #expect(error.reason == (raw == 18 ? .invalidName : nil))
    }

    @Test(arguments: table)
    func backendBodyWithCodeMapsWhateverTheHTTPStatus(raw: Int, expected: AuthError.Code, name: String) async throws {
        // The SDK decides on the `code` key only (Docs/Providers/Truecaller.md): try a 200 and a 400.
        for status in [200, 400] {
            let transport = ScriptedTransport { _ in Stub.json(status, ["code": raw, "message": "server says so"]) }
            let error = await #expect(throws: AuthError.self) {
                _ = try await TruecallerProvider(configuration: TruecallerWorld.configuration).start(
                    .phone(TruecallerWorld.phone), context: TruecallerWorld.context(transport))
            }
            #expect(error?.code == expected)
            #expect(error?.providerCode == String(raw))
            #expect(error?.message.contains("server says so") == false, "server messages are not copied into errors")
        }
    }

    @Test func unknownAndOddCodesNeverCrashOrMisdecode() async throws {
        #expect(TruecallerErrorCode(0).authErrorCode == .generic)
        #expect(TruecallerErrorCode(21).authErrorCode == .generic)
        #expect(TruecallerErrorCode(-7).name == nil)
        #expect(TruecallerErrorCode(999).authError().providerCode == "999")
        let cases: [(HTTPResponse, AuthError.Code, String?)] = [
            (Stub.json(400, ["code": "17"]), .configuration, "17"),  // a numeric string
            (Stub.json(400, ["code": 77]), .generic, "77"),
            (Stub.json(400, ["code": "abc"]), .generic, "abc"),
            (Stub.json(503, ["code": "unavailable"]), .providerUnavailable, "unavailable"),
            (Stub.json(502, ["code": 77]), .providerUnavailable, "77"),
            (Stub.json(429, ["code": 77], headers: ["Retry-After": "5"]), .rateLimited, "77"),
            (Stub.json(500, ["code": 15]), .signatureInvalid, "15"),
            (Stub.json(503, [:]), .providerUnavailable, "503"),
            (HTTPResponse(status: 502, body: Data("<html>".utf8)), .providerUnavailable, "502"),
            (HTTPResponse(status: 429, headers: ["Retry-After": "30"]), .rateLimited, "429"),
            (HTTPResponse(status: 200, body: Data("not json".utf8)), .malformedResponse, nil),
            (Stub.json(200, ["status": 7]), .malformedResponse, nil),
        ]
        for (response, expected, providerCode) in cases {
            let transport = ScriptedTransport { _ in response }
            let error = await #expect(throws: AuthError.self) {
                _ = try await TruecallerProvider(configuration: TruecallerWorld.configuration).start(
                    .phone(TruecallerWorld.phone), context: TruecallerWorld.context(transport))
            }
            #expect(error?.code == expected, "\(response)")
            #expect(error?.providerCode == providerCode, "\(response)")
        }
    }

    /// The real wrong-code answer is unpublished (4001 is the sandbox's invention): a verify
    /// the server refuses is `.invalidCode` by its status, whatever its code, with the raw
    /// code kept; 429 and 5xx keep their meaning; the same answers to `create` stay `generic`
    /// (Docs/Providers/Truecaller.md, "Error table").
    @Test func aRefusedVerifyIsAWrongCodeWhateverItsCode() async throws {
        let cases: [(HTTPResponse, AuthError.Code, String?, Int?)] = [
            (Stub.json(400, ["code": 40101, "message": "OTP mismatch"]), .invalidCode, "40101", nil),
            (Stub.json(400, ["code": "E_OTP", "attemptsRemaining": 2]), .invalidCode, "E_OTP", 2),
            (Stub.json(200, ["code": 77]), .invalidCode, "77", nil),
            (Stub.json(422, [:]), .invalidCode, "422", nil),
            (Stub.json(401, ["message": "nope"]), .invalidCode, "401", nil),
            (Stub.json(400, ["code": 4001, "attemptsRemaining": 4]), .invalidCode, "4001", 4),
            (Stub.json(429, ["code": 77], headers: ["Retry-After": "5"]), .rateLimited, "77", nil),
            (Stub.json(503, [:]), .providerUnavailable, "503", nil),
            (Stub.json(400, ["code": 2, "message": "Invalid phone number"]), .invalidInput, "2", nil),
        ]
        for (response, expected, providerCode, remaining) in cases {
            let transport = ScriptedTransport { request in
                request.url.path.hasSuffix("/verify")
                    ? response
                    : Stub.json(
                        200,
                        ["status": 2, "message": "sent", "method": "sms", "verificationToken": "vt-1", "tokenTtl": 300])
            }
            let provider = TruecallerProvider(configuration: TruecallerWorld.configuration)
            let challenge = try #require(
                try await provider.start(.phone(TruecallerWorld.phone), context: TruecallerWorld.context(transport))
                    .challenge)
            let error = await #expect(throws: AuthError.self) {
                _ = try await provider.respond(
                    to: challenge, with: ChallengeAnswer(code: "123456", name: try PersonName(firstName: "Asha")),
                    context: TruecallerWorld.context(transport))
            }
            #expect(error?.code == expected, "\(response)")
            #expect(error?.providerCode == providerCode, "\(response)")
            #expect(error?.attemptsRemaining == remaining, "\(response)")
        }
        // The same unknown code on `create` is not a wrong code.
        let create = ScriptedTransport { _ in Stub.json(400, ["code": 40101]) }
        let error = await #expect(throws: AuthError.self) {
            _ = try await TruecallerProvider(configuration: TruecallerWorld.configuration).start(
                .phone(TruecallerWorld.phone), context: TruecallerWorld.context(create))
        }
        #expect(error?.code == .generic)
    }

    @Test func transportErrorsPassThrough() async throws {
        let transport = ScriptedTransport { _ in throw AuthError(.network, "dropped") }
        let error = await #expect(throws: AuthError.self) {
            _ = try await TruecallerProvider(configuration: TruecallerWorld.configuration).start(
                .phone(TruecallerWorld.phone), context: TruecallerWorld.context(transport))
        }
        #expect(error?.code == .network)
    }
}
