import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthLocking
import MultiAuthSandbox

/// The client side of a ``SandboxServer`` in another process, for a test that drives the
/// server with an in-process ``/MultiAuthSandboxRuntime/Sandbox`` in front of it: the local
/// sandbox keeps the test's request log, fault plan (latency slept on its manual clock, drops,
/// forced statuses) and inbox; its backends are ``ForwardingBackend``s that send each request
/// over HTTP to the server, where the real backends answer (Docs/Emulator.md, "Proving the
/// server equivalent").
///
/// One link is one world: on its first request it resets the server to the local sandbox's
/// seed and the given settings; before each request it moves the server's clock and clock
/// offsets to the local ones (exactly, as `Duration` components); after each one it copies the
/// server's new inbox messages (no backend changes a message after sending it) and Portal TOTP
/// secrets into the local sandbox, so a harness reads codes where it always does. Delivery-failure rules of the local fault plan are not
/// sent (set them on the server).
///
/// Test support (`package`). Thread-safe: the bookkeeping is an actor; requests run
/// concurrently.
package final class ServerLink: Sendable {
    /// The server's base URL, e.g. `http://127.0.0.1:40123`.
    package let server: URL
    private let transport: any HTTPTransport
    private let local: Sandbox
    private let settingsBody: [String: JSONValue]
    private let state: State
    /// The world's settings (the seed is the local sandbox's).
    package let settings: EmulatorWorld.Settings
    /// The local sandbox in front of the server.
    package var sandbox: Sandbox { local }

    private actor State {
        var reset = false
        var syncedElapsed: Duration?
        var syncedOffsets: [String: Duration] = [:]
        var mirrored = 0
        var mirroredCount: Int { mirrored }
        var statuses: [Int: DeliveryStatus] = [:]

        func markReset() -> Bool {
            defer { reset = true }
            return !reset
        }
        func needsClock(_ elapsed: Duration) -> Bool { syncedElapsed != elapsed }
        func clockSynced(_ elapsed: Duration) { syncedElapsed = elapsed }
        func needsOffset(_ offset: Duration, host: String) -> Bool { syncedOffsets[host, default: .zero] != offset }
        func offsetSynced(_ offset: Duration, host: String) { syncedOffsets[host] = offset }
        func mirror(_ messages: [RemoteMessage], into inbox: Inbox) {
            for remote in messages.sorted(by: { $0.message.id < $1.message.id }) {
                let message = remote.message
                if message.id > mirrored {
                    guard message.id == mirrored + 1 else { continue }
                    inbox.record(
                        host: message.host, destination: message.destination, channel: message.channel,
                        code: message.code, link: message.link, status: message.status, at: message.sentAt)
                    mirrored = message.id
                    statuses[message.id] = message.status
                } else if statuses[message.id] != message.status {
                    inbox.updateStatus(of: message.id, to: message.status, at: remote.changedAt)
                    statuses[message.id] = message.status
                }
            }
        }
    }

    /// The Portal TOTP secrets by e-mail, as last fetched from the server.
    private let secrets = Locked([String: [UInt8]]())

    /// Creates a link for the world of `local` (its seed and manual clock).
    /// - Parameters:
    ///   - server: The server's base URL.
    ///   - transport: How to reach it (`URLSessionTransport` for a server in another process).
    ///   - local: The test's sandbox in front of the server.
    ///   - settings: The world's settings besides the seed (the OTPLESS merchant); the seed is
    ///     `local.seed`, the clock a manual one starting where `local.clock` started.
    package init(server: URL, transport: any HTTPTransport, local: Sandbox, settings: EmulatorWorld.Settings) {
        self.server = server
        self.transport = transport
        self.local = local
        let start = local.clock.wallNow.addingTimeInterval(-local.clock.now.offset.timeInterval)
        var settings = settings
        settings.seed = local.seed
        settings.clock = .manual(start: start)
        self.settings = settings
        let merchant = settings.otplessMerchant
        settingsBody = [
            "seed": .string(String(local.seed)),
            "clock": .object(["start": .number(start.timeIntervalSince1970)]),
            "otpless": .object([
                "phoneAuthType": .string(merchant.phoneAuthType.rawValue),
                "emailAuthType": .string(merchant.emailAuthType.rawValue),
                "fallbackDelaySeconds": .number(merchant.fallbackDelay.timeInterval),
                "phoneChannels": .array(merchant.phoneChannels.map { .string($0.rawValue) }),
                "silentAuthEnabled": .bool(merchant.silentAuthEnabled), "emailEnabled": .bool(merchant.emailEnabled),
            ]),
        ]
        state = State()
    }

    /// Registers a ``ForwardingBackend`` under every host a server world serves, in `local`.
    package func install(recording recorder: ExchangeRecorder? = nil, replay: ReplayLog? = nil) {
        for family in EmulatorWorld.families {
            for host in family.hosts {
                local.register(
                    ForwardingBackend(link: self, host: host, recorder: recorder, replay: replay), host: host)
            }
        }
    }

    /// The TOTP secret the server's Portal backend holds for `email`, as of the last request.
    package func totpSecret(for email: String) -> [UInt8]? {
        secrets.withLock { $0[email] }
    }

    /// Sends `request` (as the local sandbox's backend for `host` got it) to the server.
    /// - Throws: `AuthError(.network)` when the server cannot be reached or a control call
    ///   fails (the local sandbox logs it as a dropped connection), `CancellationError`.
    func forward(_ request: HTTPRequest, host: String, context: SandboxContext) async throws -> (
        response: HTTPResponse, elapsed: Duration, offset: Duration
    ) {
        if await state.markReset() {
            let answer = try await control(.post, "reset", .object(settingsBody))
            guard answer.status == 200 else {
                throw AuthError(.network, "the server refused the reset: HTTP \(answer.status)")
            }
        }
        let elapsed = local.clock.now.offset
        if await state.needsClock(elapsed) {
            let components = elapsed.components
            let answer = try await control(
                .put, "clock",
                .object([
                    "elapsed": .object([
                        "seconds": .number(Double(components.seconds)),
                        "attoseconds": .number(Double(components.attoseconds)),
                    ])
                ]))
            guard answer.status == 200 else {
                throw AuthError(.network, "the server refused to set its clock: HTTP \(answer.status)")
            }
            await state.clockSynced(elapsed)
        }
        let offset = context.faults.serverClockOffset(for: host)
        if await state.needsOffset(offset, host: host) {
            let components = offset.components
            let answer = try await control(
                .put, "faults/clock-offset",
                .object([
                    "host": .string(host),
                    "offset": .object([
                        "seconds": .number(Double(components.seconds)),
                        "attoseconds": .number(Double(components.attoseconds)),
                    ]),
                ]))
            guard answer.status == 200 else {
                throw AuthError(.network, "the server refused the clock offset: HTTP \(answer.status)")
            }
            await state.offsetSynced(offset, host: host)
        }
        let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
        let path = components?.percentEncodedPath ?? request.url.path
        let query = components?.percentEncodedQuery.map { "?" + $0 } ?? ""
        guard let url = URL(string: server.absoluteString + "/" + host + (path.isEmpty ? "/" : path) + query) else {
            throw AuthError(.network, "the request URL cannot be sent to the server")
        }
        var remote = request
        remote.url = url
        let response: HTTPResponse
        response = try await transport.send(remote)
        try await mirror(afterRequestTo: host)
        return (response, elapsed, offset)
    }

    private func mirror(afterRequestTo host: String) async throws {
        let after = await state.mirroredCount
        let answer = try await control(.get, "inbox", nil, query: "after=\(after)")
        guard answer.status == 200,
            let messages = try? JSONValue(parsing: answer.body, limits: .jwks)["messages"]?.arrayValue
        else { throw AuthError(.network, "the server's inbox did not answer") }
        let parsed = messages.compactMap(Self.message)
        guard parsed.count == messages.count else { throw AuthError(.network, "the server's inbox is malformed") }
        await state.mirror(parsed, into: local.inbox)
        if host == PortalBackend.defaultHost {
            let totp = try await control(.get, "totp", nil)
            guard totp.status == 200,
                let object = try? JSONValue(parsing: totp.body, limits: .jwks)["totp"]?.objectValue
            else { throw AuthError(.network, "the server's TOTP secrets did not answer") }
            var found: [String: [UInt8]] = [:]
            for (email, entry) in object {
                if let text = entry["secret"]?.stringValue, let secret = try? Base32.decode(text) {
                    found[email] = secret
                }
            }
            secrets.withLock { $0 = found }
        }
    }

    private func control(_ method: HTTPMethod, _ path: String, _ body: JSONValue?, query: String? = nil) async throws
        -> HTTPResponse
    {
        var url = server.appending(path: "_multiauth").appending(path: path)
        if let query, let withQuery = URL(string: url.absoluteString + "?" + query) { url = withQuery }
        let request: HTTPRequest
        if let body {
            request = try HTTPRequest.json(method, url, body: body)
        } else {
            request = HTTPRequest(method: method, url: url)
        }
        return try await transport.send(request)
    }

    /// A message of the server's inbox and when its status last changed.
    struct RemoteMessage: Sendable {
        let message: InboxMessage
        let changedAt: Date
    }

    private static func message(_ value: JSONValue) -> RemoteMessage? {
        guard let id = value["id"]?.int64Value.flatMap({ Int(exactly: $0) }), let host = value["host"]?.stringValue,
            let destination = value["destination"]?.stringValue, let channel = value["channel"]?.stringValue,
            let status = value["status"]?.stringValue,
            let sent = value["sentAtUnix"]?.doubleValue.map(Date.init(timeIntervalSince1970:))
        else { return nil }
        let message = InboxMessage(
            id: id, host: host, destination: destination, channel: DeliveryChannel(rawValue: channel),
            code: value["code"]?.stringValue, link: value["link"]?.stringValue.flatMap(URL.init(string:)),
            status: DeliveryStatus(rawValue: status), sentAt: sent)
        return RemoteMessage(message: message, changedAt: sent)
    }
}

