import Foundation

/// A token issued in an `ONETAP` payload, for the validate-token API.
struct OTPlessIssuedToken: Sendable {
    var userID: String
    var identityType: String
    var identityValue: String
    var channel: String
    var issuedAt: Date
}
