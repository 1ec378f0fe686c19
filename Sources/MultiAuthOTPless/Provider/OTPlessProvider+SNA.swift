import Foundation
import MultiAuth
import MultiAuthCrypto

extension OTPlessProvider {
    /// SNA polling defaults, in milliseconds (the SDK's `SNAUseCase`: 200 ms / 7000 ms).
    static let defaultSNATimer = (interval: 200.0, timeout: 7000.0)

    /// Runs silent network auth for a `.silentNetworkAuth` challenge (Docs/Providers/OTPless.md,
    /// "Silent network auth"): the carrier hit on the cellular bearer, then
    /// `silent-auth-status` polls every `interval` ms until `timeout` ms, then on failure one
    /// status GET with `lapseMeta` that yields the fallback or the end. Without a cellular path
    /// now (the transport is no `CellularHTTPTransport`, or it reports none) the carrier hit
    /// is skipped and the failure is reported at once (`lapseMeta` cause `sdk_connection_error`).
    func runSilentNetworkAuth(_ challenge: Challenge, context: AuthContext) async throws -> SignInStep {
        let state = challenge.providerState
        guard let carrier = state[otpless: "intent"].flatMap(URL.init(string:)) else {
            throw AuthError(.malformedResponse, "the SNA challenge has no carrier URL", provider: id)
        }
        let timer = (try? state.decode(OTPlessWire.TimerSettings.self, forKey: "snaTimer")) ?? nil
        // Server-set milliseconds, checked (Docs/Security.md, "Numbers from the wire").
        let interval = try WireNumber.timer(
            timer?.interval ?? Self.defaultSNATimer.interval, unit: 0.001, minimum: .milliseconds(1),
            field: "timerSettings.interval", provider: id)
        let timeout = try WireNumber.timer(
            timer?.timeout ?? Self.defaultSNATimer.timeout, unit: 0.001, field: "timerSettings.timeout", provider: id)
        let ids = [
            "asId": state[otpless: "asId"] ?? "", "token": state[otpless: "token"] ?? "",
            "uid": state[otpless: "uid"] ?? "",
        ]
        let path = "v3/lp/user/transaction/silent-auth-status/\(state[otpless: "state"] ?? "")"

        var lapse: [String: String]
        var failedStatus: OTPlessWire.TransactionStatus?
        let carrierResult = try await hitCarrier(carrier, timeout: timeout, context: context)
        if let failure = carrierResult {
            lapse = failure
        } else {
            lapse = ["error": "sdk_polling_timeout", "error_description": "SNA polling timed out"]
            var elapsed: Duration = .zero
            polling: while true {
                if let response = try? await api.get(path, query: ids, context: context), response.isSuccess,
                    let status = try? response.decodeJSON(OTPlessWire.TransactionStatus.self)
                {
                    switch (status.authDetail?.status ?? "PENDING").uppercased() {
                    case "SUCCESS":
                        return try finish(
                            status, flowID: challenge.flowID, state: state[otpless: "state"], context: context)
                    case "FAILED":
                        // The SDK takes a FAILED poll as the answer (fallback or end) at once.
                        failedStatus = status
                        break polling
                    default: break
                    }
                }
                try Task.checkCancellation()
                guard elapsed + interval <= timeout else { break }
                try await context.time.sleep(for: interval)
                elapsed += interval
            }
        }
        try Task.checkCancellation()
        let status: OTPlessWire.TransactionStatus
        if let failedStatus {
            status = failedStatus
        } else {
            status = try await lapseStatus(
                path: path, ids: ids, lapse: lapse, flowID: challenge.flowID, context: context)
        }
        guard let leap = status.quantumLeap else {
            registry.end(challenge.flowID)
            throw AuthError(
                .channelUnavailable, "silent network auth failed and no fallback exists", provider: id,
                providerCode: "7161")
        }
        guard let plan = OTPlessIntentPlan.resuming(state, channel: .sms, configuration: configuration) else {
            throw AuthError(.malformedResponse, "the SNA challenge lost its phone number", provider: id)
        }
        var automatic = plan
        automatic.forcedChannel = nil
        let to = leap.communicationMode.map(OTPlessChannel.deliveryChannel(forMode:)) ?? automatic.defaultChannel
        context.emit(.fallbackTriggered(from: .silentNetworkAuth, to: to))
        return try issue(
            OTPlessWire.IntentResponse(quantumLeap: leap, oneTap: nil), plan: automatic,
            state: state[otpless: "state"] ?? "",
            flowID: challenge.flowID, failedChannels: [.silentNetworkAuth], fallbackFrom: .silentNetworkAuth,
            context: context)
    }

    /// The status `GET` with `lapseMeta` after the carrier hit or the polling failed: the server's
    /// FAILED answer, whose `quantumLeap` names the fallback (if any).
    /// - Throws: `AuthError(.channelUnavailable)` (`9106`, the flow ended) when the request fails
    ///   on the network or the answer is not a FAILED status; `CancellationError`.
    private func lapseStatus(
        path: String, ids: [String: String], lapse: [String: String], flowID: FlowID, context: AuthContext
    ) async throws -> OTPlessWire.TransactionStatus {
        var query = ids
        if let data = try? JSONEncoder.multiAuth.encode(lapse) {
            query["lapseMeta"] = String(decoding: data, as: UTF8.self)
        }
        let response: HTTPResponse
        do {
            response = try await api.get(path, query: query, context: context)
        } catch let error as AuthError where error.code == .network {
            registry.end(flowID)
            throw AuthError(
                .channelUnavailable, "SNA transaction timed out", provider: id, providerCode: "9106",
                underlying: error)
        }
        guard response.isSuccess, let decoded = try? response.decodeJSON(OTPlessWire.TransactionStatus.self),
            (decoded.authDetail?.status ?? "").uppercased() == "FAILED"
        else {
            registry.end(flowID)
            throw AuthError(
                .channelUnavailable, "silent network auth and every fallback failed", provider: id,
                providerCode: "9106")
        }
        return decoded
    }

    /// The carrier hit: an HTTP/1.1 `GET` of the intent URL on the cellular bearer only
    /// (`CellularHTTPTransport.sendOverCellular`, which follows redirects there); success iff
    /// the JSON answer has `status` `"ok"` (case-insensitive). Returns `nil` on success, else
    /// the `lapseMeta` `{cause, brief}`.
    private func hitCarrier(_ url: URL, timeout: Duration, context: AuthContext) async throws -> [String: String]? {
        struct CarrierAnswer: Decodable {
            var status: String?
            var error: String?
            var error_description: String?
        }
        guard let cellular = context.transport.availableCellularTransport else {
            return ["cause": "sdk_connection_error", "brief": "no cellular data path"]
        }
        do {
            var request = HTTPRequest(method: .get, url: url, headers: ["Accept": "text/html,application/json,*/*"])
            request.timeout = timeout
            let response = try await cellular.sendOverCellular(request)
            let readable =
                (200...202).contains(response.status) || (400...451).contains(response.status)
                || (500...511).contains(response.status)
            let answer = readable ? try? response.decodeJSON(CarrierAnswer.self) : nil
            if answer?.status?.lowercased() == "ok" { return nil }
            return [
                "cause": answer?.error ?? "http_\(response.status)",
                "brief": answer?.error_description ?? "carrier did not verify",
            ]
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            return ["cause": "sdk_connection_error", "brief": "the carrier could not be reached"]
        }
    }
}
