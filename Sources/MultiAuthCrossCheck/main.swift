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
// Any failure answers {"error": description}. Exit status 0 at end of input.
import Foundation
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

func answer(_ request: [String: Any]) throws -> [String: Any] {
    switch try string(request, "op") {
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
        response = try answer(request)
    } catch let error as CryptoError {
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
