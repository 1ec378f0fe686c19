import Foundation

/// The claims set of a JWT (RFC 7519 §4) with typed registered claims and access to any
/// other claim by name.
///
/// Creating a `JWTClaims` checks the registered claims' JSON types: `exp`, `nbf`, `iat` must
/// be numbers (NumericDate, fractions allowed; a string such as `"1700000000"` is rejected),
/// `iss`, `sub`, `jti` strings, and `aud` a string or an array of strings.
///
/// Claim values may be personal data or credentials: every rendering (Swift's default ones)
/// shows the claim names with their JSON kinds (``JSONValue`` renders its kind only) and the
/// time claims; `iss`, `sub`, `aud` and `jti` are kept redacted.
public struct JWTClaims: Sendable, Hashable {
    /// Every claim, registered or not, as decoded.
    public let members: [String: JSONValue]

    /// `iss` (RFC 7519 §4.1.1).
    public var issuer: String? { redactedIssuer.value }
    /// `sub` (RFC 7519 §4.1.2).
    public var subject: String? { redactedSubject.value }
    /// `aud` (RFC 7519 §4.1.3), a single string given as a one-element array; empty if absent.
    public var audience: [String] { redactedAudience.value }
    /// `exp` (RFC 7519 §4.1.4).
    public let expiresAt: NumericDate?
    /// `nbf` (RFC 7519 §4.1.5).
    public let notBefore: NumericDate?
    /// `iat` (RFC 7519 §4.1.6).
    public let issuedAt: NumericDate?
    /// `jti` (RFC 7519 §4.1.7).
    public var jwtID: String? { redactedJWTID.value }

    /// ``issuer``, rendered as `<redacted>`.
    private let redactedIssuer: RedactedBox<String?>
    /// ``subject``, rendered as `<redacted>`.
    private let redactedSubject: RedactedBox<String?>
    /// ``audience``, rendered as `<redacted>`.
    private let redactedAudience: RedactedBox<[String]>
    /// ``jwtID``, rendered as `<redacted>`.
    private let redactedJWTID: RedactedBox<String?>

    /// Wraps `members`, checking the registered claims' types.
    ///
    /// - Throws: ``CryptoError/invalidClaim(_:)`` naming the first claim of the wrong type.
    public init(_ members: [String: JSONValue]) throws {
        // One pass over the members picks out the registered claims (instead of a hash lookup
        // per name); they are then checked in a fixed order, so the error is deterministic.
        var iss: JSONValue?
        var sub: JSONValue?
        var jti: JSONValue?
        var exp: JSONValue?
        var nbf: JSONValue?
        var iat: JSONValue?
        var aud: JSONValue?
        for (name, value) in members {
            switch name {
            case "iss": iss = value
            case "sub": sub = value
            case "jti": jti = value
            case "exp": exp = value
            case "nbf": nbf = value
            case "iat": iat = value
            case "aud": aud = value
            default: break
            }
        }
        func string(_ value: JSONValue?, _ name: String) throws -> String? {
            guard let value else { return nil }
            guard let string = value.stringValue else { throw CryptoError.invalidClaim(name) }
            return string
        }
        func date(_ value: JSONValue?, _ name: String) throws -> NumericDate? {
            guard let value else { return nil }
            guard let seconds = value.doubleValue, seconds.isFinite else { throw CryptoError.invalidClaim(name) }
            return NumericDate(seconds)
        }
        self.members = members
        redactedIssuer = RedactedBox(try string(iss, "iss"))
        redactedSubject = RedactedBox(try string(sub, "sub"))
        redactedJWTID = RedactedBox(try string(jti, "jti"))
        expiresAt = try date(exp, "exp")
        notBefore = try date(nbf, "nbf")
        issuedAt = try date(iat, "iat")
        let audience: [String]
        switch aud {
        case nil: audience = []
        case .string(let value)?: audience = [value]
        case .array(let values)?:
            audience = try values.map { value in
                guard let string = value.stringValue else { throw CryptoError.invalidClaim("aud") }
                return string
            }
        default: throw CryptoError.invalidClaim("aud")
        }
        redactedAudience = RedactedBox(audience)
    }

    /// The claim `name`, registered or custom, or `nil` if absent.
    public subscript(name: String) -> JSONValue? { members[name] }

    /// Checks the time claims, `aud` and, when asked, `iss`.
    ///
    /// The token is valid iff `now < exp + leeway` and `now >= nbf - leeway` (RFC 7519
    /// §4.1.4, §4.1.5). An `iat` in the future is not an error (clock skew). The audience has
    /// no default (RFC 7519 §4.1.3, RFC 8725 §3.9): pass the value this verifier is known by,
    /// or ``JWTAudience/anyAudience`` to opt out explicitly.
    /// - Parameters:
    ///   - now: the verifier's time in seconds since 1970 (from the caller's time source).
    ///   - leeway: allowed clock skew in seconds, 0 or more; 60 by default.
    ///   - issuer: the required `iss`, or `nil` not to check it.
    ///   - audience: the audience `aud` must contain, or the explicit opt-out.
    /// - Throws: ``CryptoError/timeOutOfRange`` for a `now` that is NaN or infinite;
    ///   ``CryptoError/expired``, ``CryptoError/notYetValid``,
    ///   ``CryptoError/issuerMismatch``, ``CryptoError/audienceMismatch``,
    ///   ``CryptoError/invalidParameter(_:)`` (`"leeway"`) for a negative or non-finite
    ///   leeway, (`"audience"`) for an empty expected audience.
    public func validate(at now: Double, leeway: Double = 60, issuer: String? = nil, audience: JWTAudience) throws {
        guard now.isFinite else { throw CryptoError.timeOutOfRange }
        guard leeway >= 0, leeway.isFinite else { throw CryptoError.invalidParameter("leeway") }
        if let expiresAt, !(now < expiresAt.secondsSince1970 + leeway) { throw CryptoError.expired }
        if let notBefore, !(now >= notBefore.secondsSince1970 - leeway) { throw CryptoError.notYetValid }
        if let issuer, self.issuer != issuer { throw CryptoError.issuerMismatch }
        try audience.check(self.audience)
    }

    /// Checks the claims at `now`; see the `Double` overload.
    ///
    /// - Throws: the errors of the `Double` overload.
    public func validate(at now: Date, leeway: TimeInterval = 60, issuer: String? = nil, audience: JWTAudience) throws {
        try validate(at: now.timeIntervalSince1970, leeway: leeway, issuer: issuer, audience: audience)
    }
}
