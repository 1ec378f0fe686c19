import Foundation
import MultiAuth
import MultiAuthSandbox
import Testing

@testable import MultiAuthOTPless

/// Hostile numbers in OTPLESS answers (Docs/Security.md, "Numbers from the wire"): an
/// `errorCode` of `1e19` trapped in `String(Int(number))` on every error path, and a
/// `timerSettings` of `1e300` trapped when polling or SNA started. Now codes stay strings and
/// timers are clamped to a day.
@Suite(.timeLimit(.minutes(10)))
struct OTPlessHostileNumberTests {
    @Test(arguments: [("1e19", "1e+19"), ("1e300", "1e+300"), ("-9.3e18", "-9.3e+18"), ("7118", "7118")])
    func numericErrorCodesOfAnySizeStayStrings(wire: String, kept: String) {
        let error = OTPlessErrorMapping.error(status: 400, body: Data(#"{"errorCode":\#(wire)}"#.utf8))
        #expect(error.provider == .otpless)
        #expect(OTPlessWire.ErrorBody(errorCode: .number(Double(wire)!)).code == kept)
        // The kept text goes through the plausible-code rule like any other code.
        #expect(error.providerCode == AuthError.plausibleProviderCode(kept))
    }

    /// A flow the poller can poll: pending for ten days.
    static func pendingFlow(_ provider: OTPlessProvider, world: OTPlessWorld) -> FlowID {
        var state = ProviderState()
        state[otpless: "state"] = "st-1"
        let challenge = Challenge(
            flowID: .random(), provider: .otpless, kind: .oneTimeCode(length: 6, channel: .sms, linkAlsoSent: false),
            issuedAt: world.clock.wallNow, expiresAt: world.clock.wallNow.addingTimeInterval(10 * 86_400),
            providerState: state)
        provider.registry.record(challenge)
        return challenge.flowID
    }

    @Test func aHugeStatusTimerIsClampedToADay() async throws {
        let world = try OTPlessWorld()
        let provider = try world.provider()
        let flow = Self.pendingFlow(provider, world: world)
        provider.startPolling(
            flowID: flow, timer: OTPlessWire.TimerSettings(interval: 1e300, timeout: 1e300), context: world.context())
        await world.clock.waitForSleepers(count: 1)
        #expect(provider.activePollerCount == 1)
        world.clock.advance(by: .seconds(86_399))
        #expect(world.requests(containing: "/transaction/status/").isEmpty)
        // The first poll comes after one day, the clamp, not after 10^300 seconds.
        world.clock.advance(by: .seconds(1))
        await settle { world.requests(containing: "/transaction/status/").count == 1 }
        #expect(world.requests(containing: "/transaction/status/").count == 1)
        provider.stopPolling(flowID: flow)
        await settle { provider.activePollerCount == 0 }
        #expect(provider.activePollerCount == 0)
    }

    @Test(arguments: [-1.0, -1e300])
    func aNegativeStatusTimerFallsBackToTheSDKDefault(value: Double) async throws {
        let world = try OTPlessWorld()
        let provider = try world.provider()
        let flow = Self.pendingFlow(provider, world: world)
        provider.startPolling(
            flowID: flow, timer: OTPlessWire.TimerSettings(interval: value, timeout: 60), context: world.context())
        await world.clock.waitForSleepers(count: 1)
        world.clock.advance(by: .milliseconds(2_999))
        #expect(world.requests(containing: "/transaction/status/").isEmpty)
        world.clock.advance(by: .milliseconds(1))
        await settle { world.requests(containing: "/transaction/status/").count == 1 }
        #expect(world.requests(containing: "/transaction/status/").count == 1)
        provider.stopPolling(flowID: flow)
        await settle { provider.activePollerCount == 0 }
        #expect(provider.activePollerCount == 0)
    }

    @Test(arguments: [1e300, 1e19, -1])
    func absurdSNATimersNeverTrap(value: Double) async throws {
        var state = ProviderState()
        state[otpless: "intent"] = "https://carrier.test/sna"
        state[otpless: "state"] = "st-1"
        try state.encode(OTPlessWire.TimerSettings(interval: value, timeout: value), forKey: "snaTimer")
        let challenge = Challenge(
            flowID: .random(), provider: .otpless, kind: .silentNetworkAuth, destination: nil,
            issuedAt: Date(timeIntervalSince1970: 1_700_000_000), expiresAt: Date(timeIntervalSince1970: 1_700_000_600),
            providerState: state)
        let world = try OTPlessWorld()
        let provider = try world.provider()
        let context = AuthContext(transport: ScriptedTransport([]), time: world.time)
        await #expect(throws: AuthError.self) {
            _ = try await provider.runSilentNetworkAuth(challenge, context: context)
        }
    }
}
