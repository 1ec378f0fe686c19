import Foundation
import MultiAuth
import MultiAuthLocking
import MultiAuthSandboxRuntime

/// The emulated server of the ``ReferenceProtocol``: the backend MultiAuth's own tests, the
/// conformance kit's self-test and the CLI demo run against.
///
/// Register it with `sandbox.register(ReferenceBackend(), host: ReferenceProtocol.defaultHost)`.
/// Codes, flow ids, user ids and tokens come from the sandbox's seeded random source; time from
/// the server clock (``/MultiAuthSandboxRuntime/SandboxContext/time``, fault-plan offset applied). Each start is an
/// independent flow: a second start for the same identity does not invalidate the first.
///
/// Thread-safe (its tables are in one `Locked` state); handlers never suspend while holding it.
public final class ReferenceBackend: SandboxBackend, Sendable {
    private struct Flow: Sendable {
        let identity: String
        let isPhone: Bool
        var channel: String
        let state: String
        var code: String
        var issuedAt: Date
        var expiresAt: Date
        var attempts: Int
        var finished = false
    }

    private struct Grant: Sendable {
        let userID: String
        let identity: String
        let isPhone: Bool
        let accessToken: String
        let issuedAt: Date
    }

    /// Where a refresh token came from (the sandbox's record, for tests that check lineage).
    /// The flow id and the parent token are `Secret`s, so its renderings name the kind only.
    public enum RefreshTokenOrigin: Sendable, Hashable {
        /// Issued by a successful code or magic-link verification of the flow with this id.
        case signIn(flowId: Secret)
        /// Issued by rotating the given refresh token.
        case refresh(from: Secret)
    }

    private struct Rotation: Sendable {
        let child: String
        let at: Date
    }

    /// The backend's tables, only touched inside `state.withLock`.
    private struct State {
        var flows: [String: Flow] = [:]
        var users: [String: String] = [:]
        var grants: [String: Grant] = [:]
        var revokedAccessTokens: Set<String> = []
        var origins: [String: RefreshTokenOrigin] = [:]
        var rotations: [String: Rotation] = [:]
        var verifiedCodes: [String: Int] = [:]
        var reusedGrants = 0
    }

    private let state = Locked(State())
    private let reuseInterval: TimeInterval

    /// Creates a backend with no flows, users or tokens.
    /// - Parameter refreshReuseInterval: Seconds during which a rotated refresh token presented
    ///   again gets the same new tokens (``ReferenceProtocol/refreshReuseInterval``); `0`
    ///   rejects every reuse.
    public init(refreshReuseInterval: Int = ReferenceProtocol.refreshReuseInterval) {
        reuseInterval = TimeInterval(max(0, refreshReuseInterval))
    }

    /// Where `refreshToken` came from, or `nil` when this backend never issued it.
    public func origin(ofRefreshToken refreshToken: String) -> RefreshTokenOrigin? {
        state.withLock { $0.origins[refreshToken] }
    }

    /// Whether `refreshToken` would be accepted by a refresh now (issued, not rotated, revoked
    /// or signed out). A token inside its reuse interval is not live.
    public func isLive(refreshToken: String) -> Bool {
        state.withLock { $0.grants[refreshToken] != nil }
    }

    /// Revokes `refreshToken` on the server side (an administrator ending the session): the
    /// next refresh with it, or with a token it was rotated into, gets `401 invalid_grant`.
    public func revoke(refreshToken: String) {
        state.withLock { state in
            var token = refreshToken
            while true {
                if let grant = state.grants.removeValue(forKey: token) {
                    state.revokedAccessTokens.insert(grant.accessToken)
                }
                state.rotations[token] = nil
                guard let next = state.grants.keys.first(where: { state.origins[$0] == .refresh(from: Secret(token)) })
                else {
                    break
                }
                token = next
            }
        }
    }

    /// How many verifications (code or magic link) of the flow with id `flowId` succeeded:
    /// 0 or 1.
    public func successfulVerifications(ofFlow flowId: String) -> Int {
        state.withLock { $0.verifiedCodes[flowId, default: 0] }
    }

