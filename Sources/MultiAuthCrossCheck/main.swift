// MultiAuthCrossCheck: answers JSON-lines requests with MultiAuthCrypto, one response line
// per request line, so Scripts/crosscheck_crypto.py can compare thousands of cases with its
// Python peers (pyotp, PyJWT) in one process.
//
// Requests (one JSON object per line, each with an "id" echoed back):
//   {"op":"totp","secret":"<base32>","algorithm":"SHA1","digits":6,"period":30,"time":59}
//       -> {"code":"287082"}
//   {"op":"verify", …totp fields…, "code":"287082","window":1} -> {"valid":true}
//   {"op":"uri_parse","uri":"otpauth://…"}
//       -> {"secret","issuer","account","algorithm","digits","period","encoder"}
//   {"op":"uri_build","issuer":…|null,"account","secret","algorithm","digits","period"} -> {"uri"}
//   {"op":"steam","secret":"<base32>","time":0} -> {"code":"C5V56"} (Steam Guard, encoder=steam)
//   {"op":"jwt","token","jwk":{…},"now":1700000000,"leeway":0,"audience":"client-1"}
//   {"op":"jwt","token","jwk":{…},"now":1700000000,"leeway":0,"any_audience":true}
//       -> {"valid":true} or {"valid":false,"error":"…"}  (an audience, or the explicit
//          opt-out, is required: MultiAuth has no "no audience" default)
//   WebAuthn (Scripts/crosscheck_webauthn.py; bytes as base64url):
//   {"op":"webauthn_make","seed":1,"alg":-7,"attestation":"none"|"packed","rp_id","origin",
//    "user_handle","challenge","assertion_challenges":[…],"sign_count_step":1}
//       -> {"registration":{"credential_id","client_data","attestation_object"},
//           "assertions":[{"credential_id","client_data","authenticator_data","signature","user_handle"}]}
//       (a SoftwareAuthenticator registration and its assertions)
//   {"op":"webauthn_register","rp_id","origins":[…],"challenge","client_data","attestation_object",
//    "uv_required":true} -> {"valid":true,"credential_id","public_key","alg","sign_count","fmt"}
//   {"op":"webauthn_assert","rp_id","origins":[…],"challenge","credential_id","client_data",
//    "authenticator_data","signature","user_handle"|null,"public_key","alg","sign_count","uv_required"}
//       -> {"valid":true,"sign_count":n,"regressed":false}
//       (WebAuthnVerifier; a refusal is {"valid":false,"error":"<WebAuthnError code>"})
// Any failure answers {"error": description}. Exit status 0 at end of input.
import Foundation
import MultiAuthConformance
import MultiAuthCrypto

struct BadRequest: Error {}

func string(_ request: [String: Any], _ key: String) throws -> String {
    guard let value = request[key] as? String else { throw BadRequest() }
    return value
}

func int64(_ request: [String: Any], _ key: String) throws -> Int64 {
    guard let value = request[key] as? NSNumber else { throw BadRequest() }
    return value.int64Value
}

func totp(_ request: [String: Any]) throws -> TOTP {
    try TOTP(
        secret: Base32.decode(string(request, "secret")),
        algorithm: DigestAlgorithm(name: string(request, "algorithm")),
        digits: Int(int64(request, "digits")), period: int64(request, "period"))
}

func bytes(_ request: [String: Any], _ key: String) throws -> [UInt8] {
    try Base64URL.decode(string(request, key))
}

func webAuthnVerifier(_ request: [String: Any]) throws -> WebAuthnVerifier {
    guard let origins = request["origins"] as? [String] else { throw BadRequest() }
    return WebAuthnVerifier(relyingParty: WebAuthnRelyingParty(id: try string(request, "rp_id"), origins: origins))
}

func userVerification(_ request: [String: Any]) -> WebAuthnUserVerification {
    request["uv_required"] as? Bool == true ? .required : .preferred
}

func webAuthnMake(_ request: [String: Any]) throws -> [String: Any] {
    guard let algorithm = COSEAlgorithm(rawValue: Int(try int64(request, "alg"))),
        let challenges = request["assertion_challenges"] as? [String],
        let seed = UInt64(exactly: try int64(request, "seed")),
        let step = UInt32(exactly: (request["sign_count_step"] as? NSNumber)?.int64Value ?? 1)
    else { throw BadRequest() }
    let authenticator = SoftwareAuthenticator(
        seed: seed, algorithm: algorithm,
        attestation: try string(request, "attestation") == "packed" ? .packedSelf : .none,
        signCountStep: step)
    let rpID = try string(request, "rp_id")
    let origin = try string(request, "origin")
    let registration = try authenticator.makeCredential(
        rpID: rpID, origin: origin, challenge: bytes(request, "challenge"), userHandle: bytes(request, "user_handle"),
        userName: "crosscheck")
    let assertions = try challenges.map { challenge in
        let assertion = try authenticator.getAssertion(
            rpID: rpID, origin: origin, challenge: Base64URL.decode(challenge),
            allowedCredentialIDs: [registration.credentialID])
        return [
            "credential_id": Base64URL.encode(assertion.credentialID),
            "client_data": Base64URL.encode(assertion.clientDataJSON),
            "authenticator_data": Base64URL.encode(assertion.authenticatorData),
            "signature": Base64URL.encode(assertion.signature),
            "user_handle": assertion.userHandle.map { Base64URL.encode($0) as Any } ?? NSNull(),
        ]
    }
    return [
        "registration": [
            "credential_id": Base64URL.encode(registration.credentialID),
            "client_data": Base64URL.encode(registration.clientDataJSON),
            "attestation_object": Base64URL.encode(registration.attestationObject),
        ],
        "assertions": assertions,
    ]
}

