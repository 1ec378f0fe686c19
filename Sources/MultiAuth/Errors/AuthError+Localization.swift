import Foundation
import MultiAuthLocking

// User-facing error texts (Docs/Errors.md): chosen by code and reason only, so the same code
// reads the same whichever provider raised it; English built in, translations through
// `AuthError.localizer` (by default the app's `MultiAuth` strings table).

extension AuthError: LocalizedError {
    /// A short sentence for the person using the app, e.g. "The code is incorrect.": chosen by
    /// ``code`` (and ``reason`` for ``Code/invalidInput``) only, so every provider's error of one
    /// code reads the same; translated through ``localizer`` (English built in). It never
    /// holds a value of the request or of the provider's answer. ``message`` stays the
    /// developer's text (logs); ``description`` has every field.
    public var errorDescription: String? { Self.text(Self.textKey(code: code, reason: reason)) }

    /// What the person can do next, e.g. "Check the code and try again."; chosen like
    /// ``errorDescription``.
    public var recoverySuggestion: String? { Self.text(Self.textKey(code: code, reason: reason) + ".recovery") }

    /// The key of the texts for `code` and `reason` (without the `.recovery` suffix): the
    /// reason's key for an `invalidInput` with a known reason, the code's key for a known code,
    /// else `error.generic`.
    package static func textKey(code: Code, reason: Reason?) -> String {
        if code == .invalidInput, let reason, englishStrings["error.invalidInput.\(reason.rawValue)"] != nil {
            return "error.invalidInput.\(reason.rawValue)"
        }
        let key = "error.\(code.rawValue)"
        return englishStrings[key] != nil ? key : "error.generic"
    }

    private static func text(_ key: String) -> String {
        let english = englishStrings[key] ?? englishStrings["error.generic"]!
        return localizer.localizedString(forKey: key, english: english)
    }

    private static let currentLocalizer = Locked(
        AuthErrorLocalizer.bundle(.main, table: AuthErrorLocalizer.defaultTable))

    /// Translates ``errorDescription`` and ``recoverySuggestion``. Default:
    /// `.bundle(.main, table: "MultiAuth")`, i.e. a `MultiAuth.strings` (or `.xcstrings`) table
    /// in the app's main bundle; keys without an entry read in English. Set it once at launch
    /// to use another bundle or your own lookup.
    ///
    /// Concurrency: reads and writes are serialized by a lock; safe from any thread.
    public static var localizer: AuthErrorLocalizer {
        get { currentLocalizer.withLock { $0 } }
        set { currentLocalizer.withLock { $0 = newValue } }
    }

    /// Every text key with its English text: `error.<code>` and `error.<code>.recovery` for
    /// each ``Code`` constant, `error.invalidInput.<reason>` and its `.recovery` for each
    /// ``Reason`` constant. Translate these keys (Docs/Errors.md shows the table format).
    public static let englishStrings: [String: String] = {
        var table: [String: String] = [:]
        for (code, texts) in englishCodeTexts {
            table["error.\(code.rawValue)"] = texts.0
            table["error.\(code.rawValue).recovery"] = texts.1
        }
        for (reason, texts) in englishReasonTexts {
            table["error.invalidInput.\(reason.rawValue)"] = texts.0
            table["error.invalidInput.\(reason.rawValue).recovery"] = texts.1
        }
        return table
    }()

    /// English (description, recovery suggestion) per code.
    private static let englishCodeTexts: [Code: (String, String)] = [
        .invalidInput: ("Some of the details you entered aren’t valid.", "Check what you entered and try again."),
        .invalidCode: ("The code is incorrect.", "Check the code and try again."),
        .expired: ("The code or link has expired.", "Start again to get a new one."),
        .attemptsExhausted: ("Too many incorrect attempts.", "Start again to get a new code."),
        .rateLimited: ("Too many attempts in a short time.", "Wait a moment, then try again."),
        .network: ("The connection was lost.", "Check your internet connection and try again."),
        .providerUnavailable: ("The sign-in service isn’t available right now.", "Try again in a few minutes."),
        .unauthorized: ("You’re no longer signed in.", "Sign in again."),
        .sessionExpired: ("Your session has ended.", "Sign in again."),
        .malformedResponse: ("The sign-in service sent an answer that couldn’t be read.", "Try again later."),
        .storageUnavailable: ("Your sign-in details can’t be read right now.", "Unlock your device, then try again."),
        .storageFailure: ("Your sign-in couldn’t be saved on this device.", "Try again."),
        .signatureInvalid: ("The sign-in couldn’t be verified.", "Start the sign-in again."),
        .configuration: ("Sign-in isn’t set up correctly in this app.", "Contact the app’s support."),
        .unsupported: ("This way of signing in isn’t available.", "Choose another way to sign in."),
        .cancelledByProvider: ("The sign-in was cancelled.", "Start again to sign in."),
        .cancelledByUser: ("The passkey sign-in was cancelled.", "Try again, or choose another way to sign in."),
        .channelUnavailable: ("The code can’t be sent this way.", "Choose another way to receive the code."),
        .challengeNotPending: ("This sign-in is no longer active.", "Start again."),
        .codeAlreadyUsed: ("This code has already been used.", "Wait for a new code, then enter it."),
        .generic: ("Something went wrong while signing in.", "Try again."),
    ]

    /// English (description, recovery suggestion) per `invalidInput` reason.
    private static let englishReasonTexts: [Reason: (String, String)] = [
        .regionRequired: (
            "Enter the phone number with its country code.", "Start the number with + and the country code, e.g. +44."
        ),
        .tooShort: ("The phone number is too short.", "Check the number and enter every digit."),
        .tooLong: ("The phone number is too long.", "Check the number for extra digits."),
        .invalidCountryCode: (
            "The country code of the phone number isn’t valid.", "Check the country code at the start of the number."
        ),
        .invalidCharacters: (
            "The phone number contains characters that aren’t allowed.", "Use digits only, with + at the start."
        ),
        .extensionNotSupported: (
            "A phone number with an extension can’t be used to sign in.", "Enter the number without the extension."
        ),
        .invalidEmail: ("The email address isn’t valid.", "Check the address and try again."),
        .invalidCodeFormat: (
            "The code doesn’t have the right format.", "Enter the digits exactly as you received them."
        ),
        .invalidName: ("The name isn’t valid.", "Enter a first name that contains letters."),
        .invalidToken: ("The sign-in details couldn’t be read.", "Start the sign-in again."),
        .answerMismatch: (
            "Some information is missing to finish signing in.", "Fill in every field shown and try again."
        ),
    ]
}
