import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthOTPless
import MultiAuthSandbox
import MultiAuthSandboxKit
import Testing

/// For OTPLESS sessions: an unusable expiry means "refresh now" and is reported, never
/// "does not expire"; a provider-returned phone that does not parse is kept and reported
/// (Docs/Providers/OTPless.md, "Session mapping").
@Suite(.timeLimit(.minutes(10)))
struct OTPlessSessionMappingTests {
    /// An unsigned JWT with `payload` verbatim (the device reads session JWTs without verifying).
    static func jwt(_ payload: String) -> String {
        Base64URL.encode(Array(#"{"alg":"RS256","typ":"JWT"}"#.utf8)) + "." + Base64URL.encode(Array(payload.utf8))
            + "."
            + Base64URL.encode(Array("sig".utf8))
    }

    /// Signs in against the verify fixture's success with `change` applied to its `oneTap`.
    static func session(_ change: (inout [String: JSONValue]) -> Void) async throws -> (AuthSession, AdapterRun) {
        let run = try AdapterRun()
        let success = try OTPlessContracts.fixture("verify-otp-phone").response("success")
        guard case .object(var body)? = success.body, case .object(var oneTap)? = body["oneTap"] else {
            throw AuthError(.malformedResponse, "the fixture has no oneTap")
        }
        change(&oneTap)
        body["oneTap"] = .object(oneTap)
        run.transport.script("intent-phone", try OTPlessContracts.fixture("intent-phone").response("otp-whatsapp").http)
        let challenge = try #require(
            try await run.provider.start(.phone(AdapterRun.phone), context: run.context).challenge)
        run.transport.script("verify-otp-phone", success.http(body: .object(body)))
        let step = try await run.provider.respond(
            to: challenge, with: ChallengeAnswer(code: "123456"), context: run.context)
        run.provider.stopAllPolling()
        return (try #require(step.session), run)
    }

    static func withSessionJWT(_ token: String) -> (inout [String: JSONValue]) -> Void {
        { oneTap in
            guard case .object(var info)? = oneTap["sessionInfo"] else { return }
            info["sessionTokenJWT"] = .string(token)
            oneTap["sessionInfo"] = .object(info)
        }
    }

    static let now = 1_700_000_000

    @Test(arguments: [
        (#"{"aud":"SANDBOXAPP","iat":1700000000,"exp":"1700086400"}"#, "exp-malformed"),
        (#"{"aud":"SANDBOXAPP","iat":1700000000,"exp":null}"#, "exp-malformed"),
        (#"{"aud":"SANDBOXAPP","iat":1700000000}"#, "exp-missing"),
        (#"{"aud":"SANDBOXAPP","iat":1700000000000,"exp":1700086400000}"#, "exp-milliseconds"),
        (#"{"aud":"ANOTHERAPP","iat":1700000000,"exp":1700086400}"#, "aud-mismatch"),
    ])
    func anUnusableSessionExpiryMeansRefreshNowAndIsReported(_ payload: String, _ issue: String) async throws {
        let (session, run) = try await Self.session(Self.withSessionJWT(Self.jwt(payload)))
        #expect(session.credentials.expiresAt == run.now)
        #expect(session.isExpired(at: run.now))
        #expect(session.user.attributes["expiryIssue"] == issue)
        #expect(session.credentials.extra[revealing: "sessionToken"] == "session-token-2b7f")
    }

    @Test func aMalformedJWTAndAMissingJWTAreReportedToo() async throws {
        let (garbled, run) = try await Self.session(Self.withSessionJWT("not.a-jwt"))
        #expect(garbled.credentials.expiresAt == run.now)
        #expect(garbled.user.attributes["expiryIssue"] == "jwt-malformed")
        let (missing, _) = try await Self.session { oneTap in
            guard case .object(var info)? = oneTap["sessionInfo"] else { return }
            info["sessionTokenJWT"] = nil
            oneTap["sessionInfo"] = .object(info)
        }
        #expect(missing.user.attributes["expiryIssue"] == "jwt-missing")
    }

    @Test func aUsableExpiryIsExactAndRelativeToTheClientClock() async throws {
        // The server's clock is 100 s behind: exp − iat is what counts.
        let (session, run) = try await Self.session(
            Self.withSessionJWT(Self.jwt(#"{"aud":"sandboxapp","iat":1699999900,"exp":1700003500}"#)))
        #expect(session.credentials.expiresAt == run.now.addingTimeInterval(3600))
        #expect(session.user.attributes["expiryIssue"] == nil)
    }

    @Test func withoutSessionManagementTheSessionHasNoExpiryAndNoIssue() async throws {
        let (session, _) = try await Self.session { $0["sessionInfo"] = nil }
        #expect(session.credentials.expiresAt == nil)
        #expect(session.credentials.refreshToken == nil)
        #expect(session.user.attributes["expiryIssue"] == nil)
    }

    /// Mexico's legacy `+52 1` mobile form, as WhatsApp ids still carry it: libphonenumber 9
    /// refuses it (too long; `Tests/Fixtures/Phone/identity-values.json`), so the session has
    /// no phone and keeps the raw value in the identities and as the `unparsedPhone` hint.
    @Test func aMexicanLegacyMobileIdentityIsNeverDropped() async throws {
        let raw = "5215512345678"
        let (session, _) = try await Self.session { oneTap in
            guard case .object(var info)? = oneTap["merchantUserInfo"],
                case .array(var identities)? = info["identities"],
                case .object(var identity)? = identities.first
            else { return }
            identity["identityValue"] = .string(raw)
            identities[0] = .object(identity)
            info["identities"] = .array(identities)
            oneTap["merchantUserInfo"] = .object(info)
        }
        #expect(session.user.identities.first?.value == raw)
        #expect(session.user.phone == nil)
        #expect(session.user.attributes["unparsedPhone"] == raw)
    }

    @Test func anUnparseablePhoneIdentityIsKeptAndReported() async throws {
        let (session, _) = try await Self.session { oneTap in
            guard case .object(var info)? = oneTap["merchantUserInfo"],
                case .array(var identities)? = info["identities"],
                case .object(var identity)? = identities.first
            else { return }
            identity["identityValue"] = .string("00012")
            identities[0] = .object(identity)
            info["identities"] = .array(identities)
            oneTap["merchantUserInfo"] = .object(info)
        }
        #expect(session.user.phone == nil)
        #expect(session.user.identities == [AuthUser.Identity(kind: "phone", value: "00012", verified: true)])
        #expect(session.user.attributes == ["channel": "WHATSAPP", "unparsedPhone": "00012"])
        #expect(session.user.id == "OT_5F2C0A")
    }
}