    /// How many verifications were refused with `409 already_used` (a grant spent twice).
    public var reusedGrantCount: Int {
        state.withLock { $0.reusedGrants }
    }

    /// Routes `request` to its endpoint (see ``ReferenceProtocol``); unknown paths get `404`
    /// `{"code":"not_found"}`, undecodable bodies `400` `{"code":"bad_request"}`.
    public func handle(_ request: HTTPRequest, context: SandboxContext) async throws -> HTTPResponse {
        guard request.method == .post else { return try Self.error(405, "method_not_allowed") }
        do {
            switch request.url.path {
            case "/otp/start": return try start(try request.decodeJSON(), context: context)
            case "/otp/verify": return try verify(try request.decodeJSON(), context: context)
            case "/otp/resend": return try resend(try request.decodeJSON(), context: context)
            case "/token/refresh": return try refresh(try request.decodeJSON(), context: context)
            case "/logout": return try logout(try request.decodeJSON())
            default: return try Self.error(404, "not_found")
            }
        } catch let error as AuthError where error.code == .invalidInput {
            return try Self.error(400, "bad_request")
        }
    }

    /// The number of users created so far.
    public var userCount: Int {
        state.withLock { $0.users.count }
    }

    private static func error(
        _ status: Int, _ code: String, attemptsRemaining: Int? = nil, retryAfter: Int? = nil
    ) throws -> HTTPResponse {
        var headers: [String: String] = [:]
        if let retryAfter { headers["Retry-After"] = String(retryAfter) }
        return try .json(
            status,
            ReferenceProtocol.ErrorResponse(code: code, attemptsRemaining: attemptsRemaining, retryAfter: retryAfter),
            headers: headers)
    }

    private static func isValidIdentity(_ identity: String, phone: Bool) -> Bool {
        if phone {
            let digits = identity.dropFirst()
            return identity.hasPrefix("+") && (8...15).contains(digits.count) && digits.allSatisfy(\.isASCIIDigit)
        }
        let parts = identity.split(separator: "@", omittingEmptySubsequences: false)
        return parts.count == 2 && !parts[0].isEmpty && parts[1].contains(".") && identity == identity.lowercased()
    }

    private func start(_ body: ReferenceProtocol.StartRequest, context: SandboxContext) throws -> HTTPResponse {
        let identity = body.identity.reveal()
        let isPhone = identity.hasPrefix("+")
        guard Self.isValidIdentity(identity, phone: isPhone) else {
            return try Self.error(400, "invalid_identity")
        }
        let allowed = isPhone ? ["sms", "whatsapp"] : ["email"]
        guard allowed.contains(body.channel) else { return try Self.error(400, "unsupported_channel") }
        var channel = body.channel
        var fallbackFrom: String?
        let code = context.random.digits(ReferenceProtocol.codeLength)
        var message = deliver(code: code, state: body.state.reveal(), to: identity, channel: channel, context: context)
        if message.status == .failed, body.allowFallback, channel == "whatsapp" {
            fallbackFrom = channel
            channel = "sms"
            message = deliver(code: code, state: body.state.reveal(), to: identity, channel: channel, context: context)
        }
        guard message.status != .failed else { return try Self.error(422, "channel_unavailable") }
        let now = context.time.now
        let flowID = "flow_" + context.random.hex(bytes: 12)
        let flow = Flow(
            identity: identity, isPhone: isPhone, channel: channel, state: body.state.reveal(), code: code,
            issuedAt: now,
            expiresAt: now.addingTimeInterval(TimeInterval(ReferenceProtocol.challengeTTL)),
            attempts: ReferenceProtocol.maximumAttempts)
        state.withLock { $0.flows[flowID] = flow }
        return try .json(200, challengeResponse(flowID, flow, fallbackFrom: fallbackFrom))
    }

