import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthDynamic
import MultiAuthOTPless
import MultiAuthPortal
import MultiAuthSandbox
import MultiAuthTruecaller

/// One provider as the stress and process-death tests drive it: how to make its provider for
/// a user "slot", which request that slot starts, where its codes and links land, and how to
/// answer the challenge kinds a generic driver cannot answer alone (a name, a TOTP code).
///
/// Adding a provider to the stress run (as done for `MultiAuthOTPless`): write a
/// `static func <name>(_ world: StressWorld) -> StressLane` below, register its backend in
/// ``StressWorld/init(seed:)``, and append the lane to ``StressWorld/lanes``. A provider that
/// sleeps on the clock in the background (OTPLESS status polling) must also be counted in
/// ``StressWorld``'s background sleepers, so the clock driver never runs ahead of work.
struct StressLane: Sendable {
    /// The provider id (one flow per lane per client).
    let id: AuthProviderID
    /// A fresh provider for `slot` (called again after a "process death": same configuration).
    let makeProvider: @Sendable (_ slot: Int) throws -> any AuthProvider
    /// The request slot `slot` starts with; distinct slots give distinct identities.
    let request: @Sendable (_ slot: Int) throws -> SignInRequest
    /// The inbox key of slot `slot` (E.164 or e-mail identity key; for OAuth the login hint).
    let destination: @Sendable (_ slot: Int) -> String
    /// The name sent with a code, when the provider needs one.
    let name: PersonName?
    /// The current TOTP code for slot `slot`, for providers with a TOTP step.
    let totpCode: (@Sendable (_ slot: Int) throws -> String)?
}

extension StressLane {
    /// Dynamic: e-mail OTP for two slots in three, SMS OTP (Indian numbers) for the third.
    static func dynamic(_ world: StressWorld) -> StressLane {
        StressLane(
            id: .dynamic,
            makeProvider: { _ in
                DynamicProvider(environmentID: DynamicBackend.defaultEnvironmentID, baseURL: DynamicBackend.baseURL())
            },
            request: { slot in
                slot % 3 == 2
                    ? .phone(try StressLane.dynamicPhone(slot), channel: .sms)
                    : try .email("dyn-\(slot)@stress.example")
            },
            destination: { slot in
                slot % 3 == 2 ? (try? StressLane.dynamicPhone(slot).e164) ?? "" : "dyn-\(slot)@stress.example"
            },
            name: nil, totpCode: nil)
    }

    /// Truecaller: SMS OTP for Indian mobile numbers, a name with the code. Each slot is one
    /// app installation (its own stable device id, as after a restart).
    static func truecaller(_ world: StressWorld) -> StressLane {
        StressLane(
            id: .truecaller,
            makeProvider: { slot in
                TruecallerProvider(
                    configuration: TruecallerConfiguration(
                        appKey: "stress-key", appLink: URL(string: "https://stress.example/tc")!,
                        baseURL: URL(string: "https://\(TruecallerBackend.defaultHost)")!,
                        deviceID: "stress-device-\(slot)"))
            },
            request: { slot in .phone(try StressLane.indianPhone(slot)) },
            destination: { slot in (try? StressLane.indianPhone(slot).e164) ?? "" },
            name: try! PersonName(firstName: "Asha", lastName: "Rao"), totpCode: nil)
    }

    /// Portal: Google/Apple OAuth for even slots, an e-mail magic link for odd ones; both stop
    /// at a TOTP step whose code is computed from the backend's enrolled secret.
    static func portal(_ world: StressWorld) -> StressLane {
        let backend = world.portal
        let clock = world.sandbox.clock
        return StressLane(
            id: .portal,
            makeProvider: { _ in
                PortalProvider(
                    configuration: try .sandbox())
            },
            request: { slot in
                switch slot % 4 {
                case 0: .oauth(.google)
                case 2: .oauth(.apple)
                default: try .email("portal-\(slot)@stress.example")
                }
            },
            destination: { slot in "portal-\(slot)@stress.example" },
            name: nil,
            totpCode: { slot in
                guard let secret = backend.totpSecret(for: "portal-\(slot)@stress.example") else {
                    throw DriverFailure("no TOTP secret enrolled for Portal slot \(slot)")
                }
                return try TOTP(secret: secret).code(at: clock.wallNow)
            })
    }

    /// The OTPLESS merchant's app id in the stress sandbox.
    static let otplessAppID = "STRESSAPP"

    /// OTPLESS: phone OTP on an explicitly chosen SMS channel for even slots, e-mail OTP for
    /// odd ones (default merchant: phone channels WhatsApp then SMS, auth type OTP, no SNA).
    ///
    /// Both shapes have exactly one delivery channel, so a failed delivery (the test's
    /// `failDelivery` on SMS or e-mail) fails the intent at once (`400 7103` / `7105`,
    /// `channelUnavailable`) and the driver starts again; no SmartAuth fallback can change the
    /// channel under the driver. Status pollers still run (the server asks for polling); they
    /// stop at the first poll that sees the delivery (3 s) or when the flow ends, and
    /// ``ClockDriver`` does not count them as flows (``StressWorld/backgroundSleepers``).
    static func otpless(_ world: StressWorld) -> StressLane {
        StressLane(
            id: .otpless,
            makeProvider: { _ in
                let provider = try OTPlessProvider(configuration: .sandbox(appID: StressLane.otplessAppID))
                world.track(provider)
                return provider
            },
            request: { slot in
                slot % 2 == 0
                    ? .phone(try StressLane.otplessPhone(slot), channel: .sms)
                    : try .email("otpless-\(slot)@stress.example")
            },
            destination: { slot in
                slot % 2 == 0 ? (try? StressLane.otplessPhone(slot).e164) ?? "" : "otpless-\(slot)@stress.example"
            },
            name: nil, totpCode: nil)
    }

    /// `+91 96xxxxxxxx`, distinct per slot below 100 000 000 and from the other lanes' numbers.
    static func otplessPhone(_ slot: Int) throws -> PhoneNumber {
        try PhoneNumber("+91 96" + String(format: "%08d", slot % 100_000_000))
    }

    /// `+91 97xxxxxxxx` (Dynamic's SMS needs a number with an ISO region), distinct per slot
    /// below 100 000 000 and never a Truecaller lane number.
    static func dynamicPhone(_ slot: Int) throws -> PhoneNumber {
        try PhoneNumber("+91 97" + String(format: "%08d", slot % 100_000_000))
    }

    /// `+91 98xxxxxxxx`, distinct per slot below 100 000 000.
    static func indianPhone(_ slot: Int) throws -> PhoneNumber {
        try PhoneNumber("+91 98" + String(format: "%08d", slot % 100_000_000))
    }
}

/// Something the test driver itself found wrong (never an `AuthError`, so it cannot be
/// mistaken for a typed outcome of the library).
struct DriverFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
