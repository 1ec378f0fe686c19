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
        let secretToken: Secret
        let verificationToken: Secret
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
    static func headers(_ configuration: TruecallerConfiguration, accessToken: Secret? = nil) -> [String: String] {
        var headers = [
            "appKey": configuration.appKey.reveal(), "appLink": configuration.appLink.absoluteString,
            "Accept": "application/json", "sdkVersion": sdkVersion, "sdkVariant": "native",
        ]
        if let accessToken { headers["Authorization"] = "Bearer " + accessToken.reveal() }
        return headers
    }

    /// Sends `request` and returns its JSON object, or throws the mapped error.
    ///
    /// - Parameter call: Which call this is (a refused `verify` is a refused code).
    /// - Throws: `AuthError`: the error ``failure(_:object:call:)`` finds; `.malformedResponse`
    ///   for a success whose body is not a JSON object; `.network` or `CancellationError` from
    ///   the transport.
    static func send(_ request: HTTPRequest, call: Call = .other, transport: any HTTPTransport) async throws
        -> [String: JSONValue]
    {
        let response = try await transport.send(request)
        let object = (try? JSONDecoder().decode(JSONValue.self, from: response.body))?.objectValue
        if let error = failure(response, object: object, call: call) { throw error }
        guard let object else {
            throw AuthError(
                .malformedResponse, "HTTP \(response.status) body is not a JSON object", provider: .truecaller)
        }
        return object
    }

    /// Sends a request whose answer TrueSDK never reads (`POST /v1/profile`, the name update):
    /// any 2xx is a success whatever its body (`204`, empty, `{}`, `true`, even a `code`);
    /// anything else is mapped like ``send(_:call:transport:)``.
    /// - Throws: `AuthError` for a non-2xx answer; `.network` or `CancellationError`.
    static func sendIgnoringBody(_ request: HTTPRequest, transport: any HTTPTransport) async throws {
        let response = try await transport.send(request)
        if response.isSuccess { return }
        let object = (try? JSONDecoder().decode(JSONValue.self, from: response.body))?.objectValue
        throw failure(response, object: object)
            ?? AuthError(
                .generic, "HTTP \(response.status)", provider: .truecaller, providerCode: String(response.status))
    }
}