    private func deliver(
        code: String, state: String, to identity: String, channel: String, context: SandboxContext
    ) -> InboxMessage {
        var link = URLComponents()
        link.scheme = ReferenceProtocol.redirectScheme
        link.host = "callback"
        link.queryItems = [URLQueryItem(name: "state", value: state), URLQueryItem(name: "code", value: code)]
        return context.deliver(code: code, link: link.url, to: identity, channel: DeliveryChannel(rawValue: channel))
    }

    private func challengeResponse(_ flowID: String, _ flow: Flow, fallbackFrom: String?)
        -> ReferenceProtocol.ChallengeResponse
    {
        ReferenceProtocol.ChallengeResponse(
            flowId: Secret(flowID), length: ReferenceProtocol.codeLength, expiresIn: ReferenceProtocol.challengeTTL,
            expiresAt: flow.expiresAt, resendAfter: ReferenceProtocol.resendAfter, attempts: flow.attempts,
            channel: flow.channel, fallbackFrom: fallbackFrom)
    }

    private func verify(_ body: ReferenceProtocol.VerifyRequest, context: SandboxContext) throws -> HTTPResponse {
        let now = context.time.now
        let flowID = body.flowId.reveal()
        enum Outcome {
            case refused(status: Int, code: String)
            case wrongCode(attemptsRemaining: Int)
            case verified(Flow, userID: String)
        }
        let outcome = state.withLock { state -> Outcome in
            guard var flow = state.flows[flowID] else { return .refused(status: 404, code: "unknown_flow") }
            if flow.finished {
                state.reusedGrants += 1
                return .refused(status: 409, code: "already_used")
            }
            if now >= flow.expiresAt { return .refused(status: 410, code: "expired") }
            if flow.attempts <= 0 { return .refused(status: 403, code: "attempts_exhausted") }
            guard body.code == Secret(flow.code) else {
                flow.attempts -= 1
                state.flows[flowID] = flow
                return .wrongCode(attemptsRemaining: flow.attempts)
            }
            flow.finished = true
            state.flows[flowID] = flow
            state.verifiedCodes[flowID, default: 0] += 1
            let userID: String
            if let existing = state.users[flow.identity] {
                userID = existing
            } else {
                userID = "u\(state.users.count + 1)"
                state.users[flow.identity] = userID
            }
            return .verified(flow, userID: userID)
        }
        let flow: Flow
        let userID: String
        switch outcome {
        case .refused(let status, let code):
            return try Self.error(status, code)
        case .wrongCode(let attemptsRemaining):
            if attemptsRemaining == 0 { return try Self.error(403, "attempts_exhausted") }
            return try Self.error(401, "invalid_code", attemptsRemaining: attemptsRemaining)
        case .verified(let verified, let id):
            (flow, userID) = (verified, id)
        }
        return try .json(
            200,
            issueTokens(
                userID: userID, identity: flow.identity, isPhone: flow.isPhone, origin: .signIn(flowId: body.flowId),
                context: context))
    }

    private func issueTokens(
        userID: String, identity: String, isPhone: Bool, origin: RefreshTokenOrigin, context: SandboxContext
    ) -> ReferenceProtocol.TokenResponse {
        let access = "at_" + context.random.hex(bytes: 16)
        let refresh = "rt_" + context.random.hex(bytes: 16)
        let now = context.time.now
        let grant = Grant(userID: userID, identity: identity, isPhone: isPhone, accessToken: access, issuedAt: now)
        state.withLock { state in
            state.grants[refresh] = grant
            state.origins[refresh] = origin
        }
        return tokenResponse(refresh, grant, now: now)
    }

    private func tokenResponse(_ refresh: String, _ grant: Grant, now: Date) -> ReferenceProtocol.TokenResponse {
        let expiresAt = grant.issuedAt.addingTimeInterval(TimeInterval(ReferenceProtocol.accessTokenTTL))
        return ReferenceProtocol.TokenResponse(
            accessToken: Secret(grant.accessToken), refreshToken: Secret(refresh),
            expiresIn: max(0, Int(expiresAt.timeIntervalSince(now))),
            expiresAt: expiresAt,
            user: ReferenceProtocol.User(
                id: grant.userID, email: grant.isPhone ? nil : try? EmailAddress(grant.identity),
                phone: grant.isPhone ? try? PhoneNumber(grant.identity) : nil))
    }

