import Foundation

/// A provider that can resend a code, possibly on another channel.
public protocol ResendableProvider: AuthProvider {
    /// Sends a new code for `challenge`, on `channel` when given.
    /// - Returns: The updated challenge (new expiry, resend time, channel).
    /// - Throws: `AuthError` (`.rateLimited` with `retryAfter`, `.channelUnavailable`, …).
    func resend(_ challenge: Challenge, channel: DeliveryChannel?, context: AuthContext) async throws -> Challenge
}