/// A local sandbox backend that answers by sending the request to a ``SandboxServer`` through
/// a ``ServerLink`` (and records the exchange when given a recorder).
package struct ForwardingBackend: SandboxBackend {
    /// The link to the server.
    package let link: ServerLink
    /// The host this backend stands for.
    package let host: String
    /// Where exchanges are recorded, if anywhere.
    package let recorder: ExchangeRecorder?
    /// Where exchanges are kept for a replay, if anywhere.
    package let replay: ReplayLog?

    /// Forwards `request` and returns the server's answer.
    /// - Throws: `AuthError(.network)` when the server cannot be reached; `CancellationError`.
    package func handle(_ request: HTTPRequest, context: SandboxContext) async throws -> HTTPResponse {
        let (response, elapsed, offset) = try await link.forward(request, host: host, context: context)
        recorder?.record(host: host, request: request, response: response)
        replay?.append(
            ReplayLog.Entry(
                link: link, host: host, request: request, response: response, elapsed: elapsed, offset: offset,
                serverIndex: response.header(ScenarioGate.orderField).flatMap { Int($0) } ?? 0))
        return response
    }
}

/// A backend that records every exchange of the backend it wraps (the in-process side of an
/// equivalence run).
package struct RecordingBackend: SandboxBackend {
    /// The backend that answers.
    package let backend: any SandboxBackend
    /// Where exchanges go.
    package let recorder: ExchangeRecorder

    /// Creates a recording wrapper.
    package init(_ backend: any SandboxBackend, recorder: ExchangeRecorder) {
        self.backend = backend
        self.recorder = recorder
    }

    /// Answers with the wrapped backend and records the exchange.
    package func handle(_ request: HTTPRequest, context: SandboxContext) async throws -> HTTPResponse {
        let response = try await backend.handle(request, context: context)
        recorder.record(host: context.host, request: request, response: response)
        return response
    }
}
