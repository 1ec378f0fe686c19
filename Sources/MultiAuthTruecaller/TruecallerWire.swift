import Foundation
import MultiAuth
import MultiAuthCrypto

/// The wire shapes of the OTP flow (providers.md §3.1) and the response handling shared by
/// every call: an answer is an error **iff** its JSON has a `code` key, whatever the HTTP
/// status (the SDK ignores the status).
enum TruecallerWire {
    /// `POST /v1/otp/installation/create` body.
    struct CreateRequest: Encodable {
        let countryCodeName: String
        let phoneNumber: String
        let clientId: Int
        let phonePermission: Bool
        let os: String
        let version: String
        let sequence: Int
        let deviceId: String
        let simSerial: [String]
    }

    /// `POST /v1/otp/installation/verify` body.
    struct VerifyRequest: Encodable {
        let countryCodeName: String
        let phoneNumber: String
        let secretToken: String
        let verificationToken: String
    }

    /// `POST /v1/profile` body.
    struct NameRequest: Encodable {
        let firstName: String
        let lastName: String
    }

    /// The SDK version the adapter announces (`sdkVersion` header).
    static let sdkVersion = "0.1.8"

    /// The headers of every OTP-flow call (providers.md §3.1, row 1).
    static func headers(_ configuration: TruecallerConfiguration, accessToken: String? = nil) -> [String: String] {
        var headers = [
            "appKey": configuration.appKey, "appLink": configuration.appLink.absoluteString,
            "Accept": "application/json", "sdkVersion": sdkVersion, "sdkVariant": "native",
        ]
        if let accessToken { headers["Authorization"] = "Bearer \(accessToken)" }
        return headers
    }

    /// Sends `request` and returns its JSON object, or throws the mapped error.
    ///
    /// - Throws: `AuthError`: the mapped ``TruecallerErrorCode`` when the body has a numeric
    ///   `code` key (with `retryAfter` from the `Retry-After` header or a `retryAfter` field in
    ///   seconds, and `attemptsRemaining` when present); for a code that is unknown or not a
    ///   number, `.rateLimited` on a 429, `.providerUnavailable` on a 5xx, else `.generic`
    ///   (raw code kept); without a code, `.rateLimited` for a 429 and `.providerUnavailable`
    ///   for a 5xx; `.malformedResponse` for a
    ///   body that is not a JSON object; `.network` or `CancellationError` from the transport.
    static func send(_ request: HTTPRequest, transport: any HTTPTransport) async throws -> [String: JSONValue] {
        let response = try await transport.send(request)
        let object = (try? JSONDecoder().decode(JSONValue.self, from: response.body))?.objectValue
        if let object, let codeValue = object["code"] {
            let retryAfter = response.retryAfter ?? object["retryAfter"]?.int64Value.map { Duration.seconds($0) }
            let number = codeValue.int64Value.map(Int.init) ?? codeValue.stringValue.flatMap { Int($0) }
            if let number {
                let code = TruecallerErrorCode(number)
                // A code this adapter does not know still says what a 5xx or 429 says.
                if code.name != nil || response.status < 429 || (430..<500).contains(response.status) {
                    let remaining = object["attemptsRemaining"]?.int64Value.map(Int.init)
                    throw code.authError(retryAfter: retryAfter, attemptsRemaining: remaining)
                }
            }
            let raw = number.map(String.init) ?? codeValue.stringValue ?? String(response.status)
            if response.status == 429 {
                throw AuthError(.rateLimited, "HTTP 429", provider: .truecaller, providerCode: raw, retryAfter: retryAfter)
            }
            if response.status >= 500 {
                throw AuthError(.providerUnavailable, "HTTP \(response.status)", provider: .truecaller, providerCode: raw)
            }
            throw AuthError(.generic, "Truecaller error with a non-numeric code", provider: .truecaller, providerCode: raw)
        }
        if response.status == 429 {
            throw AuthError(.rateLimited, "HTTP 429", provider: .truecaller, providerCode: "429", retryAfter: response.retryAfter)
        }
        if response.status >= 500 {
            throw AuthError(.providerUnavailable, "HTTP \(response.status)", provider: .truecaller, providerCode: String(response.status))
        }
        guard let object else {
            throw AuthError(.malformedResponse, "HTTP \(response.status) body is not a JSON object", provider: .truecaller)
        }
        guard response.isSuccess else {
            throw AuthError(.generic, "HTTP \(response.status) without an error code", provider: .truecaller, providerCode: String(response.status))
        }
        return object
    }
}
