import Foundation

/// The user's answer to a ``Challenge``: a code and, for Truecaller-style flows, a
/// ``PersonName``.
///
/// The code is normalized before any use: every whitespace character (including inner spaces
/// and newlines from a paste) is removed; what remains must be ASCII digits of exactly the
/// challenge's length. It always stays a `String`: `"005924"` keeps its zeros (Docs/Cases.md, B05 and
/// B34). `description` and the mirror never show the code.
public struct ChallengeAnswer: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The code as the user typed or pasted it. Treat as secret.
    public var rawCode: String
    /// The person's name, for providers that require one to finish (Truecaller).
    public var name: PersonName?

    /// Creates an answer.
    /// - Parameters:
    ///   - code: The code as typed; normalized by ``normalizedCode(length:)``.
    ///   - name: The name, when the provider requires one.
    public init(code: String, name: PersonName? = nil) {
        self.rawCode = code
        self.name = name
    }

    /// The code with all whitespace removed, checked to be exactly `length` ASCII digits.
    /// - Parameter length: The number of digits expected; `nil` accepts 4 to 10 digits.
    /// - Returns: The normalized code, e.g. `"123456"` for `" 123 456\n"`.
    /// - Throws: `AuthError` `.invalidInput` with reason `.invalidCodeFormat` (Docs/Cases.md, B34).
    public func normalizedCode(length: Int?) throws -> String {
        let code = String(
            rawCode.unicodeScalars.filter { !CharacterSet.whitespacesAndNewlines.contains($0) }.map(Character.init))
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

    /// `ChallengeAnswer(code: <redacted>, name: …)`.
    public var description: String { "ChallengeAnswer(code: <redacted>\(name.map { ", name: \($0)" } ?? ""))" }
    /// Same as ``description``.
    public var debugDescription: String { description }
    /// A mirror without the code.
    public var customMirror: Mirror {
        Mirror(self, children: ["code": "<redacted>", "name": name as Any], displayStyle: .struct)
    }
}