func webAuthnRegister(_ request: [String: Any]) async throws -> [String: Any] {
    do {
        let credential = try await webAuthnVerifier(request).verifyRegistration(
            clientDataJSON: bytes(request, "client_data"), attestationObject: bytes(request, "attestation_object"),
            expectedChallenge: bytes(request, "challenge"), userVerification: userVerification(request))
        return [
            "valid": true, "credential_id": Base64URL.encode(credential.credentialID),
            "public_key": Base64URL.encode(credential.publicKey), "alg": credential.algorithm.rawValue,
            "sign_count": credential.signCount, "fmt": credential.attestationFormat,
        ]
    } catch let error as WebAuthnError {
        return ["valid": false, "error": error.code.rawValue]
    }
}

func webAuthnAssert(_ request: [String: Any]) async throws -> [String: Any] {
    guard let algorithm = COSEAlgorithm(rawValue: Int(try int64(request, "alg"))),
        let storedCount = UInt32(exactly: try int64(request, "sign_count"))
    else { throw BadRequest() }
    let credentialID = try bytes(request, "credential_id")
    let userHandle = try (request["user_handle"] as? String).map { try Base64URL.decode($0) }
    let credential = WebAuthnCredential(
        credentialID: credentialID, publicKey: try bytes(request, "public_key"), algorithm: algorithm,
        signCount: storedCount, userHandle: nil, backupEligible: false, backedUp: false, attestationFormat: "none",
        aaguid: Array(repeating: 0, count: 16))
    do {
        let result = try await webAuthnVerifier(request).verifyAssertion(
            credentialID: credentialID, clientDataJSON: bytes(request, "client_data"),
            authenticatorData: bytes(request, "authenticator_data"), signature: bytes(request, "signature"),
            userHandle: userHandle, expectedChallenge: bytes(request, "challenge"), credential: credential,
            userVerification: userVerification(request))
        return ["valid": true, "sign_count": result.signCount, "regressed": result.signCountRegressed]
    } catch let error as WebAuthnError {
        return ["valid": false, "error": error.code.rawValue]
    }
}

func answer(_ request: [String: Any]) async throws -> [String: Any] {
    switch try string(request, "op") {
    case "webauthn_make":
        return try webAuthnMake(request)
    case "webauthn_register":
        return try await webAuthnRegister(request)
    case "webauthn_assert":
        return try await webAuthnAssert(request)
    case "totp":
        return ["code": try totp(request).code(at: int64(request, "time"))]
    case "verify":
        do {
            _ = try totp(request).verify(
                string(request, "code"), at: int64(request, "time"), window: Int(int64(request, "window")))
            return ["valid": true]
        } catch let error as CryptoError {
            return ["valid": false, "error": error.description]
        }
    case "uri_parse":
        let uri = try OTPAuthURI(parsing: string(request, "uri"))
        return [
            "secret": uri.secret, "issuer": uri.issuer as Any? ?? NSNull(), "account": uri.account,
            "algorithm": uri.algorithm.rawValue, "digits": uri.digits, "period": uri.period,
            "encoder": uri.encoding == .steam ? "steam" as Any : NSNull(),
        ]
    case "uri_build":
        let uri = try OTPAuthURI(
            issuer: request["issuer"] as? String, account: string(request, "account"),
            secret: Base32.decode(string(request, "secret")),
            algorithm: DigestAlgorithm(name: string(request, "algorithm")),
            digits: Int(int64(request, "digits")), period: int64(request, "period"))
        return ["uri": uri.uriString]
    case "steam":
        return [
            "code": try SteamGuardTOTP(secret: Base32.decode(string(request, "secret"))).code(
                at: int64(request, "time"))
        ]
    case "jwt":
        let jwkData = try JSONSerialization.data(withJSONObject: request["jwk"] ?? NSNull())
        let jwk = try JSONDecoder().decode(JWK.self, from: jwkData)
        guard let now = (request["now"] as? NSNumber)?.doubleValue,
            let leeway = (request["leeway"] as? NSNumber)?.doubleValue
        else {
            throw BadRequest()
        }
        do {
            let jwt = try JWT(parsing: string(request, "token"))
            try JWKSet(keys: [jwk]).verifySignature(of: jwt)
            let audience: JWTAudience
            if request["any_audience"] as? Bool == true {
                audience = .anyAudience
            } else {
                audience = .expected(try string(request, "audience"))
            }
            try jwt.claims.validate(at: now, leeway: leeway, audience: audience)
            return ["valid": true]
        } catch let error as CryptoError {
            return ["valid": false, "error": error.description]
        }
    default:
        throw BadRequest()
    }
}

let output = FileHandle.standardOutput
while let line = readLine(strippingNewline: true) {
    guard !line.isEmpty else { continue }
    var response: [String: Any]
    var id: Any = NSNull()
    do {
        guard let request = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw BadRequest()
        }
        id = request["id"] ?? NSNull()
        response = try await answer(request)
    } catch let error as CryptoError {
        response = ["error": error.description]
    } catch let error as SoftwareAuthenticatorError {
        response = ["error": error.description]
    } catch {
        response = ["error": "bad request: \(error)"]
    }
    response["id"] = id
    var data = try JSONSerialization.data(withJSONObject: response, options: [.sortedKeys])
    data.append(UInt8(ascii: "\n"))
    // `write(contentsOf:)` throws where `write(_:)` would trap (a full disk, a closed pipe).
    do { try output.write(contentsOf: data) } catch {
        FileHandle.standardError.write(Data("multiauth-crosscheck: cannot write the answers: \(error)\n".utf8))
        exit(74)
    }
}
