import Foundation
import MultiAuth

extension OTPlessProvider {
    /// Status polling defaults, in seconds (the SDK's `TimerSettings(interval: 3, timeout: 60)`).
    static let defaultStatusTimer = (interval: 3.0, timeout: 60.0)

    /// Starts (or restarts) the status poller of `flowID` (Docs/Providers/OTPless.md, "Polling").
    ///
    /// `timer` is in **seconds** here (the status poller's unit; SNA polls use milliseconds).
    func startPolling(flowID: FlowID, timer: OTPlessWire.TimerSettings?, context: AuthContext) {
        // Server-set seconds, checked (Docs/Security.md, "Numbers from the wire"): a non-finite or
        // negative value falls back to the SDK's default, a huge one is clamped to a day.
        let interval =
            (try? WireNumber.timer(
                timer?.interval ?? Self.defaultStatusTimer.interval, unit: 1, minimum: .milliseconds(100),
                field: "timerSettings.interval", provider: id)) ?? .interval(Self.defaultStatusTimer.interval)
        let timeout =
            (try? WireNumber.timer(
                timer?.timeout ?? Self.defaultStatusTimer.timeout, unit: 1, field: "timerSettings.timeout", provider: id
            ))
            ?? .interval(Self.defaultStatusTimer.timeout)
        let registry = self.registry
        registry.setPoller(for: flowID) { pollerID in
            // Owned by `registry` (this provider's flow table) under `flowID`. It ends by itself
            // after a terminal status, a confirmed OTP delivery or the `timeout` budget, and is
            // cancelled when the flow ends (verified, link exchanged), on a new start, or by
            // `stopPolling(flowID:)` / `stopAllPolling()`; cancellation wakes its clock sleep.
            Task {
                await self.poll(flowID: flowID, interval: interval, timeout: timeout, context: context)
                registry.pollerFinished(flowID, id: pollerID)
            }
        }
    }

    /// The polling loop: sleep `interval` on the injected clock, GET the status, publish events.
    func poll(flowID: FlowID, interval: Duration, timeout: Duration, context: AuthContext) async {
        // The budget is measured on the wall clock of the injected time source (ManualClock
        // moves it with the sleeping clock), so a long clock jump ends polling at once.
        let deadline = context.now.addingTimeInterval(timeout.timeInterval)
        var delivered: Set<DeliveryChannel> = []
        while context.now.addingTimeInterval(interval.timeInterval) <= deadline {
            do {
                try await context.time.sleep(for: interval)
            } catch {
                return
            }
            guard !Task.isCancelled, let challenge = registry.challenge(for: flowID) else { return }
            // An expired challenge, or a budget used up while asleep, ends polling without a request.
            if challenge.isExpired(at: context.now) || context.now > deadline { return }
            let state = challenge.providerState
            let response: HTTPResponse
            do {
                response = try await api.get(
                    "v3/lp/user/transaction/status/\(state[otpless: "state"] ?? "")", query: Self.statusQuery(state),
                    context: context)
            } catch {
                if Task.isCancelled { return }
                continue
            }
            guard !Task.isCancelled else { return }
            guard response.isSuccess, let status = try? response.decodeJSON(OTPlessWire.TransactionStatus.self) else {
                continue
            }
            let detail = status.authDetail
            switch (detail?.status ?? "PENDING").uppercased() {
            case "SUCCESS", "FAILED":
                // SUCCESS without the app (cross-device) and FAILED both end polling; the flow
                // itself is completed by `respond` or `handleRedirect`.
                return
            default:
                break
            }
            let current = state[otpless: "channel"].map(DeliveryChannel.init(rawValue:))
            if let mode = detail?.communicationMode, let current {
                let next = OTPlessChannel.deliveryChannel(forMode: mode)
                if next != current,
                    let updated = fallBack(
                        flowID: flowID, from: current, to: next, asId: detail?.asId, now: context.now)
                {
                    context.emit(.fallbackTriggered(from: current, to: next))
                    context.emit(.challengeIssued(updated))
                }
            }
            if detail?.communicationDelivered == true, let latest = registry.challenge(for: flowID),
                let channel = latest.providerState[otpless: "channel"].map(DeliveryChannel.init(rawValue:)),
                delivered.insert(channel).inserted
            {
                context.emit(.deliveryStatus(channel: channel, status: .delivered))
                // The SDK stops polling once an OTP is delivered.
                if latest.providerState[otpless: "authType"] == "OTP" { return }
            }
        }
    }

    /// The status poll's query: the flow ids (`asId`, `token`, `uid` when known) and the
    /// identity the SDK adds (`OtplessRequest.getQueryParams`): for a phone `mobile` (national
    /// number), `selectedCountryCode` (digits) and `value` (country code + national number);
    /// for an e-mail `email` and `value`.
    static func statusQuery(_ state: ProviderState) -> [String: String] {
        var query = [
            "asId": state[otpless: "asId"] ?? "", "token": state[otpless: "token"] ?? "",
            "uid": state[otpless: "uid"] ?? "",
        ]
        if state[otpless: "identifierType"] == "MOBILE", let national = state[otpless: "mobile"] {
            let countryCode = state[otpless: "countryCode"] ?? ""
            query["mobile"] = national
            query["selectedCountryCode"] = countryCode
            query["value"] = countryCode + national
        } else if let email = state[otpless: "email"] {
            query["email"] = email
            query["value"] = email
        }
        return query
    }

    /// Records a SmartAuth fallback in the flow's challenge: new channel, `fallbackFrom`, the
    /// failed channel remembered for this attempt (Docs/Cases.md, B29), and the resend cool-down
    /// restarted, since the server just sent a new code.
    func fallBack(flowID: FlowID, from: DeliveryChannel, to: DeliveryChannel, asId: String?, now: Date) -> Challenge? {
        registry.update(flowID) { challenge in
            challenge.resendAvailableAt = now.addingTimeInterval(Self.resendCooldown.timeInterval).roundedToMilliseconds
            switch challenge.kind {
            case .oneTimeCode(let length, _, let link):
                challenge.kind = .oneTimeCode(length: length, channel: to, linkAlsoSent: link)
            case .magicLink: challenge.kind = .magicLink(channel: to)
            default: break
            }
            var failed = Set(
                (challenge.providerState[otpless: "failedChannels"] ?? "").split(separator: ",").map {
                    DeliveryChannel(rawValue: String($0))
                })
            failed.insert(from)
            challenge.providerState[otpless: "failedChannels"] = failed.map(\.rawValue).sorted().joined(separator: ",")
            challenge.providerState[otpless: "channel"] = to.rawValue
            challenge.providerState[otpless: "fallbackFrom"] = from.rawValue
            if let asId, !asId.isEmpty { challenge.providerState[otpless: "asId"] = asId }
        }
    }
}
