import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthCrypto
import MultiAuthDynamic
import MultiAuthOTPless
import MultiAuthTruecaller
import Testing

/// The adapter and passkey types that lost their hand-written `description` keep personal data
/// nonces and credentials out of all five renderings (Docs/Security.md, "Redaction"; Docs/Passkeys.md,
/// "What renderings show"). The rendering sweep searches for planted secrets only; this suite
/// also searches for the names, numbers and e-mail addresses.
@Suite("Default renderings hide personal data and nonces")
struct DefaultRenderingPersonalDataTests {
    static let name = "Zelda Quist"
    static let email = "zelda.quist@example.com"
    static let number = "919876543210"
    static let nonce = "nonce-7c1d90ab"

    func expectNoLeak(_ value: Any, _ secrets: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        let leak = SecretRenderings.firstLeak(of: value, secrets: secrets)
        #expect(leak == nil, "\(leak.map { "\($0.secret) in \($0.rendering)" } ?? "")", sourceLocation: sourceLocation)
    }

    /// `dump`'s text: a `Data` field shows up as its byte list (`▿ bytes: 47 elements`).
    func dumped(_ value: Any) -> String {
        var text = ""
        dump(value, to: &text)
        return text
    }

    @Test func truecallerTypes() {
        let profile = TruecallerProfile(
            firstName: "Zelda", lastName: "Quist", phoneNumber: "+" + Self.number, countryCode: "in",
            gender: "F", email: Self.email, requestNonce: Self.nonce, verifier: "verifier-3e7f",
            otherFields: ["city": "Quistville"])
        expectNoLeak(profile, ["Zelda", "Quist", Self.number, "9876543210", Self.email, Self.nonce, "verifier-3e7f"])
        #expect(String(describing: profile).contains("3210"))
        let detail = TruecallerPhoneNumberDetail(phoneNumber: Self.number, countryCode: "IN")
        expectNoLeak(detail, [Self.number, "98765"])
        #expect(String(describing: detail).contains("••••3210"))
        let response = TruecallerProfileResponse(
            payload: "payload-b64-9a8b", signature: "signature-b64-7c6d", signatureAlgorithm: "SHA512withRSA",
            requestNonce: Self.nonce)
        expectNoLeak(response, ["payload-b64-9a8b", "signature-b64-7c6d", Self.nonce])
        #expect(String(describing: response).contains("SHA512withRSA"))
        let configuration = TruecallerConfiguration(
            appKey: "app-key-2b4d", appLink: URL(string: "https://app.example.com/tc")!, deviceID: "device-8e6f")
        expectNoLeak(configuration, ["app-key-2b4d", "device-8e6f"])
    }

    @Test func phoneAndEmail() throws {
        let phone = try PhoneNumber("+" + Self.number)
        let email = try EmailAddress(Self.email)
        for value: Any in [phone, email, [phone] as [PhoneNumber], Optional(email) as Any] {
            expectNoLeak(value, [Self.number, "9876543210", "98765", "zelda.quist", "zelda", Self.email])
        }
        #expect(String(reflecting: phone) == "+91 •••••• 3210")
        #expect(dumped(phone).hasPrefix("▿ +91 •••••• 3210\n"))
        #expect(dumped(email).hasPrefix("▿ z•••@example.com\n"))
        #expect(phone.e164 == "+" + Self.number && phone.nationalNumber == "9876543210")
        #expect(email.address == Self.email && email.identityKey == Self.email)
    }

    @Test func personName() throws {
        let name = try PersonName(firstName: " Zelda ", lastName: "Quist")
        let user = AuthUser(id: "u1", name: name)
        for value: Any in [name, Optional(name) as Any, user] {
            expectNoLeak(value, ["Zelda", "Quist", "Zel", "Qui"])
        }
        #expect(String(describing: name) == "PersonName(first: <redacted>, last: <redacted>)")
        #expect(name.firstName == "Zelda" && name.lastName == "Quist" && name.fullName == Self.name)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let encoded = String(decoding: try encoder.encode(name), as: UTF8.self)
        #expect(encoded == #"{"firstName":"Zelda","lastName":"Quist"}"#)
        #expect(try JSONDecoder().decode(PersonName.self, from: Data(encoded.utf8)) == name)
    }

