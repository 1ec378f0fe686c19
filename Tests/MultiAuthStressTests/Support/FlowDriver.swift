import Foundation
import MultiAuth
import MultiAuthSandbox

/// How one flow ended.
enum FlowOutcome: Sendable {
    /// Signed in; the session the client returned.
    case signedIn(AuthSession)
    /// A typed error after the driver's bounded retries and restarts.
    case failed(AuthError)
    /// Anything else: an untyped error or a broken expectation of the driver (a test failure).
    case unexpected(String)
}

/// What one flow did, for the run's tallies.
struct FlowReport: Sendable {
    var slot: Int
    var provider: AuthProviderID
    var outcome: FlowOutcome = .unexpected("not run")
    /// Operations retried after a retryable error (network, 5xx, rate limit, storage).
    var retries = 0
    /// Whole flows started again (expired challenge, code never delivered, used grant, …).
    var restarts = 0
    /// Codes resent after a failed delivery.
    var resends = 0
    /// Deliberately wrong codes that were rejected as `invalidCode`.
    var wrongCodes = 0
    /// Why the flow was restarted, e.g. `["expired", "undelivered"]`.
    var restartReasons: [String] = []

    var session: AuthSession? { if case .signedIn(let s) = outcome { s } else { nil } }
}

/// Drives one sign-in the way a persistent app would: start, read the code or link from the
/// inbox (or compute the TOTP), answer, follow further challenges; retry a bounded number of
/// times on retryable errors (back-off slept on the manual clock), resend or start again when a
/// code never arrives or a challenge dies, and give up with the typed error after that.
struct FlowDriver {
    static let maxRetriesPerOperation = 4
    static let maxRestarts = 3
    /// A `retryAfter` longer than this is not waited for: the flow ends with `rateLimited`.
    static let longestWait: Duration = .seconds(120)

    let world: StressWorld
    let lane: StressLane
    let client: AuthClient
    let slot: Int
    /// Submit one wrong code before the right one (checks `invalidCode` under load).
    let wrongCodeFirst: Bool
    var report: FlowReport

    init(world: StressWorld, lane: StressLane, client: AuthClient, slot: Int, wrongCodeFirst: Bool) {
        self.world = world
        self.lane = lane
        self.client = client
        self.slot = slot
        self.wrongCodeFirst = wrongCodeFirst
        report = FlowReport(slot: slot, provider: lane.id)
    }

    private struct Restart: Error {
        let reason: String
    }

    mutating func run() async -> FlowReport {
        while true {
            do {
                report.outcome = .signedIn(try await attempt())
                return report
            } catch let restart as Restart {
                guard report.restarts < Self.maxRestarts else {
                    report.outcome = .unexpected("gave up after \(report.restarts) restarts (last: \(restart.reason))")
                    return report
                }
                report.restarts += 1
                report.restartReasons.append(restart.reason)
            } catch let error as AuthError {
                guard report.restarts < Self.maxRestarts, Self.startAgain(after: error) else {
                    report.outcome = .failed(error)
                    return report
                }
                report.restarts += 1
                report.restartReasons.append(error.code.rawValue)
            } catch {
                report.outcome = .unexpected(String(describing: error))
                return report
            }
        }
    }

    /// Errors after which an app offers "start again": the challenge or grant is gone, or
    /// (`channelUnavailable`, OTPLESS `7103`/`7105`) the only channel could not deliver.
    static func startAgain(after error: AuthError) -> Bool {
        [.expired, .attemptsExhausted, .unauthorized, .challengeNotPending, .cancelledByProvider, .channelUnavailable]
            .contains(error.code)
            || error.isRetryable
    }

    private mutating func attempt() async throws -> AuthSession {
        let request = try lane.request(slot)
        let lane = self.lane
        let client = self.client
        var step = try await retrying { try await client.signIn(with: lane.id, request) }
        var wrongSent = !wrongCodeFirst
        for _ in 0..<6 {
            switch step {
            case .signedIn(let session):
                return session
            case .challenge(let challenge):
                step = try await answer(challenge, wrongSent: &wrongSent)
            }
        }
        throw DriverFailure("\(lane.id) slot \(slot): still no session after 6 challenges")
    }

