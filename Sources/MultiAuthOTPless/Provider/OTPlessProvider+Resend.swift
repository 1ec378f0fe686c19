import Foundation
import MultiAuth

extension OTPlessProvider {
    /// Sends a new code or link for a pending challenge by posting the intent again with
    /// `deliveryMethod` set (the headless SDK has no separate resend call;
    /// Docs/Providers/OTPless.md, "Flows").
    ///
    /// With `channel == nil` the flow's current channel is used: after a SmartAuth fallback
    /// that is the fallback channel, never the one that failed (Docs/Cases.md, B29).
    /// - Parameters:
    ///   - challenge: The pending `oneTimeCode` or `magicLink` challenge.
    ///   - channel: The channel the user picked, or `nil`.
    ///   - context: Transport, time and event sink for this call.
    /// - Returns: The updated challenge: same flow, new expiry, `resendAvailableAt` 30 s later
    ///   (a guess; Docs/Providers/OTPless.md, "Verified against"), attempts reset.
    /// - Throws: `AuthError` `.rateLimited` (before `resendAvailableAt`, or the server's
    ///   `7022`), `.channelUnavailable` (a channel that already failed in this attempt),
    ///   `.configuration` (`4003`, channel not enabled), `.unsupported` (SNA / OAuth challenges),
    ///   `.challengeNotPending`, `.network`; or `CancellationError`.
    public func resend(_ challenge: Challenge, channel: DeliveryChannel?, context: AuthContext) async throws
        -> Challenge
    {
        try checkOwnership(challenge)
        let latest = registry.challenge(for: challenge.flowID) ?? challenge
        switch latest.kind {
        case .oneTimeCode, .magicLink: break
        default: throw AuthError(.unsupported, "only code and link challenges can be resent", provider: id)
        }
        if let available = latest.resendAvailableAt, context.now < available {
            throw AuthError(
                .rateLimited, "a new code can be requested later", provider: id,
                retryAfter: .interval(available.timeIntervalSince(context.now)))
        }
        let state = latest.providerState
        let failed = Set(
            (state[otpless: "failedChannels"] ?? "").split(separator: ",").map { DeliveryChannel(rawValue: String($0)) }
        )
        let current = state[otpless: "channel"].map(DeliveryChannel.init(rawValue:)) ?? .sms
        let target = channel ?? current
        if failed.contains(target) {
            throw AuthError(.channelUnavailable, "'\(target)' already failed for this sign-in", provider: id)
        }
        guard var plan = OTPlessIntentPlan.resuming(state, channel: target, configuration: configuration) else {
            throw AuthError(.unsupported, "this challenge cannot be resent", provider: id)
        }
        if let enabled = configuration.enabledChannels { try plan.check(enabled: enabled, provider: id) }
        let ready = try await device.ready(api: api, context: context)
        try plan.check(against: ready.config, configuration: configuration, provider: id)
        registry.stopPolling(challenge.flowID)
        var body = plan.intentBody(config: ready.config, configuration: configuration, forcedChannel: target)
        // The earlier transaction's id travels along, as the SDK sends `asId` when known.
        if let asId = state[otpless: "asId"], !asId.isEmpty { body["asId"] = .string(asId) }
        let response = try await api.post(
            "v3/lp/user/transaction/intent/\(ready.state)", body: body, uid: state[otpless: "uid"] ?? "",
            context: context)
        let intent = try api.decode(OTPlessWire.IntentResponse.self, from: response)
        let step = try issue(
            intent, plan: plan, state: ready.state, flowID: challenge.flowID, failedChannels: failed,
            fallbackFrom: state[otpless: "fallbackFrom"].map(DeliveryChannel.init(rawValue:)), context: context)
        guard case .challenge(let updated) = step else {
            throw AuthError(.malformedResponse, "resend answered with a session", provider: id)
        }
        return updated
    }
}
