/// The audience a JWT verifier requires: RFC 7519 §4.1.3 says a recipient that does not
/// identify itself with a value in `aud` MUST reject the token, and RFC 8725 §3.9 asks every
/// verifier to check it, so there is no default: a caller names its audience or opts out in
/// so many words with ``anyAudience``.
///
/// A string literal is an ``expected(_:)`` audience: `audience: "my-client-id"`.
///
/// Concurrency: a plain value. Source: RFC 7519 §4.1.3, RFC 8725 §3.9, Docs/Security.md.
public enum JWTAudience: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// `aud` must be this string or an array that contains it; a token without `aud` is
    /// rejected too.
    case expected(String)
    /// The explicit opt-out: `aud` is not checked (its JSON type still is). Use it only for
    /// tokens whose audience is established another way.
    case anyAudience

    /// `audience: "client-1"` means `.expected("client-1")`.
    public init(stringLiteral value: String) { self = .expected(value) }

    /// Checks `audience` (the token's `aud`, a one-element array for a single string).
    ///
    /// - Throws: ``CryptoError/audienceMismatch`` when an expected audience is not in it;
    ///   ``CryptoError/invalidParameter(_:)`` (`"audience"`) for an empty expected audience.
    public func check(_ audience: [String]) throws {
        switch self {
        case .anyAudience: return
        case .expected(let value):
            guard !value.isEmpty else { throw CryptoError.invalidParameter("audience") }
            guard audience.contains(value) else { throw CryptoError.audienceMismatch }
        }
    }

    /// `expected(<value>)` or `anyAudience`; an audience is a public identifier, not a secret.
    public var description: String {
        switch self {
        case .expected(let value): "expected(\(value))"
        case .anyAudience: "anyAudience"
        }
    }
}
