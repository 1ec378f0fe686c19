import Foundation
import MultiAuth

/// The JSON bodies of the Portal Client Auth API (PortalSwift `PortalAuthWireTypes.swift`;
/// Docs/Providers/Portal.md). Every success body is an envelope `{"data": …}`; a missing or
/// null `data` is a malformed response.
enum PortalWire {
    /// `{"data": …}`.
    struct Envelope<Payload: Decodable>: Decodable {
        let data: Payload?
    }

    /// `POST /magic-links` body: `fromEmail` and `templateId` are required (the backend
    /// rejects a link without them); `isAccountAbstracted` is omitted when nil.
    struct MagicLinkRequest: Encodable {
        let email: String
        let redirectUrl: String
        let fromEmail: String
        let templateId: String
        let isAccountAbstracted: Bool?
    }

    /// `POST /magic-links/validations` and `POST /oauth/tokens` body.
    struct GrantRequest: Encodable {
        let token: Secret
    }

    /// `GET /oauth/urls` data: authorize URLs sharing one single-use `state`.
    struct OAuthURLs: Decodable {
        let google: String?
        let apple: String?
    }

    /// A grant result: a completed login (`clientSessionToken` + `endUserId`) or a TOTP step
    /// (`userJwt`, `totpLink` on first enrollment).
    struct GrantResult: Decodable {
        let endUserId: String?
        let clientId: String?
        let clientSessionToken: Secret?
        let isAccountAbstracted: Bool?
        let userJwt: Secret?
        let totpLink: String?
    }

    /// `POST /totps/validations` body: the code, verbatim.
    struct TOTPRequest: Encodable {
        let code: Secret
    }

    /// `POST /totps/validations` data (no `endUserId`: it comes from the `userJwt`).
    struct TOTPResult: Decodable {
        let clientId: String?
        let clientSessionToken: Secret?
        let isAccountAbstracted: Bool?
    }

    /// An error body `{"error": "…"}`.
    struct ErrorBody: Decodable {
        let error: String?
    }
}