    @Test func userIdentitiesAttributesAndRequestOptions() throws {
        var user = AuthUser(
            id: "u1", phone: try PhoneNumber("+" + Self.number), email: try EmailAddress(Self.email),
            identities: [AuthUser.Identity(kind: "google", value: "google-subject-5512093", verified: true)],
            attributes: ["nickname": "Zeldaquist", "countryCode": "IN"])
        expectNoLeak(
            user, [Self.number, "9876543210", Self.email, "zelda.quist", "google-subject-5512093", "Zeldaquist"])
        #expect(user.identities[0].value == "google-subject-5512093")
        user.attributes["nickname"] = "Zq"
        user.identities[0].value = "changed-subject"
        #expect(user.attributes == ["nickname": "Zq", "countryCode": "IN"])
        #expect(user.identities[0].value == "changed-subject")
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let encoded = String(decoding: try encoder.encode(user), as: UTF8.self)
        #expect(encoded.contains(#""attributes":{"countryCode":"IN","nickname":"Zq"}"#))
        #expect(encoded.contains(#""identities":[{"kind":"google","value":"changed-subject","verified":true}]"#))
        #expect(try JSONDecoder().decode(AuthUser.self, from: Data(encoded.utf8)) == user)

        let request = SignInRequest.phone(
            try PhoneNumber("+" + Self.number), options: ["captchaToken": "captcha-51c0ffee", "name": "Zeldaquist"])
        expectNoLeak(request, [Self.number, "9876543210", "captcha-51c0ffee", "Zeldaquist"])
        #expect(request.options == ["captchaToken": "captcha-51c0ffee", "name": "Zeldaquist"])
        #expect(String(describing: request) == "phone(+91 •••••• 3210)")
    }

    @Test func passkeyTypes() {
        let challenge = Data(Self.nonce.utf8)
        let user = PasskeyUser(id: Data("handle-51".utf8), name: Self.email, displayName: Self.name)
        let ceremony = PasskeyCeremony(
            operation: .registration, challenge: challenge, relyingPartyID: "example.com", user: user)
        expectNoLeak(user, [Self.email, Self.name, "handle-51"])
        expectNoLeak(ceremony, [Self.email, Self.name, Self.nonce])
        #expect(!dumped(ceremony).contains(" elements"), "a dump lists the challenge bytes")
        // A credential id is not secret: the descriptor's default dump lists its bytes (and so
        // the check above can fail).
        #expect(dumped(PasskeyCredentialDescriptor(id: challenge)).contains(" elements"))
        let clientData = Data(#"{"type":"webauthn.get","challenge":"\#(Self.nonce)"}"#.utf8)
        let assertion = PasskeyAssertion(
            credentialID: Data([1, 2, 3]), clientDataJSON: clientData, authenticatorData: Data([4, 5]),
            signature: Data([6, 7]), userHandle: Data("handle-51".utf8))
        let registration = PasskeyRegistration(
            credentialID: Data([1, 2, 3]), clientDataJSON: clientData, attestationObject: Data([8]))
        for value: Any in [
            user, assertion, registration, PasskeyResult.assertion(assertion),
            PasskeyResult.registration(registration),
        ] {
            expectNoLeak(value, [Self.nonce, "handle-51"])
            #expect(!dumped(value).contains(" elements"), "a dump lists the client data's bytes")
        }
    }

    @Test func jwtAndClaims() throws {
        let members: [String: JSONValue] = [
            "iss": .string("issuer-5d2c"), "sub": .string("subject-6e3d"), "aud": .array([.string("audience-7f4e")]),
            "jti": .string("jwt-id-8a5f"), "email": .string(Self.email), "exp": .number(1_700_000_000),
        ]
        let claims = try JWTClaims(members)
        let secrets = ["issuer-5d2c", "subject-6e3d", "audience-7f4e", "jwt-id-8a5f", Self.email]
        expectNoLeak(claims, secrets)
        #expect(claims.subject == "subject-6e3d" && claims.audience == ["audience-7f4e"])
        let header = Base64URL.encode(Array(#"{"alg":"none","kid":"k1"}"#.utf8))
        let payload = Base64URL.encode(Array(#"{"sub":"subject-6e3d","email":"\#(Self.email)"}"#.utf8))
        let token = try JWT(parsing: "\(header).\(payload).c2lnbmF0dXJlLTli")
        expectNoLeak(token, ["subject-6e3d", Self.email, payload, "c2lnbmF0dXJlLTli", "signature-9b"])
        let dump = dumped(token)
        #expect(dump.contains("redactedSigningInput: <redacted>") && dump.contains("redactedSignature: <redacted>"))
        #expect(String(describing: token).contains("k1"))
    }

    @Test func dynamicVerifiedToken() throws {
        let token = try JWT(parsing: "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ1In0.")
        let verified = DynamicVerifiedToken(
            userID: "u-1", sessionID: "sid-4f3e", environmentID: "env", scopes: ["user:basic"], expiresAt: nil,
            issuer: "iss", email: Self.email, jwt: token)
        expectNoLeak(verified, [Self.email, "sid-4f3e"])
        #expect(String(describing: verified).contains("u-1"))
    }
}
