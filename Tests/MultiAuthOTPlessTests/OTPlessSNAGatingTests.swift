import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthOTPless
import MultiAuthSandbox
import Testing

/// SNA only where it can work (Docs/Providers/OTPless.md, "Silent network auth"): it is asked
/// for only when the transport can send on the cellular bearer now; otherwise the code comes at
/// once, with no carrier hit and no SNA polling.
@Suite(.timeLimit(.minutes(10)))
struct OTPlessSNAGatingTests {
    func intentBody(_ world: OTPlessWorld) throws -> [String: JSONValue] {
        let request = try #require(world.requests(containing: "/transaction/intent/").last)
        let data = try #require(request.body)
        return try #require(try JSONDecoder().decode(JSONValue.self, from: data).objectValue)
    }

    @Test(arguments: ["plain transport", "cellular off"])
    func withoutACellularPathTheCodeComesAtOnce(_ variant: String) async throws {
        let world = try OTPlessWorld(merchant: OTPlessMerchant(phoneChannels: [.sms], silentAuthEnabled: true))
        let transport: any HTTPTransport
        if variant == "plain transport" {
            transport = world.plainTransport
        } else {
            world.cellularAvailable = false
            transport = world.transport
        }
        let provider = try world.provider()
        let context = AuthContext(transport: transport, time: world.time, flowID: FlowID.random())
        let challenge = try #require(try await provider.start(.phone(phone), context: context).challenge)
        provider.stopAllPolling()
        #expect(challenge.kind == .oneTimeCode(length: 6, channel: .sms, linkAlsoSent: false))
        let body = try intentBody(world)
        #expect(body["silentAuthEnabled"] == .bool(false))
        let appInfo = Contract.parse(Contract.parse(body["metadata"]?.stringValue ?? "")?["appInfo"]?.stringValue ?? "")
        #expect(appInfo?["isSilentAuthSupported"] == .string("false"))
        #expect(world.requests.allSatisfy { !$0.url.path.hasPrefix(OTPlessBackend.carrierPath) })
        #expect(world.requests(containing: "silent-auth-status").isEmpty)
        #expect(world.latest(phone.e164, channel: .sms)?.code != nil)
    }

    @Test func withACellularPathSNAIsAskedForAndTheCarrierIsHitOnTheBearer() async throws {
        let world = try OTPlessWorld(merchant: OTPlessMerchant(phoneChannels: [.sms], silentAuthEnabled: true))
        let provider = try world.provider()
        let context = world.context()
        let challenge = try #require(try await provider.start(.phone(phone), context: context).challenge)
        #expect(challenge.kind == .silentNetworkAuth)
        #expect(try intentBody(world)["silentAuthEnabled"] == .bool(true))
        let session = try #require(
            try await provider.respond(to: challenge, with: ChallengeAnswer(code: ""), context: context).session)
        #expect(session.user.phone == phone)
        let carrier = try #require(
            world.transport.exchanges.first { $0.request.url.path.hasPrefix(OTPlessBackend.carrierPath) })
        #expect(carrier.overCellular)
    }

    /// An SNA challenge answered through a transport without the cellular bearer (e.g. resumed
    /// in another process): no carrier hit; the failure is reported at once and SmartAuth's
    /// fallback code comes.
    @Test func anSNAChallengeWithoutTheBearerFallsBackWithoutACarrierHit() async throws {
        let world = try OTPlessWorld(merchant: OTPlessMerchant(phoneChannels: [.sms], silentAuthEnabled: true))
        let provider = try world.provider()
        let challenge = try #require(try await provider.start(.phone(phone), context: world.context()).challenge)
        let plain = AuthContext(transport: world.plainTransport, time: world.time, flowID: challenge.flowID)
        let next = try #require(
            try await provider.respond(to: challenge, with: ChallengeAnswer(code: ""), context: plain).challenge)
        provider.stopAllPolling()
        #expect(next.kind == .oneTimeCode(length: 6, channel: .sms, linkAlsoSent: false))
        #expect(world.requests.allSatisfy { !$0.url.path.hasPrefix(OTPlessBackend.carrierPath) })
        let lapse = try #require(world.requests(containing: "silent-auth-status").last)
        let meta = URLComponents(url: lapse.url, resolvingAgainstBaseURL: false)?.queryItems?.first {
            $0.name == "lapseMeta"
        }?.value
        #expect(
            Contract.parse(meta ?? "")
                == .object(["cause": .string("sdk_connection_error"), "brief": .string("no cellular data path")]))
    }

    @Test func anSNAOnlyMerchantWithoutACellularPathIsChannelUnavailable() async throws {
        let world = try OTPlessWorld(merchant: OTPlessMerchant(phoneChannels: [], silentAuthEnabled: true))
        world.cellularAvailable = false
        let error = await #expect(throws: AuthError.self) {
            _ = try await world.provider().start(.phone(phone), context: world.context())
        }
        #expect(error?.code == .channelUnavailable)
        #expect(error?.providerCode == "7160")
    }

    /// The sandbox's cellular transport: marks requests, follows redirects, can be switched off.
    @Test func theSandboxCellularTransportMarksFollowsAndSwitchesOff() async throws {
        struct Redirector: SandboxBackend {
            func handle(_ request: HTTPRequest, context: SandboxContext) async throws -> HTTPResponse {
                if request.url.path == "/start" { return HTTPResponse(status: 302, headers: ["Location": "/end?x=1"]) }
                return try .json(200, ["cellular": Sandbox.arrivedOverCellular(request)])
            }
        }
        let sandbox = Sandbox()
        sandbox.register(Redirector(), host: "carrier.sandbox.test")
        let transport = sandbox.cellularTransport
        let url = try #require(URL(string: "http://carrier.sandbox.test/start"))
        let viaCellular = try await transport.sendOverCellular(HTTPRequest(method: .get, url: url))
        #expect(try viaCellular.decodeJSON([String: Bool].self) == ["cellular": true])
        #expect(sandbox.requestLog.map(\.path) == ["/start", "/end"])
        let plain = try await transport.send(
            HTTPRequest(method: .get, url: url.deletingLastPathComponent().appending(path: "end")))
        #expect(try plain.decodeJSON([String: Bool].self) == ["cellular": false])
        transport.isCellularAvailable = false
        #expect(transport.availableCellularTransport == nil)
        await #expect(throws: AuthError.self) {
            _ = try await transport.sendOverCellular(HTTPRequest(method: .get, url: url))
        }
        let post = await #expect(throws: AuthError.self) {
            _ = try await sandbox.cellularTransport.sendOverCellular(HTTPRequest(method: .post, url: url))
        }
        #expect(post?.code == .unsupported)
    }
}