    private func resend(_ body: ReferenceProtocol.ResendRequest, context: SandboxContext) throws -> HTTPResponse {
        let now = context.time.now
        let flowID = body.flowId.reveal()
        enum Outcome {
            case refused(status: Int, code: String)
            case rateLimited(availableAt: Date)
            case due(Flow)
        }
        let outcome = state.withLock { state -> Outcome in
            guard let flow = state.flows[flowID], !flow.finished else {
                return .refused(status: 404, code: "unknown_flow")
            }
            if now >= flow.expiresAt { return .refused(status: 410, code: "expired") }
            let available = flow.issuedAt.addingTimeInterval(TimeInterval(ReferenceProtocol.resendAfter))
            if now < available { return .rateLimited(availableAt: available) }
            return .due(flow)
        }
        var flow: Flow
        switch outcome {
        case .refused(let status, let code):
            return try Self.error(status, code)
        case .rateLimited(let available):
            let wait = max(1, Int(available.timeIntervalSince(now).rounded(.up)))
            return try Self.error(429, "rate_limited", retryAfter: wait)
        case .due(let due):
            flow = due
        }
        var code = context.random.digits(ReferenceProtocol.codeLength)
        while code == flow.code { code = context.random.digits(ReferenceProtocol.codeLength) }
        let channel = body.channel ?? flow.channel
        let allowed = flow.isPhone ? ["sms", "whatsapp"] : ["email"]
        guard allowed.contains(channel) else { return try Self.error(400, "unsupported_channel") }
        let message = deliver(code: code, state: flow.state, to: flow.identity, channel: channel, context: context)
        guard message.status != .failed else { return try Self.error(422, "channel_unavailable") }
        flow.code = code
        flow.channel = channel
        flow.issuedAt = now
        flow.expiresAt = now.addingTimeInterval(TimeInterval(ReferenceProtocol.challengeTTL))
        state.withLock { [flow] in $0.flows[flowID] = flow }
        return try .json(200, challengeResponse(flowID, flow, fallbackFrom: nil))
    }

    private func refresh(_ body: ReferenceProtocol.RefreshRequest, context: SandboxContext) throws -> HTTPResponse {
        let now = context.time.now
        let access = "at_" + context.random.hex(bytes: 16)
        let refresh = "rt_" + context.random.hex(bytes: 16)
        // One locked step: rotating the token and recording the rotation, so a concurrent
        // request with the same token sees either the live grant or the rotation.
        let presented = body.refreshToken.reveal()
        let issued = state.withLock { state -> (refreshToken: String, grant: Grant)? in
            guard let grant = state.grants.removeValue(forKey: presented) else {
                // Presented again within the reuse interval: the same new tokens, while live.
                if let rotation = state.rotations[presented],
                    now.timeIntervalSince(rotation.at) < reuseInterval,
                    let child = state.grants[rotation.child]
                {
                    return (rotation.child, child)
                }
                return nil
            }
            state.revokedAccessTokens.insert(grant.accessToken)
            let child = Grant(
                userID: grant.userID, identity: grant.identity, isPhone: grant.isPhone, accessToken: access,
                issuedAt: now)
            state.grants[refresh] = child
            state.origins[refresh] = .refresh(from: body.refreshToken)
            state.rotations[presented] = Rotation(child: refresh, at: now)
            return (refresh, child)
        }
        guard let issued else { return try Self.error(401, "invalid_grant") }
        return try .json(200, tokenResponse(issued.refreshToken, issued.grant, now: now))
    }

    private func logout(_ body: ReferenceProtocol.LogoutRequest) throws -> HTTPResponse {
        let presented = body.refreshToken.reveal()
        return try state.withLock { state in
            state.rotations[presented] = nil
            guard let grant = state.grants.removeValue(forKey: presented) else {
                return try Self.error(401, "invalid_token")
            }
            state.revokedAccessTokens.insert(grant.accessToken)
            return HTTPResponse(status: 204)
        }
    }
}
