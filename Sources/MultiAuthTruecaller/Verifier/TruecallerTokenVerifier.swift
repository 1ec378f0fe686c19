import Foundation
import MultiAuth
import MultiAuthCrypto

/// Server-side check of an OTP-flow access token (Truecaller's server-side validation docs;
/// Docs/Providers/Truecaller.md): the **only** proof that the OTP flow verified a number. Run
/// it on your server, never trust the app's word.
///
/// `GET {baseURL}/v1/otp/installation/phoneNumberDetail/{accessToken}` with header `appKey`
/// (SDK 2.x / iOS), or `GET {baseURL}/v1/otp/client/installation/phoneNumberDetail/{accessToken}`
/// with header `clientId` (OAuth SDK 3.x). Answers: 200 `{phoneNumber, countryCode}`;
/// `{code: 404}` invalid partner credentials; `{code: 1404}` invalid access token;
/// `{code: 500}` server error.
///
/// Concurrency: a `Sendable` value without state; call it from any task.
public struct TruecallerTokenVerifier: Sendable {
    /// The partner credential the check is made with; the key or id is a ``/MultiAuth/Secret``,
    /// so every rendering shows `appKey(<redacted>)` or `clientID(<redacted>)`.
    public enum Credential: Sendable, Hashable {
        /// The app key (SDK 2.x / iOS), sent as the `appKey` header.
        case appKey(Secret)
        /// The OAuth client id (SDK 3.x), sent as the `clientId` header.
        case clientID(Secret)
    }

    /// The production base, `https://sdk-otp-verification-noneu.truecaller.com`.
    public static let productionBaseURL = URL(string: "https://sdk-otp-verification-noneu.truecaller.com")!
    /// The sandbox twin, `https://sdk-otp-verification-noneu.truecaller.test` (served by
    /// `TruecallerBackend.install(in:)`).
    public static let sandboxBaseURL = URL(string: "https://sdk-otp-verification-noneu.truecaller.test")!

    /// The credential.
    public let credential: Credential
    /// The base URL of the check endpoint.
    public let baseURL: URL
    /// The transport.
    public let transport: any HTTPTransport

    /// Creates a verifier.
    /// - Parameters:
    ///   - credential: The app key or client id.
    ///   - baseURL: The check host; production by default, the sandbox host in tests.
    ///   - transport: The HTTP transport.
    public init(credential: Credential, baseURL: URL = productionBaseURL, transport: any HTTPTransport) {
        self.credential = credential
        self.baseURL = baseURL
        self.transport = transport
    }

    /// Checks `accessToken` and returns the number it verified.
    /// - Parameter accessToken: The token from the app's session (`credentials.accessToken`).
    /// - Returns: The verified number and country.
    /// - Throws: `AuthError`: `.invalidInput` reason `.invalidToken` for a blank token or one
    ///   with characters outside `A–Z a–z 0–9 - _ .` (no network call); `.configuration`
    ///   (`"404"`, invalid partner credentials); `.unauthorized` (`"1404"`, invalid token);
    ///   `.providerUnavailable` (`"500"` or any 5xx); `.malformedResponse`; `.network`; or
    ///   `CancellationError`.
    public func verify(accessToken: String) async throws -> TruecallerPhoneNumberDetail {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.")
        guard !accessToken.isEmpty, accessToken.allSatisfy({ allowed.contains($0) }) else {
            throw AuthError(
                .invalidInput, "the access token is blank or malformed", provider: .truecaller, reason: .invalidToken)
        }
        let path: String
        var headers = ["Accept": "application/json"]
        switch credential {
        case .appKey(let key):
            path = "v1/otp/installation/phoneNumberDetail"
            headers["appKey"] = key.reveal()
        case .clientID(let id):
            path = "v1/otp/client/installation/phoneNumberDetail"
            headers["clientId"] = id.reveal()
        }
        // The protocol puts the token in the path: mark it secret so no rendering or transport
        // error shows it (Docs/Security.md, "Redaction").
        let request = HTTPRequest(
            method: .get, base: baseURL, path: [.plain(path), .secret(accessToken)], headers: headers)
        let object = try await TruecallerWire.send(request, transport: transport)
        let number = object["phoneNumber"]?.int64Value.map(String.init) ?? object["phoneNumber"]?.stringValue
        guard let number, !number.isEmpty, number.allSatisfy(\.isASCIIDigit),
            let country = object["countryCode"]?.stringValue, !country.isEmpty
        else {
            throw AuthError(
                .malformedResponse, "phoneNumberDetail lacks phoneNumber or countryCode", provider: .truecaller)
        }
        return TruecallerPhoneNumberDetail(phoneNumber: number, countryCode: country.uppercased())
    }
}
