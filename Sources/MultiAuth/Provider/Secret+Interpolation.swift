/// Interpolating a ``Secret`` does not compile: `"Bearer \(token)"` would silently write
/// `Bearer <redacted>` (its rendering), never the token.
///
/// Call ``Secret/reveal()`` to put a secret on the wire or into a store
/// (`"Bearer " + token.reveal()`), or `String(describing:)` to render it redacted on purpose
/// (`"\(String(describing: token))"`). The same holds for an optional `Secret`.
///
/// How: `@available(*, unavailable)` cannot do this, because the type checker ranks an unavailable
/// overload below the standard library's generic `appendInterpolation(_:)`, which then renders
/// `<redacted>` without a word. Instead each of the two types has two equally good overloads
/// (their trailing parameters, whose labels say what to do, differ only in name and are never
/// passed), so every interpolation of a `Secret` or `Secret?` is an "ambiguous use of
/// 'appendInterpolation'" error whose notes point here. Were one of them ever chosen, it would
/// write ``Secret/redactionMarker``, as the rendering does.
extension DefaultStringInterpolation {
    /// One of the twin overloads that make `"\(secret)"` ambiguous, so it does not compile: call
    /// `reveal()` to put a `Secret` on the wire, or `String(describing:)` to render it redacted.
    /// - Parameters:
    ///   - secret: The secret that was interpolated.
    ///   - callRevealToSendIt: Never passed; it names the fix.
    public mutating func appendInterpolation(_ secret: Secret, callRevealToSendIt: Never? = nil) {
        appendLiteral(Secret.redactionMarker)
    }

    /// The other twin overload that makes `"\(secret)"` ambiguous, so it does not compile: call
    /// `reveal()` to put a `Secret` on the wire, or `String(describing:)` to render it redacted.
    /// - Parameters:
    ///   - secret: The secret that was interpolated.
    ///   - orStringDescribingToRenderIt: Never passed; it names the other fix.
    public mutating func appendInterpolation(_ secret: Secret, orStringDescribingToRenderIt: Never? = nil) {
        appendLiteral(Secret.redactionMarker)
    }

    /// One of the twin overloads that make `"\(optionalSecret)"` ambiguous, so it does not compile:
    /// unwrap it and call `reveal()`, or render it with `String(describing:)`.
    /// - Parameters:
    ///   - secret: The optional secret that was interpolated.
    ///   - callRevealToSendIt: Never passed; it names the fix.
    public mutating func appendInterpolation(_ secret: Secret?, callRevealToSendIt: Never? = nil) {
        appendLiteral(secret == nil ? "nil" : Secret.redactionMarker)
    }

    /// The other twin overload that makes `"\(optionalSecret)"` ambiguous, so it does not compile:
    /// unwrap it and call `reveal()`, or render it with `String(describing:)`.
    /// - Parameters:
    ///   - secret: The optional secret that was interpolated.
    ///   - orStringDescribingToRenderIt: Never passed; it names the other fix.
    public mutating func appendInterpolation(_ secret: Secret?, orStringDescribingToRenderIt: Never? = nil) {
        appendLiteral(secret == nil ? "nil" : Secret.redactionMarker)
    }
}