    private mutating func answer(_ challenge: Challenge, wrongSent: inout Bool) async throws -> SignInStep {
        let client = self.client
        let destination = lane.destination(slot)
        switch challenge.kind {
        case .oneTimeCode(_, let channel, _):
            guard let last = world.sandbox.inbox.messages(for: destination).last(where: { $0.channel == channel })
            else {
                throw DriverFailure("\(lane.id) slot \(slot): no message was sent to the destination")
            }
            guard last.status == .delivered, let code = last.code else {
                if try await client.provider(lane.id) is any ResendableProvider {
                    report.resends += 1
                    return .challenge(try await retrying { try await client.resend(challenge) })
                }
                throw Restart(reason: "undelivered")
            }
            return try await submit(code, to: challenge, wrongSent: &wrongSent)
        case .totp:
            guard let totpCode = lane.totpCode else {
                throw DriverFailure("\(lane.id): a TOTP step but no TOTP source")
            }
            return try await submit(try totpCode(slot), to: challenge, wrongSent: &wrongSent)
        case .magicLink:
            guard let last = world.sandbox.inbox.messages(for: destination).last else {
                throw DriverFailure("\(lane.id) slot \(slot): no magic link was sent")
            }
            guard last.status == .delivered, let link = last.link else { throw Restart(reason: "undelivered") }
            return try await redirect(link, resuming: challenge)
        case .oauthRedirect(let authorize):
            let sandbox = world.sandbox
            let redirectURL = try await retrying {
                try await Self.browse(authorize, loginHint: destination, sandbox: sandbox)
            }
            return try await redirect(redirectURL, resuming: challenge)
        case .silentNetworkAuth, .profileConsent, .passkey:
            throw DriverFailure("\(lane.id): the stress driver does not answer \(challenge.kind) yet")
        }
    }

    private mutating func submit(_ code: String, to challenge: Challenge, wrongSent: inout Bool) async throws
        -> SignInStep
    {
        let client = self.client
        let name = lane.name
        if !wrongSent {
            wrongSent = true
            let wrong = Self.wrongCode(code)
            do {
                let step = try await retrying {
                    try await client.submit(ChallengeAnswer(code: wrong, name: name), for: challenge)
                }
                throw DriverFailure("\(lane.id) slot \(slot): a wrong code was accepted: \(step)")
            } catch let error as AuthError where error.code == .invalidCode {
                report.wrongCodes += 1
            }
        }
        let current = await client.pendingChallenge(for: lane.id) ?? challenge
        return try await retrying { try await client.submit(ChallengeAnswer(code: code, name: name), for: current) }
    }

    private mutating func redirect(_ url: URL, resuming challenge: Challenge) async throws -> SignInStep {
        let client = self.client
        guard let step = try await retrying({ try await client.handleRedirect(url, resuming: challenge) }) else {
            throw DriverFailure("\(lane.id): no provider claimed its own redirect")
        }
        return step
    }

    /// The emulated browser: opens `authorize` (with a login hint) and returns the redirect
    /// the consent page sends. A 5xx page or a dropped connection is a retryable error.
    static func browse(_ authorize: URL, loginHint: String, sandbox: Sandbox) async throws -> URL {
        let url = URL(string: authorize.absoluteString + "&login_hint=\(loginHint)")!
        let response = try await sandbox.transport.send(HTTPRequest(method: .get, url: url))
        if let location = PortalBackend.redirectLocation(response) { return location }
        if response.status >= 500 { throw AuthError(.providerUnavailable, "browser: HTTP \(response.status)") }
        throw DriverFailure("the consent page answered HTTP \(response.status) without a redirect")
    }

    /// The code with its last digit changed.
    static func wrongCode(_ code: String) -> String {
        guard let digit = code.last?.wholeNumberValue else { return code + "0" }
        return String(code.dropLast()) + String((digit + 1) % 10)
    }

    /// Runs `operation`, retrying retryable `AuthError`s up to ``maxRetriesPerOperation`` times
    /// with a back-off of `retryAfter` (else 1, 4, 16, 64 s) slept on the manual clock.
    private mutating func retrying<T>(_ operation: () async throws -> T) async throws -> T {
        var attempt = 0
        while true {
            do {
                return try await operation()
            } catch let error as AuthError where error.isRetryable && attempt < Self.maxRetriesPerOperation {
                attempt += 1
                report.retries += 1
                let wait = error.retryAfter ?? .seconds(1 << (2 * (attempt - 1)))
                if wait > Self.longestWait { throw error }
                try await world.clock.sleep(for: wait)
            }
        }
    }
}
