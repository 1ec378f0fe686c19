import Foundation

/// The user's answer to a ``Challenge``: a code and, for Truecaller-style flows, a
/// ``PersonName``; for a passkey challenge, the platform's ``PasskeyResult`` instead of a code.
///
/// The code is normalized before any use: every whitespace character (including inner spaces
/// and newlines from a paste) is removed and every Unicode decimal digit (general category Nd:
/// Arabic-Indic `٣`, Persian `۳`, full-width `３`, Devanagari `३`, …) becomes its ASCII digit, as
/// the phone parser reads them; what remains must be ASCII digits of exactly the challenge's
/// length. Input over ``maximumInputBytes`` UTF-8 bytes is refused before any Unicode work. It always stays a `String`: `"005924"` keeps its zeros (Docs/Cases.md, B05 and
/// B34). The code is a ``Secret``: every rendering shows `<redacted>` in its place.
public struct ChallengeAnswer: Sendable {
    /// The code as the user typed or pasted it; read it with ``Secret/reveal()``.
    public var rawCode: Secret
    /// The person's name, for providers that require one to finish (Truecaller).
    public var name: PersonName?
    /// The platform authenticator's result, for a ``Challenge/Kind/passkey(_:)`` challenge.
    public var passkey: PasskeyResult?
    /// For a checked passkey answer, the key that identifies this result (set by `AuthClient`).
    var passkeyKey: Secret?

    /// What makes two answers the same answer: the code, or a passkey result's key. Concurrent
    /// submits with the same key share one provider call.
    var submissionKey: String { (passkeyKey ?? rawCode).reveal() }

    /// Creates an answer.
    /// - Parameters:
    ///   - code: The code as typed; normalized by ``normalizedCode(length:)``.
    ///   - name: The name, when the provider requires one.
    public init(code: String, name: PersonName? = nil) {
        self.rawCode = Secret(code)
        self.name = name
    }

    /// Creates the answer to a passkey challenge.
    /// - Parameter passkey: What the platform authenticator returned (``PasskeyResult/cancelled``
    ///   when the user dismissed it: `AuthClient.submit` then throws `.cancelledByUser` and the
    ///   challenge stays open).
    public init(passkey: PasskeyResult) {
        self.rawCode = ""
        self.passkey = passkey
    }

    /// The longest code input read at all, in UTF-8 bytes (a 10-digit code with generous
    /// spacing is far below it); checked before any Unicode work.
    public static let maximumInputBytes = 256

    /// The code with all whitespace removed and every Unicode decimal digit (Nd) mapped to
    /// ASCII, checked to be exactly `length` ASCII digits.
    /// - Parameter length: The number of digits expected; `nil` accepts 4 to 10 digits.
    /// - Returns: The normalized code, e.g. `"123456"` for `" 123 456\n"` or `"١٢٣٤٥٦"`.
    /// - Throws: `AuthError` `.invalidInput` with reason `.invalidCodeFormat` (Docs/Cases.md, B34),
    ///   also for input over ``maximumInputBytes`` UTF-8 bytes.
    public func normalizedCode(length: Int?) throws -> String {
        let rawCode = rawCode.reveal()
        guard rawCode.utf8.count <= Self.maximumInputBytes else {
            throw AuthError.invalidInput(
                .invalidCodeFormat, "the code input is longer than \(Self.maximumInputBytes) bytes")
        }
        let code = String(
            String.UnicodeScalarView(
                rawCode.unicodeScalars.filter { !CharacterSet.whitespacesAndNewlines.contains($0) }.map(
                    Self.asciiDigit)))
        guard !code.isEmpty, code.unicodeScalars.allSatisfy({ $0.value >= 48 && $0.value <= 57 }) else {
            throw AuthError.invalidInput(.invalidCodeFormat, "the code must contain digits only")
        }
        if let length {
            guard code.count == length else {
                throw AuthError.invalidInput(
                    .invalidCodeFormat, "the code must have \(length) digits, got \(code.count)")
            }
        } else {
            guard (4...10).contains(code.count) else {
                throw AuthError.invalidInput(.invalidCodeFormat, "the code must have 4 to 10 digits, got \(code.count)")
            }
        }
        return code
    }

    /// The ASCII digit of a decimal digit scalar (general category Nd, numeric value 0–9), else
    /// the scalar unchanged.
    private static func asciiDigit(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        guard !scalar.isASCII, scalar.properties.generalCategory == .decimalNumber,
            let value = scalar.properties.numericValue, let digit = UInt8(exactly: value), digit <= 9
        else { return scalar }
        return Unicode.Scalar(UInt8(ascii: "0") + digit)
    }
}
