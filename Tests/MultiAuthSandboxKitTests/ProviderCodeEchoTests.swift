import Foundation
import MultiAuth
import MultiAuthDynamic
import MultiAuthOTPless
import MultiAuthSandbox
import MultiAuthSandboxKit
import MultiAuthTestKeys
import MultiAuthTruecaller
import Testing

/// Breaker finding: an error body's code went verbatim into `AuthError.providerCode`, so a
/// server echoing the OTP or a token there leaked it into description, dump and Mirror.
/// Docs/Security.md, "Redaction".
@Suite(.timeLimit(.minutes(10)))
struct ProviderCodeEchoTests {
    /// Every rendering of an error, joined.
    static func renderings(_ error: any Error) -> String {
        var dumped = ""
        dump(error, to: &dumped)
        let mirror = Mirror(reflecting: error).children.map { "\($0.value)" }.joined(separator: "|")
        return "\(error)|\(String(reflecting: error))|\(error.localizedDescription)|\(dumped)|\(mirror)"
    }

    @Test("the plausible-code rule: names and short numbers stay; OTPs, tokens, UUIDs and long text go")
    func plausibleProviderCode() {
        for kept in [
            "wrong_email_verification_token", "too_many_email_verification_attempts", "7118", "18", "mfa_required",
            "invalidUserJwt", "auth:denied", "E-1",
        ] {
            #expect(AuthError.plausibleProviderCode(kept) == kept, "\(kept)")
        }
        for dropped in [
            "731433", "12345678", "550e8400-e29b-41d4-a716-446655440000", "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln",
            "abc123def456", "bad value 731433", "", String(repeating: "a", count: 65), "code\n", "kód",
        ] {
            #expect(AuthError.plausibleProviderCode(dropped) == nil, "\(dropped)")
        }
    }

    /// One submit per adapter, its server answering `body` with `status`; returns the error.
    static func submitError(_ provider: AuthProviderID, status: Int, body: (String) -> [String: String]) async throws
        -> (AuthError, String)
    {
        let world = try StandardSandbox(seed: 5, signingKey: TestKeys.rsaA)
        let client = try world.makeClient()
        let challenge: Challenge
        let code: String
        var name: PersonName?
        switch provider {
        case .dynamic:
            let email = try EmailAddress("ada@example.com")
            challenge = try #require(try await client.signIn(with: .dynamic, .email(email)).challenge)
            code = try #require(world.inbox.latest(for: email.identityKey, channel: .email)?.code)
        case .truecaller:
            let phone = try PhoneNumber("+919876543210")
            challenge = try #require(try await client.signIn(with: .truecaller, .phone(phone)).challenge)
            code = try #require(world.inbox.latest(for: phone.e164)?.code)
            name = try PersonName(firstName: "Ana")
        default:
            let phone = try PhoneNumber("+919876500000")
            challenge = try #require(try await client.signIn(with: .otpless, .phone(phone, channel: .sms)).challenge)
            code = try #require(world.inbox.latest(for: phone.e164)?.code)
        }
        world.sandbox.faults.add(.jsonStatus(status, body(code)))
        do {
            _ = try await client.submit(ChallengeAnswer(code: code, name: name), for: challenge)
        } catch let error as AuthError {
            return (error, code)
        }
        throw AuthError(.generic, "the submit did not fail")
    }

    @Test(
        "an OTP echoed as the error code is dropped: Dynamic `code`, Truecaller `code`, OTPLESS `errorCode`",
        arguments: [(AuthProviderID.dynamic, "code", 422), (.truecaller, "code", 400), (.otpless, "errorCode", 400)])
    func anEchoedOTPIsNotAProviderCode(provider: AuthProviderID, key: String, status: Int) async throws {
        let (error, code) = try await Self.submitError(provider, status: status) { [key: $0] }
        #expect(error.providerCode == nil, "\(error)")
        #expect(!Self.renderings(error).contains(code), "\(Self.renderings(error))")
    }

    @Test(
        "a token echoed as the error code is dropped, unbounded text too",
        arguments: [AuthProviderID.dynamic, .truecaller, .otpless])
    func anEchoedTokenIsNotAProviderCode(provider: AuthProviderID) async throws {
        let token = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1c2VyLTEifQ.c2lnbmF0dXJlLWJ5dGVz"
        let key = provider == .otpless ? "errorCode" : "code"
        let (error, _) = try await Self.submitError(provider, status: 422) { _ in [key: token] }
        #expect(error.providerCode == nil, "\(error)")
        #expect(!Self.renderings(error).contains("c2lnbmF0dXJlLWJ5dGVz"))
        let long = String(repeating: "x", count: 10_000)
        let (second, _) = try await Self.submitError(provider, status: 422) { _ in [key: long] }
        #expect(second.providerCode == nil)
        #expect(!Self.renderings(second).contains(String(repeating: "x", count: 65)))
    }

    @Test("a real code is still kept")
    func aRealCodeIsKept() async throws {
        let (dynamic, _) = try await Self.submitError(.dynamic, status: 422) { _ in
            ["code": "wrong_email_verification_token"]
        }
        #expect(dynamic.code == .invalidCode)
        #expect(dynamic.providerCode == "wrong_email_verification_token")
        let (otpless, _) = try await Self.submitError(.otpless, status: 400) { _ in ["errorCode": "7118"] }
        #expect(otpless.code == .invalidCode)
        #expect(otpless.providerCode == "7118")
    }
}
