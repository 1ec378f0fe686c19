import Foundation
import MultiAuth

/// A Truecaller error code: the SDK's `TCTrueSDKErrorCode` values 1–20 (Docs/Providers/Truecaller.md) and
/// the codes the backend puts in `{code, message}` error bodies (Docs/Providers/Truecaller.md).
///
/// Every code maps to one ``/MultiAuth/AuthError/Code`` through ``authErrorCode``; the raw
/// number is kept as the error's `providerCode` (e.g. `"15"`), so nothing is lost. A code this
/// type does not know maps to `.generic` here; the adapter maps a server answer with such a
/// code by its HTTP status and call (a refused verify is `.invalidCode`;
/// Docs/Providers/Truecaller.md, "Error table").
public struct TruecallerErrorCode: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The numeric code as the SDK or the backend sends it.
    public let rawValue: Int
    /// Creates a code from its number.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// Creates a code from its number.
    public init(_ rawValue: Int) { self.rawValue = rawValue }

    // MARK: SDK codes 1–20 (TrueSDK `TCError.h`)

    /// 1 `AppKeyMissing`: no app key set → `.configuration`.
    public static let appKeyMissing = Self(1)
    /// 2 `AppLinkMissing`: no app link set → `.configuration`.
    public static let appLinkMissing = Self(2)
    /// 3 `UserCancelled`: the user cancelled in Truecaller → `.cancelledByProvider`.
    public static let userCancelled = Self(3)
    /// 4 `UserNotSignedIn`: the user is not signed in to Truecaller → `.unsupported` (use the OTP flow).
    public static let userNotSignedIn = Self(4)
    /// 5 `SDKTooOld`: the SDK is incompatible with the Truecaller app → `.configuration`.
    public static let sdkTooOld = Self(5)
    /// 6 `TruecallerTooOld`: the Truecaller app is too old → `.unsupported`.
    public static let truecallerTooOld = Self(6)
    /// 7 `OSNotSupported`: iOS older than 10 → `.unsupported`.
    public static let osNotSupported = Self(7)
    /// 8 `TruecallerNotInstalled`: `truesdk://` cannot be opened → `.unsupported` (use the OTP flow).
    public static let truecallerNotInstalled = Self(8)
    /// 9 `Network`: no connectivity → `.network`.
    public static let network = Self(9)
    /// 10 `Internal`: backend or other error (the SDK's OTP flow wraps every non-network
    /// failure here) → `.providerUnavailable`.
    public static let `internal` = Self(10)
    /// 11 `UnauthorizedUser`: the user is not authorised → `.unauthorized`.
    public static let unauthorizedUser = Self(11)
    /// 12 `UnauthorizedDeveloper`: the partner credentials are not verified → `.configuration`.
    public static let unauthorizedDeveloper = Self(12)
    /// 13 `UserProfileContentNotValid`: the response could not be parsed → `.malformedResponse`.
    public static let userProfileContentNotValid = Self(13)
    /// 14 `BadRequest`: the provider refused the request's input → `.invalidInput`.
    public static let badRequest = Self(14)
    /// 15 `VerificationFailed`: the profile signature did not verify (also a wrong
    /// `signatureAlgorithm` or no key that verifies) → `.signatureInvalid`.
    public static let verificationFailed = Self(15)
    /// 16 `RequestNonceMismatch`: the response's nonce is not the request's → `.signatureInvalid`.
    public static let requestNonceMismatch = Self(16)
    /// 17 `ViewDelegateNil`: verification requested without a view delegate → `.configuration`.
    public static let viewDelegateNil = Self(17)
    /// 18 `InvalidName`: the name rules failed → `.invalidInput` with reason `.invalidName`.
    public static let invalidName = Self(18)
    /// 19 `UniversalLinkFailed`: the universal link (app link) failed → `.configuration`.
    public static let universalLinkFailed = Self(19)
    /// 20 `UrlSchemeMissing`: `truecallersdk-{appKey}` is not in Info.plist → `.configuration`.
    public static let urlSchemeMissing = Self(20)

    // MARK: Backend codes (server-side validation docs) and the sandbox's own codes

    /// 404 "Invalid partner credentials." from the token check (server-side validation docs) → `.configuration`.
    public static let invalidPartnerCredentials = Self(404)
    /// 1404 "Invalid access token." from the token check (server-side validation docs) → `.unauthorized`.
    public static let invalidAccessToken = Self(1404)
    /// 500 server error (server-side validation docs) → `.providerUnavailable`.
    public static let serverError = Self(500)
    /// 4001 wrong OTP, the **sandbox's** code (invented: the real one is not published); the
    /// body may carry `attemptsRemaining` → `.invalidCode`. A real refused verify reaches
    /// `.invalidCode` by its status, whatever its code (Docs/Providers/Truecaller.md, "Error
    /// table").
    public static let invalidOTP = Self(4001)
    /// 4002 the verification token's `tokenTtl` passed → `.expired`: the **sandbox's** code
    /// (invented). The challenge's own expiry ends a stale flow locally first.
    public static let verificationTokenExpired = Self(4002)
    /// 4290 too many wrong codes; the number is locked for `retryAfter` seconds →
    /// `.rateLimited`: the **sandbox's** code (invented), answered with HTTP 429.
    public static let tooManyAttempts = Self(4290)
    /// 4291 too many verification requests for the number → `.rateLimited`: the **sandbox's**
    /// code (invented), answered with HTTP 429.
    public static let tooManyRequests = Self(4291)

    /// The SDK's name for codes 1–20 (e.g. `"VerificationFailed"`), a short name for the
    /// backend codes, `nil` for unknown codes.
    public var name: String? {
        switch rawValue {
        case 1: "AppKeyMissing"
        case 2: "AppLinkMissing"
        case 3: "UserCancelled"
        case 4: "UserNotSignedIn"
        case 5: "SDKTooOld"
        case 6: "TruecallerTooOld"
        case 7: "OSNotSupported"
        case 8: "TruecallerNotInstalled"
        case 9: "Network"
        case 10: "Internal"
        case 11: "UnauthorizedUser"
        case 12: "UnauthorizedDeveloper"
        case 13: "UserProfileContentNotValid"
        case 14: "BadRequest"
        case 15: "VerificationFailed"
        case 16: "RequestNonceMismatch"
        case 17: "ViewDelegateNil"
        case 18: "InvalidName"
        case 19: "UniversalLinkFailed"
        case 20: "UrlSchemeMissing"
        case 404: "InvalidPartnerCredentials"
        case 1404: "InvalidAccessToken"
        case 500: "ServerError"
        case 4001: "InvalidOTP"
        case 4002: "VerificationTokenExpired"
        case 4290: "TooManyAttempts"
        case 4291: "TooManyRequests"
        default: nil
        }
    }

    /// The normalized code this Truecaller code maps to (table in Docs/Providers/Truecaller.md);
    /// `.generic` for an unknown code.
    public var authErrorCode: AuthError.Code {
        switch rawValue {
        case 1, 2, 5, 12, 17, 19, 20, 404: .configuration
        case 3: .cancelledByProvider
        case 4, 6, 7, 8: .unsupported
        case 9: .network
        case 10, 500: .providerUnavailable
        case 11, 1404: .unauthorized
        case 13: .malformedResponse
        case 14, 18: .invalidInput
        case 15, 16: .signatureInvalid
        case 4001: .invalidCode
        case 4002: .expired
        case 4290, 4291: .rateLimited
        default: .generic
        }
    }

    /// The `invalidInput` reason for this code: `.invalidName` for 18, otherwise `nil`.
    public var reason: AuthError.Reason? { rawValue == 18 ? .invalidName : nil }

    /// The `AuthError` for this code, with `providerCode` set to the decimal number.
    /// - Parameters:
    ///   - message: A secret-free message; the code's name is used when empty.
    ///   - retryAfter: The delay before a retry, for rate limits.
    ///   - attemptsRemaining: Attempts left, for `invalidCode`.
    /// - Returns: An error whose `provider` is `AuthProviderID.truecaller`.
    public func authError(_ message: String = "", retryAfter: Duration? = nil, attemptsRemaining: Int? = nil)
        -> AuthError
    {
        AuthError(
            authErrorCode, message.isEmpty ? (name ?? "Truecaller error \(rawValue)") : message,
            provider: .truecaller, providerCode: String(rawValue), reason: reason, retryAfter: retryAfter,
            attemptsRemaining: attemptsRemaining)
    }

    /// `<number> <name>`, e.g. `15 VerificationFailed`.
    public var description: String { name.map { "\(rawValue) \($0)" } ?? String(rawValue) }
}
