import MultiAuth

/// The OTP flow's verification states (the SDK's `TCVerificationState`;
/// Docs/Providers/Truecaller.md), published as `AuthEvent.Kind.verificationStateChanged(state.rawValue)`.
///
/// Order for a new number: ``otpInitiated`` (in `start`), ``otpReceived`` (when the app submits
/// the code, before the verify call), ``verificationComplete`` (verify accepted the code and
/// the name was stored). For a number already verified on this installation: only
/// ``verifiedBefore`` (in `start`, which returns a session at once).
public enum TruecallerVerificationState: String, Sendable, Hashable, CaseIterable, Codable {
    /// 0: the backend sent an SMS code (`method == "sms"`); the challenge expires after `tokenTtl`.
    case otpInitiated
    /// 1: the user entered the code. The iOS SDK declares this state but never emits it; this
    /// adapter emits it when the app submits a well-formed code with a valid name.
    case otpReceived
    /// 2: the backend accepted the code and the profile name was stored.
    case verificationComplete
    /// 3: the number was already verified on this installation; no code is needed.
    case verifiedBefore

    /// The SDK's numeric value (`TCVerificationState`), 0–3.
    public var sdkValue: Int {
        switch self {
        case .otpInitiated: 0
        case .otpReceived: 1
        case .verificationComplete: 2
        case .verifiedBefore: 3
        }
    }

    /// The event kind that publishes this state.
    public var event: AuthEvent.Kind { .verificationStateChanged(rawValue) }
}
