import Foundation

/// A session the emulated OTPLESS server issued in an `ONETAP` payload (`sessionInfo`), for the
/// session API (refresh, logout).
struct OTPlessSessionRecord: Sendable {
    var userID: String
    var sessionToken: String
    var refreshToken: String
    /// The device state id of the sign-in (the SDK sends it back in the `state` header).
    var state: String
}
