import Foundation
import MultiAuth
import MultiAuthCrypto

/// The claims the client reads from a `userJwt` **without verifying it** (PortalSwift
/// `UserJwt`; Docs/Providers/Portal.md): `endUserId`, which labels the session (the CST is the
/// credential), and the token's lifetime, which bounds the TOTP step.
struct PortalUserJWT: Sendable {
    /// The end user the TOTP step belongs to; a non-blank string.
    let endUserID: String
    /// `exp − iat` in seconds when both claims are present and `exp` is later; else `nil`.
    let lifetime: TimeInterval?

    /// Reads `endUserId` locally, before any network call, so a bad token never costs the user
    /// a live TOTP code.
    /// - Throws: `AuthError` `.invalidInput` with reason `.invalidToken` and one of the SDK's
    ///   four fixed details (`invalidUserJwt`): malformed (blank, not three segments), not
    ///   base64url, unreadable claims, missing `endUserId`. The token is never in the message.
    init(_ token: String, provider: AuthProviderID) throws {
        func invalid(_ detail: String) -> AuthError {
            AuthError(
                .invalidInput, "invalid userJwt: \(detail); start the sign-in again", provider: provider,
                providerCode: "invalidUserJwt", reason: .invalidToken)
        }
        let trimmed = token.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed == token else { throw invalid("malformed") }
        let jwt: JWT
        do {
            jwt = try JWT(parsing: token)
        } catch CryptoError.invalidBase64 {
            throw invalid("not base64url")
        } catch CryptoError.malformedToken {
            // Three segments were required; tell "not three parts" from "claims not a JSON object".
            let parts = token.split(separator: ".", omittingEmptySubsequences: false)
            throw invalid(parts.count == 3 && parts.allSatisfy { !$0.isEmpty } ? "unreadable claims" : "malformed")
        } catch {
            throw invalid("unreadable claims")
        }
        guard let value = jwt.claims["endUserId"]?.stringValue,
            !value.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
        else { throw invalid("missing endUserId") }
        endUserID = value
        if let exp = jwt.claims.expiresAt?.secondsSince1970, let iat = jwt.claims.issuedAt?.secondsSince1970, exp > iat
        {
            // At most 10 years (Docs/Security.md, "Numbers from the wire"); else unknown.
            lifetime = try? WireNumber.lifetime(seconds: exp - iat, field: "exp - iat", provider: provider)
        } else {
            lifetime = nil
        }
    }
}
