import Foundation
import MultiAuth
import Testing

/// Invariant 7: no secret appears in any description, debug description or dump.
@Suite struct RedactionTests {
    static let secrets = [
        "SECRET-ACCESS-TOKEN", "SECRET-ID-TOKEN", "SECRET-REFRESH-TOKEN", "SECRET-MINIFIED", "SECRET-STATE-VALUE",
        "JBSWY3DPEHPK3PXP", "135791", "SECRET-USER-JWT",
    ]

    static func fixtures() throws -> [(String, Any)] {
        var state = ProviderState()
        state["userJwt"] = "SECRET-USER-JWT"
        state["requestId"] = "SECRET-STATE-VALUE"
        let enrollment = TOTPEnrollment(
            otpauthURI: "otpauth://totp/Acme:a@b.co?secret=JBSWY3DPEHPK3PXP&issuer=Acme", issuer: "Acme",
            account: "a@b.co")
        let credentials = Credentials(
            accessToken: "SECRET-ACCESS-TOKEN", idToken: "SECRET-ID-TOKEN", refreshToken: "SECRET-REFRESH-TOKEN",
            expiresAt: Date(timeIntervalSince1970: 1_700_000_000),
            extra: ProviderState(["minifiedJwt": "SECRET-MINIFIED"]))
        let session = AuthSession(
            provider: "dynamic",
            user: AuthUser(id: "u1", phone: try PhoneNumber("+919876543210"), email: try EmailAddress("a@b.co")),
            credentials: credentials, createdAt: Date(timeIntervalSince1970: 1_700_000_000))
        let challenge = Challenge(
            flowID: .random(), provider: "portal", kind: .totp(digits: 6, enrollment: enrollment),
            issuedAt: Date(timeIntervalSince1970: 0),
            providerState: state)
        let answer = ChallengeAnswer(code: "135791", name: try PersonName(firstName: "Ana"))
        let error = AuthError(.invalidCode, "wrong code", provider: "portal", providerCode: "7118")
        let request = try HTTPRequest.json(
            .post, URL(string: "https://api.example.com/verify?code=135791")!, body: ["code": "135791"],
            headers: ["Authorization": "Bearer SECRET-ACCESS-TOKEN"])
        let event = AuthEvent(
            sequence: 1, timestamp: Date(timeIntervalSince1970: 0), provider: "portal", flowID: nil,
            kind: .signedIn(session))
        let issued = AuthEvent(
            sequence: 2, timestamp: Date(timeIntervalSince1970: 0), provider: "portal", flowID: nil,
            kind: .challengeIssued(challenge))
        return [
            ("state", state), ("enrollment", enrollment), ("credentials", credentials), ("session", session),
            ("challenge", challenge), ("answer", answer), ("error", error), ("request", request),
            ("step", SignInStep.signedIn(session)), ("challengeStep", SignInStep.challenge(challenge)),
            ("event", event),
            ("issued", issued), ("kind", challenge.kind),
        ]
    }

    @Test func noSecretInDescriptionsOrDumps() throws {
        for (name, value) in try Self.fixtures() {
            var dumped = ""
            dump(value, to: &dumped)
            let renderings = [String(describing: value), String(reflecting: value), dumped, "\(value)"]
            for rendering in renderings {
                for secret in Self.secrets {
                    #expect(!rendering.contains(secret), "\(name) leaks \(secret) in: \(rendering)")
                }
            }
        }
    }

    @Test func dumpsOfErrorsRequestsAndUsersHideProviderData() throws {
        struct Leaky: Error { let token = "SECRET-UNDERLYING" }
        let error = AuthError(.network, "dropped", underlying: Leaky())
        let request = SignInRequest.phone(try PhoneNumber("+919876543210"), options: ["firstName": "SECRET-NAME"])
        let user = AuthUser(
            id: "u", identities: [.init(kind: "phone", value: "+447700900123", verified: true)],
            attributes: ["email": "SECRET-ATTR"])
        for value in [error as Any, request, user] {
            var dumped = ""
            dump(value, to: &dumped)
            for secret in ["SECRET-UNDERLYING", "SECRET-NAME", "SECRET-ATTR", "7700900123", "9876543210"] {
                #expect(!dumped.contains(secret), "\(dumped)")
            }
        }
    }

    @Test func phoneAndEmailPrintMasked() throws {
        #expect(String(describing: try PhoneNumber("+919876543210")) == "+91 •••••• 3210")
        #expect(!String(describing: AuthUser(id: "u", phone: try PhoneNumber("+919876543210"))).contains("9876543210"))
    }
}
