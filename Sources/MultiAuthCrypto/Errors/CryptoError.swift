/// The error every throwing API of `MultiAuthCrypto` raises.
///
/// The core module (`MultiAuth`) maps these to its own `AuthError` codes. A `CryptoError`
/// never carries a secret: associated values are parameter or claim *names* and byte or
/// character *counts*, never the secret, code, key or token itself, and ``description``
/// follows the same rule.
public enum CryptoError: Error, Sendable, Equatable, Hashable, CustomStringConvertible {
    // MARK: Encodings

    /// A base64 or base64url string has a character outside its alphabet, or a length whose
    /// remainder modulo 4 is 1 (RFC 4648 §4, §5).
    case invalidBase64
    /// A base32 string has a character outside `A`–`Z`, `2`–`7` (RFC 4648 §6).
    case invalidCharacter
    /// A base32 string, key, signature or code has a length no valid value can have.
    case invalidLength
    /// A `=` padding character appears somewhere other than at the end (RFC 4648 §6).
    case invalidPadding
    /// A percent escape is not `%` followed by two hex digits, or decodes to invalid UTF-8
    /// (RFC 3986 §2.1).
    case invalidPercentEscape

    // MARK: One-time passwords

    /// An otpauth `period`, or a TOTP time step, is not a whole number of seconds above 0.
    case invalidPeriod
    /// A digit count outside 6...8 (RFC 4226 §5.3 allows 6 to 8 here).
    case invalidDigits
    /// An otpauth URI with `encoder=steam` gives a `digits` other than 5: Steam Guard codes
    /// have 5 characters, so `digits` must be 5 or absent (Docs/Standards.md, "Steam Guard
    /// codes (`encoder=steam`)").
    case invalidSteamDigits
    /// An HOTP counter is missing, negative or not a number (Key URI Format, `counter`).
    case invalidCounter
    /// The time is before the TOTP start time `T0` (RFC 6238 §4.2).
    case invalidTime
    /// The time is not a finite number of seconds within the range of `Int64` (NaN, an
    /// infinity, or a value such as `1e30`), so no time step can be computed.
    case timeOutOfRange
    /// The shared secret has no bytes (an empty or whitespace-only base32 secret).
    case emptySecret
    /// A submitted code does not have exactly `digits` ASCII digits; it was not compared.
    case invalidCodeFormat
    /// A well-formed code matched no time step (or counter) in the window.
    case invalidCode
    /// The code matched only time steps at or before the last accepted one (RFC 6238 §5.2).
    case codeAlreadyUsed
    /// An `otpauth://` URI is malformed: wrong scheme, type, label or query syntax.
    case invalidURI
    /// A required parameter or field is missing; the associated value is its name.
    case missingParameter(String)
    /// A parameter or field has a value of the wrong kind; the associated value is its name.
    case invalidParameter(String)

    // MARK: Algorithms and keys

    /// The algorithm (hash, OTP `algorithm`, JWS `alg`, JWK `kty`/`crv`) is not supported or
    /// not allowed here, including `alg: none` and every HMAC `alg` for public-key checks.
    case unsupportedAlgorithm
    /// A key could not be imported, generated or used (bad encoding, wrong type, too short).
    case invalidKey
    /// No key in the JWKS matches the token's `kid`, `kty` and `alg` (RFC 7517 §4.5).
    case keyNotFound
    /// The only keys that match are RSA keys below the minimum size (RFC 7518 §3.3 requires
    /// 2048 bits); the values are the key's modulus size and the minimum, in bits.
    case keyTooSmall(bits: Int, required: Int)
    /// The signature did not verify.
    case signatureInvalid
    /// A JWKS document is not JSON of the form `{"keys": [...]}` (RFC 7517 §5).
    case malformedKeySet
    /// libcrypto (or the platform crypto library) failed; the value names the operation.
    case libraryFailure(String)

    // MARK: JWT

    /// A JWT is not three base64url segments of JSON objects (RFC 7519 §7.2), or its header
    /// or claims repeat a member name (RFC 7515 §4, RFC 7519 §4: such tokens are rejected).
    case malformedToken
    /// Hostile-input guard: a JWT, JSON document or JWKS is past one of its ``JSONLimits``
    /// (`"token length"`, `"document size"`, `"nesting depth"` or `"value count"`); the
    /// values are the limit's name and its maximum. Nothing past the limit was parsed.
    /// Docs/Security.md lists the limits.
    case limitExceeded(String, maximum: Int)
    /// A JOSE header parameter has the wrong JSON type, e.g. a `kid` that is a number, `null`,
    /// an array or an object (RFC 7515 §4.1.4 requires a string); the value is its name.
    case invalidHeader(String)
    /// A registered claim has the wrong JSON type, e.g. a string `exp`; the value is its name.
    case invalidClaim(String)
    /// `now >= exp + leeway` (RFC 7519 §4.1.4).
    case expired
    /// `now < nbf - leeway` (RFC 7519 §4.1.5).
    case notYetValid
    /// The `iss` claim differs from the expected issuer (RFC 7519 §4.1.1).
    case issuerMismatch
    /// The `aud` claim does not contain the expected audience (RFC 7519 §4.1.3).
    case audienceMismatch

    /// A short, secret-free explanation for logs and diagnostics.
    public var description: String {
        switch self {
        case .invalidBase64: "invalid base64: bad character or impossible length"
        case .invalidCharacter: "invalid base32: character outside A-Z and 2-7"
        case .invalidLength: "invalid length"
        case .invalidPadding: "invalid padding: '=' before the end"
        case .invalidPercentEscape: "invalid percent escape"
        case .invalidPeriod: "invalid period: must be a whole number of seconds above 0"
        case .invalidDigits: "invalid digits: must be 6, 7 or 8"
        case .invalidSteamDigits:
            "invalid digits for encoder=steam: Steam Guard codes have 5 characters; write digits=5 or leave digits out"
        case .invalidCounter: "invalid HOTP counter"
        case .invalidTime: "time is before the TOTP start time T0"
        case .timeOutOfRange: "time is not representable: not finite or outside the Int64 range of seconds"
        case .emptySecret: "the secret is empty"
        case .invalidCodeFormat: "code has the wrong length or a non-digit character"
        case .invalidCode: "code does not match"
        case .codeAlreadyUsed: "code was already used"
        case .invalidURI: "invalid otpauth URI"
        case .missingParameter(let name): "missing parameter '\(name)'"
        case .invalidParameter(let name): "invalid parameter '\(name)'"
        case .unsupportedAlgorithm: "unsupported or disallowed algorithm"
        case .invalidKey: "invalid key"
        case .keyNotFound: "no matching key in the key set"
        case .keyTooSmall(let bits, let required): "key too small: \(bits) bits, \(required) required"
        case .signatureInvalid: "signature does not verify"
        case .malformedKeySet: "malformed JWKS: expected {\"keys\": [...]}"
        case .libraryFailure(let operation): "crypto library failure in \(operation)"
        case .malformedToken:
            "malformed JWT: expected three base64url segments of JSON objects with unique member names"
        case .limitExceeded(let name, let maximum): "input refused: \(name) exceeds the limit of \(maximum)"
        case .invalidHeader(let name): "invalid JOSE header parameter '\(name)'"
        case .invalidClaim(let name): "invalid claim '\(name)'"
        case .expired: "token expired"
        case .notYetValid: "token not yet valid"
        case .issuerMismatch: "unexpected issuer"
        case .audienceMismatch: "unexpected audience"
        }
    }
}
