import Foundation
import MultiAuth

/// The JSON bodies of the Dynamic SDK API this adapter speaks (Docs/Providers/Dynamic.md,
/// "Verified against": the request and response types of the shipped SDK's interface).
///
/// Field names are the wire names; optional request fields are omitted when `nil`. Response types decode only the fields the adapter uses and
/// ignore the long optional tail of `SdkUser`; error `code`s are free strings, never an enum,
/// so a code the SDK build does not know (e.g. `email_verification_expired`) still decodes.
enum DynamicWire {
    /// `POST …/emailVerifications/create` body (`EmailVerificationCreateRequest`).
    struct EmailCreate: Encodable {
        var email: String
        var captchaToken: Secret?
    }

    /// `POST …/emailVerifications/retry` body (`EmailVerificationRetryRequest`).
    struct EmailRetry: Encodable {
        var verificationUUID: String
        var email: String
        var captchaToken: Secret?
    }

    /// The SMS identity of a verification, kept in the challenge state.
    struct SMSCreate: Codable, Hashable {
        var phoneCountryCode: String
        var phoneNumber: String
        var isoCountryCode: String
    }

    /// `POST …/smsVerifications/create` body (`SmsVerificationCreateRequest`).
    struct SMSCreateRequest: Encodable {
        var phoneCountryCode: String
        var phoneNumber: String
        var isoCountryCode: String
        var captchaToken: Secret?

        init(_ identity: SMSCreate, captchaToken: Secret?) {
            phoneCountryCode = identity.phoneCountryCode
            phoneNumber = identity.phoneNumber
            isoCountryCode = identity.isoCountryCode
            self.captchaToken = captchaToken
        }
    }

    /// `POST …/smsVerifications/retry` body (`SmsVerificationRetryRequest`).
    struct SMSRetry: Encodable {
        var verificationUUID: String
        var phoneCountryCode: String
        var phoneNumber: String
        var isoCountryCode: String
        var captchaToken: Secret?
    }

    /// `201` body of create and retry (email or SMS): only the UUID matters.
    struct VerificationCreated: Decodable {
        var verificationUUID: String
    }

    /// `POST …/signin` body (`EmailVerificationVerifyRequest` / `SmsVerificationVerifyRequest`).
    /// `captchaToken` is sent when the app gave one, `sessionPublicKey` when the configuration
    /// has one (embedded wallets); absent keys are omitted.
    struct SignIn: Encodable {
        var verificationUUID: String
        var verificationToken: Secret
        var captchaToken: Secret?
        var sessionPublicKey: String?
    }

    /// `POST …/providers/{provider}/initAuth` body (`OauthInitAuthRequest`): the OAuth `state`
    /// and the app's deep link.
    struct OAuthInit: Encodable {
        var state: String
        var redirectUrl: String
    }

    /// `GET …/providers/{provider}/loginUrl` answer (`OauthProviderLoginUrl`).
    struct OAuthLoginURL: Decodable {
        var url: String
    }

    /// `POST …/providers/{provider}/signIn` body (`OauthRequest`): the code and state of the
    /// return; `captchaToken` and `sessionPublicKey` when present (`codeVerifier` is never sent:
    /// the flow has no PKCE verifier of the app's).
    struct OAuthSignIn: Encodable {
        var code: Secret
        var state: String
        var captchaToken: Secret?
        var sessionPublicKey: String?
    }

    /// `POST …/users/mfa/auth/totp` body (`MFAAuthTotpDevicePostRequest`): the authenticator
    /// code only (`id` names a device when the user has several; `createMfaToken` asks for an
    /// action token; neither is sent).
    struct MFATotp: Encodable {
        var code: Secret
    }

    /// `VerifyResponse`: `{mfaToken?, jwt?, minifiedJwt?, expiresAt, user}`.
    struct VerifyResponse: Decodable {
        var mfaToken: Secret?
        var jwt: Secret?
        var minifiedJwt: Secret?
        /// Unix seconds.
        var expiresAt: Double?
        var user: User?
    }

    /// The used part of `SdkUser`.
    struct User: Decodable {
        var id: String
        var projectEnvironmentId: String?
        var verifiedCredentials: [VerifiedCredential]?
        var lastVerifiedCredentialId: String?
        var sessionId: String?
        var email: String?
        var phoneNumber: String?
        var firstName: String?
        var lastName: String?
        var username: String?
        var newUser: Bool?
    }

    /// The used part of `JwtVerifiedCredential`.
    struct VerifiedCredential: Decodable {
        var id: String
        var format: String
        var email: String?
        var phoneNumber: String?
        var phoneCountryCode: String?
        var isoCountryCode: String?
        var address: String?
        var chain: String?
        var oauthProvider: String?
    }

    /// Every error body: `{error: string}` (400, 401, 429, 500), `{error, code?, payload?}`
    /// (422), `{error: {code, message}, payload}` (403).
    struct ErrorBody: Decodable {
        var code: String?
        var message: String?

        private enum Keys: String, CodingKey { case error, code }
        private enum Nested: String, CodingKey { case code, message }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            code = try? container.decodeIfPresent(String.self, forKey: .code)
            if let text = try? container.decodeIfPresent(String.self, forKey: .error) {
                message = text
            } else if let nested = try? container.nestedContainer(keyedBy: Nested.self, forKey: .error) {
                message = try? nested.decodeIfPresent(String.self, forKey: .message)
                if code == nil { code = try? nested.decodeIfPresent(String.self, forKey: .code) }
            }
        }
    }
}
