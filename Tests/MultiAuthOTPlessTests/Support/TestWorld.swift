import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthOTPless
import MultiAuthSandbox
import MultiAuthTestKeys

/// A delivered message in the in-test inbox.
struct Delivery: Sendable {
    let destination: String
    let channel: DeliveryChannel
    let code: String?
    let link: URL?
    let delivered: Bool
}

extension TestKeys {
    /// The one RSA key every OTPLESS test backend of this target signs with: a committed
    /// fixture key (no key is generated at test time).
    static var otpless: PrivateKey { rsaC }
}

/// An in-test world: the emulated OTPLESS backend behind an in-process transport that logs
/// requests and can answer the next matching request with an injected response, a manual
/// clock, and an inbox whose channels can be made to fail. The transport can send on an
/// emulated cellular bearer (``cellularAvailable``, default on) so SNA flows are testable.
final class TestWorld: @unchecked Sendable {
    let clock = ManualClock()
    let backend: OTPlessBackend
    private let lock = NSLock()
    private var _deliveries: [Delivery] = []
    private var _failing: Set<DeliveryChannel> = []
    private var _requests: [HTTPRequest] = []
    private var _injected: [(pathPart: String, response: HTTPResponse)] = []
    private var _cellularAvailable = true

    init(merchant: OTPlessMerchant = OTPlessMerchant()) throws {
        backend = OTPlessBackend(merchant: merchant, signingKey: TestKeys.otpless)
    }

    var time: TimeSource { clock.timeSource }
    /// The cellular-capable transport (a `CellularHTTPTransport`).
    var transport: WorldTransport { WorldTransport(world: self) }
    /// A transport without the cellular capability (what `URLSessionTransport` is).
    var plainTransport: PlainWorldTransport { PlainWorldTransport(world: self) }
    /// Whether the emulated device has a cellular data path.
    var cellularAvailable: Bool {
        get { lock.withLock { _cellularAvailable } }
        set { lock.withLock { _cellularAvailable = newValue } }
    }

    func failDelivery(on channel: DeliveryChannel) { lock.withLock { _ = _failing.insert(channel) } }
    var deliveries: [Delivery] { lock.withLock { _deliveries } }
    var requests: [HTTPRequest] { lock.withLock { _requests } }
    var requestCount: Int { lock.withLock { _requests.count } }
    func requests(containing part: String) -> [HTTPRequest] { requests.filter { $0.url.path.contains(part) } }

    /// The newest delivered message to `destination` (on `channel` when given).
    func latest(_ destination: String, channel: DeliveryChannel? = nil) -> Delivery? {
        deliveries.last { $0.destination == destination && $0.delivered && (channel == nil || $0.channel == channel) }
    }

    /// Answers the next request whose path contains `pathPart` with `response`.
    func inject(_ pathPart: String, _ response: HTTPResponse) {
        lock.withLock { _injected.append((pathPart, response)) }
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

    func serve(_ request: HTTPRequest) throws -> HTTPResponse {
        let injected: HTTPResponse? = lock.withLock {
            _requests.append(request)
            guard let index = _injected.firstIndex(where: { request.url.path.contains($0.pathPart) }) else {
                return nil
            }
            return _injected.remove(at: index).response
        }
        if let injected { return injected }
        let environment = OTPlessBackend.Environment(
            now: clock.wallNow,
            digits: { count in String((0..<count).map { _ in Character(String(Int.random(in: 0...9))) }) },
            hex: { bytes in (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined() },
            deliver: { [self] code, link, destination, channel in
                lock.withLock {
                    let ok = !_failing.contains(channel)
                    _deliveries.append(
                        Delivery(destination: destination, channel: channel, code: code, link: link, delivered: ok))
                    return ok
                }
            })
        return backend.handle(request, environment: environment)
    }
}

/// The in-process transport of a ``TestWorld``, with the cellular capability.
struct WorldTransport: CellularHTTPTransport {
    let world: TestWorld
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try Task.checkCancellation()
        var plain = request
        plain.headers[SandboxCellularTransport.bearerHeader] = nil
        return try world.serve(plain)
    }
    var isCellularAvailable: Bool { world.cellularAvailable }
    func sendOverCellular(_ request: HTTPRequest) async throws -> HTTPResponse {
        try Task.checkCancellation()
        guard world.cellularAvailable else { throw AuthError(.network, "no cellular path (test)") }
        var marked = request
        marked.headers[SandboxCellularTransport.bearerHeader] = "cellular"
        return try world.serve(marked)
    }
}

/// The in-process transport of a ``TestWorld`` without the cellular capability.
struct PlainWorldTransport: HTTPTransport {
    let world: TestWorld
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try Task.checkCancellation()
        return try world.serve(request)
    }
}

let phone = try! PhoneNumber("+919876543210")
let email = try! EmailAddress("User.Name+OTP@Example.COM")
