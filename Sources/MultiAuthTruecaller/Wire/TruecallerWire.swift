import Foundation
import MultiAuth
import MultiAuthCrypto

/// The wire shapes of the OTP flow (TrueSDK 0.1.8's request classes; Docs/Providers/Truecaller.md)
/// and the response handling shared by every call: an answer is an error **iff** its JSON has
/// a `code` key, whatever the HTTP status (the SDK ignores the status).
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

    /// The headers of every OTP-flow call (`TCBaseRequest.m`: `appKey`, `appLink`, `Accept`,
    /// `sdkVersion`, `sdkVariant`; `Content-Type` is added with a JSON body).
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
    /// - Throws: `AuthError`: the error ``failure(_:object:)`` finds; `.malformedResponse` for
    ///   a success whose body is not a JSON object; `.network` or `CancellationError` from the
    ///   transport.
    static func send(_ request: HTTPRequest, transport: any HTTPTransport) async throws -> [String: JSONValue] {
        let response = try await transport.send(request)
        let object = (try? JSONDecoder().decode(JSONValue.self, from: response.body))?.objectValue
        if let error = failure(response, object: object) { throw error }
        guard let object else {
            throw AuthError(.malformedResponse, "HTTP \(response.status) body is not a JSON object", provider: .truecaller)
        }
        return object
    }

    /// Sends a request whose answer TrueSDK never reads (`POST /v1/profile`, the name update):
    /// any 2xx is a success whatever its body (`204`, empty, `{}`, `true`, even a `code`);
    /// anything else is mapped like ``send(_:transport:)``.
    /// - Throws: `AuthError` for a non-2xx answer; `.network` or `CancellationError`.
    static func sendIgnoringBody(_ request: HTTPRequest, transport: any HTTPTransport) async throws {
        let response = try await transport.send(request)
        if response.isSuccess { return }
        let object = (try? JSONDecoder().decode(JSONValue.self, from: response.body))?.objectValue
        throw failure(response, object: object)
            ?? AuthError(.generic, "HTTP \(response.status)", provider: .truecaller, providerCode: String(response.status))
    }

    /// The error an answer carries, or `nil` for a success. An answer is an error **iff** its
    /// JSON has a `code` key, whatever the HTTP status (as TrueSDK decides); a non-2xx answer
    /// without one is an error by its status.
    ///
    /// A `message` Truecaller documents (``documentedMessages``) maps by its meaning, whatever
    /// the code (the only sourced server fact); else a known numeric code maps through
    /// ``TruecallerErrorCode`` (with `retryAfter` from the `Retry-After` header or a
    /// `retryAfter` field in seconds, and `attemptsRemaining` when present); else by the status
    /// (`429` → `.rateLimited`, `5xx` → `.providerUnavailable`), else `.generic`. The raw code
    /// is always kept. Without a code: `429`
    /// → `.rateLimited`, `5xx` → `.providerUnavailable`, other non-2xx → `.generic`.
    static func failure(_ response: HTTPResponse, object: [String: JSONValue]?) -> AuthError? {
        let retryAfter = response.retryAfter ?? object?["retryAfter"]?.int64Value.map { Duration.seconds($0) }
        if let object, let codeValue = object["code"] {
            let number = codeValue.int64Value.map(Int.init) ?? codeValue.stringValue.flatMap { Int($0) }
            let raw = number.map(String.init) ?? codeValue.stringValue ?? String(response.status)
            // A documented server message is the only sourced meaning: it wins over the number.
            if let message = object["message"]?.stringValue, let documented = documented(message) {
                return AuthError(
                    documented.code, documented.meaning, provider: .truecaller, providerCode: raw,
                    retryAfter: documented.code == .rateLimited ? retryAfter : nil)
            }
            if let number {
                let code = TruecallerErrorCode(number)
                if code.name != nil {
                    let remaining = object["attemptsRemaining"]?.int64Value.map(Int.init)
                    return code.authError(retryAfter: retryAfter, attemptsRemaining: remaining)
                }
            }
            if response.status == 429 {
                return AuthError(.rateLimited, "HTTP 429", provider: .truecaller, providerCode: raw, retryAfter: retryAfter)
            }
            if response.status >= 500 {
                return AuthError(.providerUnavailable, "HTTP \(response.status)", provider: .truecaller, providerCode: raw)
            }
            return AuthError(
                .generic, "Truecaller error \(raw) is not one this adapter knows", provider: .truecaller, providerCode: raw)
        }
        if response.isSuccess { return nil }
        let status = String(response.status)
        if response.status == 429 {
            return AuthError(.rateLimited, "HTTP 429", provider: .truecaller, providerCode: status, retryAfter: retryAfter)
        }
        if response.status >= 500 {
            return AuthError(.providerUnavailable, "HTTP \(response.status)", provider: .truecaller, providerCode: status)
        }
        return AuthError(.generic, "HTTP \(response.status) without an error code", provider: .truecaller, providerCode: status)
    }

    /// Server messages Truecaller documents for the non-Truecaller verification flow (the
    /// `TrueException` table of its Android SDK 2.8 / OAuth 3.x docs; Docs/Providers/Truecaller.md),
    /// compared case-insensitively without surrounding punctuation, with the code each maps to.
    static let documentedMessages: [(message: String, code: AuthError.Code, meaning: String)] = [
        ("phone number limit reached", .rateLimited, "this number reached its verification limit for 24 hours"),
        ("request id limit reached", .rateLimited, "this device reached its verification limit for 24 hours"),
        ("invalid partner credentials", .configuration, "the app key is not accepted: check the partner key"),
        ("something went wrong: failed to create installation", .providerUnavailable, "Truecaller could not start the verification"),
        ("invalid phone number", .invalidInput, "Truecaller rejected the phone number"),
    ]

    /// The documented meaning of a server message, or `nil`.
    static func documented(_ message: String) -> (code: AuthError.Code, meaning: String)? {
        let key = message.trimmingCharacters(in: .whitespacesAndNewlines.union(.punctuationCharacters)).lowercased()
        return documentedMessages.first { $0.message == key }.map { ($0.code, $0.meaning) }
    }
}
