import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthOTPless
import MultiAuthSandbox
import MultiAuthTestKeys

extension TestKeys {
    /// The one RSA key every OTPLESS test backend of this target signs with: a committed
    /// fixture key (no key is generated at test time).
    static var otpless: PrivateKey { rsaC }
}

/// The OTPLESS test world: the emulated OTPLESS backend in a shared ``Sandbox`` (its manual
/// clock, ``Inbox`` and ``FaultPlan``), reached through a `ScriptedTransport` that records every
/// request and forwards it to the sandbox, over the emulated cellular bearer when the adapter
/// asks for it (``cellularAvailable``, default on), so SNA flows are testable.
final class OTPlessWorld: Sendable {
    let sandbox = Sandbox()
    let backend: OTPlessBackend
    /// The cellular-capable, recording transport.
    let transport: ScriptedTransport

    init(merchant: OTPlessMerchant = OTPlessMerchant()) throws {
        backend = OTPlessBackend(merchant: merchant, signingKey: TestKeys.otpless)
        backend.install(in: sandbox)
        transport = ScriptedTransport(forwardingToCellular: sandbox.cellularTransport)
    }

    var clock: ManualClock { sandbox.clock }
    var time: TimeSource { sandbox.time }
    /// ``transport`` without the cellular capability (what `URLSessionTransport` is); its
    /// requests are among ``requests`` too.
    var plainTransport: any HTTPTransport { WithoutCellular(base: transport) }
    /// Whether the emulated device has a cellular data path.
    var cellularAvailable: Bool {
        get { transport.isCellularAvailable }
        set { transport.isCellularAvailable = newValue }
    }

    /// Makes every delivery on `channel` fail (the sandbox's fault plan).
    func failDelivery(on channel: DeliveryChannel) { sandbox.faults.failDelivery(on: channel) }
    /// Every message the backend sent, delivered or failed.
    var deliveries: [InboxMessage] { sandbox.inbox.allMessages }
    /// Every request the adapter sent through ``transport``, in order.
    var requests: [HTTPRequest] { transport.requests }
    var requestCount: Int { transport.exchanges.count }
    func requests(containing part: String) -> [HTTPRequest] { requests.filter { $0.url.path.contains(part) } }

    /// The newest delivered message to `destination` (on `channel` when given).
    func latest(_ destination: String, channel: DeliveryChannel? = nil) -> InboxMessage? {
        sandbox.inbox.latest(for: destination, channel: channel)
    }

    /// Answers the next request whose path starts with `pathPrefix` with `response` instead of
    /// the backend (a one-shot ``FaultPlan`` rule).
    func inject(_ pathPrefix: String, _ response: HTTPResponse) {
        sandbox.faults.add(
            .status(response.status, headers: response.headers, body: response.body), pathPrefix: pathPrefix,
            repeat: .once)
    }

    func context(flowID: FlowID? = FlowID.random(), events: @escaping @Sendable (AuthEvent.Kind) -> Void = { _ in })
        -> AuthContext
    {
        AuthContext(transport: transport, time: time, flowID: flowID, events: events)
    }

    func provider(_ configure: (inout OTPlessConfiguration) -> Void = { _ in }) throws -> OTPlessProvider {
        var configuration = OTPlessConfiguration.sandbox(appID: backend.merchant.appID)
        configure(&configuration)
        return try OTPlessProvider(configuration: configuration)
    }

    /// A transport's plain `send` alone: not a `CellularHTTPTransport`.
    private struct WithoutCellular: HTTPTransport {
        let base: any HTTPTransport
        func send(_ request: HTTPRequest) async throws -> HTTPResponse { try await base.send(request) }
    }
}

/// The OTPLESS endpoints' path prefixes, for ``OTPlessWorld/inject(_:_:)``.
enum OTPlessPath {
    static let statusPoll = "/v3/lp/user/transaction/status/"
    static let silentAuthStatus = "/v3/lp/user/transaction/silent-auth-status/"
    static let intent = "/v3/lp/user/transaction/intent/"
    static let refresh = "/v4/session/refresh"
}

let phone = try! PhoneNumber("+919876543210")
let email = try! EmailAddress("User.Name+OTP@Example.COM")
