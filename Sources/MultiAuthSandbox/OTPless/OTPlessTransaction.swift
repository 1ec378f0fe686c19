import Foundation
import MultiAuth
import MultiAuthSandboxRuntime

/// One authentication the emulated OTPLESS server is running: who, how, which channel, the
/// code and link, attempts, and the outcome.
struct OTPlessTransaction: Sendable {
    var token: String
    var asId: String
    var identifierType: String
    /// E.164 number, e-mail identity key, or `oauth:{name}`.
    var destination: String
    var authType: String
    /// Channels not tried yet, in SmartAuth order.
    var remainingChannels: [DeliveryChannel]
    /// The channel of the first attempt (reported by the intent).
    var primaryChannel: DeliveryChannel?
    /// The channel the code was last delivered on.
    var currentChannel: DeliveryChannel?
    var delivered: Bool
    var forced: Bool
    var otp: String?
    var linkCode: String?
    var expiresAt: Date
    var sentAt: Date
    var wrongAttempts = 0
    var status = "PENDING"
    var snaVerified = false
    var snaFailed = false
    var consumed = false
}
