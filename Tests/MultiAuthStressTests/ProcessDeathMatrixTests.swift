import Foundation
import MultiAuth
import MultiAuthDynamic
import MultiAuthOTPless
import MultiAuthPortal
import MultiAuthSandbox
import MultiAuthTruecaller
import Testing

/// The process "dies" between steps of a flow: the app encodes its pending `Challenge` with
/// `JSONEncoder.multiAuth`, the `AuthClient` (and its provider) is dropped, and a new client
/// with a fresh provider, the same store and the same sandbox decodes the challenge and goes
/// on. For every provider's flow and every step boundary (each boundary alone, then all of them
/// in one run) the flow must still complete, store exactly one session, and a client started
/// after the last step must restore it.
@Suite(.timeLimit(.minutes(10)))
struct ProcessDeathMatrixTests {
    enum Step: String, Sendable {
        case start, resend, submitWrong, submit, followLink, browse, redirect
    }

    struct Scenario: Sendable, CustomStringConvertible {
        let name: String
        let provider: AuthProviderID
        /// Slots `slotModulus * n + slotResidue` give this scenario's kind of request.
        let slotModulus: Int
        let slotResidue: Int
        let steps: [Step]
        var description: String { name }
    }

    static let scenarios: [Scenario] = [
        Scenario(
            name: "Dynamic e-mail OTP", provider: .dynamic, slotModulus: 3, slotResidue: 0, steps: [.start, .submit]),
        Scenario(
            name: "Dynamic e-mail OTP, resend", provider: .dynamic, slotModulus: 3, slotResidue: 0,
            steps: [.start, .resend, .submit]),
        Scenario(
            name: "Dynamic e-mail OTP, wrong code first", provider: .dynamic, slotModulus: 3, slotResidue: 1,
            steps: [.start, .submitWrong, .submit]),
        Scenario(
            name: "Dynamic SMS OTP", provider: .dynamic, slotModulus: 3, slotResidue: 2, steps: [.start, .submit]),
        Scenario(
            name: "Truecaller OTP", provider: .truecaller, slotModulus: 1, slotResidue: 0, steps: [.start, .submit]),
        Scenario(
            name: "Truecaller OTP, wrong code first", provider: .truecaller, slotModulus: 1, slotResidue: 0,
            steps: [.start, .submitWrong, .submit]),
        Scenario(
            name: "Portal magic link → TOTP", provider: .portal, slotModulus: 4, slotResidue: 1,
            steps: [.start, .followLink, .submit]),
        Scenario(
            name: "Portal Google OAuth → TOTP", provider: .portal, slotModulus: 4, slotResidue: 0,
            steps: [.start, .browse, .redirect, .submit]),
        Scenario(
            name: "Portal Apple OAuth → wrong TOTP → TOTP", provider: .portal, slotModulus: 4, slotResidue: 2,
            steps: [.start, .browse, .redirect, .submitWrong, .submit]),
        Scenario(
            name: "OTPLESS phone OTP", provider: .otpless, slotModulus: 2, slotResidue: 0, steps: [.start, .submit]),
    ]

    /// Where a run dies: after step `i` for each `i` in the set (`steps.count - 1` is "after
    /// the last step", checked by restoring the session in a new client).
    static func deathPlans(for scenario: Scenario) -> [Set<Int>] {
        let boundaries = Array(0..<scenario.steps.count)
        return boundaries.map { [$0] } + [Set(boundaries)]
    }

    @Test(arguments: scenarios)
    func everyStepBoundarySurvivesAProcessDeath(_ scenario: Scenario) async throws {
        let world = try StressWorld(seed: 20)
        let lane = world.lane(scenario.provider)
        for (run, deaths) in Self.deathPlans(for: scenario).enumerated() {
            let slot = scenario.slotModulus * run + scenario.slotResidue
            try await runFlow(scenario, lane: lane, world: world, slot: slot, deaths: deaths)
        }
    }

    func makeClient(_ lane: StressLane, slot: Int, store: LedgerStore, world: StressWorld) throws -> AuthClient {
        try world.sandbox.makeClient(providers: [try lane.makeProvider(slot)], store: store)
    }

    func runFlow(_ scenario: Scenario, lane: StressLane, world: StressWorld, slot: Int, deaths: Set<Int>) async throws {
        let label = "\(scenario.name), dying after steps \(deaths.sorted())"
        let store = LedgerStore()
        var client: AuthClient? = try makeClient(lane, slot: slot, store: store, world: world)
        var challenge: Challenge?
        var redirect: URL?
        var session: AuthSession?
        let destination = lane.destination(slot)
        var incarnations = 1

        for (index, step) in scenario.steps.enumerated() {
            var saved: Data?
            do {  // `current` lives only for this step, so dropping `client` below releases it
                let current = try #require(client)
                switch step {
                case .start:
                    let result = try await current.signIn(with: lane.id, try lane.request(slot))
                    let first = try #require(result.challenge, "\(label): start gives a challenge")
                    challenge = first
                case .resend:
                    challenge = try await current.resend(try #require(challenge))
                case .submitWrong, .submit:
                    let pending = try #require(challenge)
                    let code: String
                    if case .totp = pending.kind {
                        let totpCode = try #require(lane.totpCode)
                        code = try totpCode(slot)
                    } else {
                        code = try #require(
                            world.sandbox.inbox.latest(for: destination)?.code, "\(label): a delivered code")
                    }
                    let answer = ChallengeAnswer(
                        code: step == .submit ? code : FlowDriver.wrongCode(code), name: lane.name)
                    if step == .submitWrong {
                        do {
                            let step = try await current.submit(answer, for: pending)
                            Issue.record("\(label): a wrong code was accepted: \(step)")
                        } catch let error as AuthError {
                            #expect(error.code == .invalidCode, "\(label): a wrong code is invalidCode, got \(error)")
                        }
                    } else {
                        switch try await current.submit(answer, for: pending) {
                        case .challenge(let next): challenge = next
                        case .signedIn(let signedIn): session = signedIn
                        }
                    }
                case .followLink:
                    let link = try #require(
                        world.sandbox.inbox.latest(for: destination)?.link, "\(label): a delivered link")
                    let step = try #require(
                        try await current.handleRedirect(link, resuming: challenge), "\(label): claimed")
                    if case .challenge(let next) = step { challenge = next } else { session = step.session }
                case .browse:
                    guard case .oauthRedirect(let authorize)? = challenge?.kind else {
                        Issue.record(
                            "\(label): expected an OAuth challenge, got \(String(describing: challenge?.kind))")
                        return
                    }
                    redirect = try await FlowDriver.browse(authorize, loginHint: destination, sandbox: world.sandbox)
                case .redirect:
                    let url = try #require(redirect)
                    let step = try #require(
                        try await current.handleRedirect(url, resuming: challenge), "\(label): claimed")
                    if case .challenge(let next) = step { challenge = next } else { session = step.session }
                }

                // The process dies: what the app persisted is the encoded challenge (the newest
                // the client knows, with attempts used) and the redirect URL the OS will deliver.
                if deaths.contains(index) {
                    saved = try JSONEncoder.multiAuth.encode(await current.pendingChallenge(for: lane.id) ?? challenge)
                }
            }
            guard let saved else { continue }
            let savedRedirect = redirect?.absoluteString
            weak let dead = client
            client = nil
            #expect(dead == nil, "\(label): the dropped client is released")
            client = try makeClient(lane, slot: slot, store: store, world: world)
            incarnations += 1
            challenge = try JSONDecoder.multiAuth.decode(Challenge?.self, from: saved)
            redirect = savedRedirect.flatMap(URL.init(string:))
        }

        let signedIn = try #require(session, "\(label): the flow completes")
        #expect(try await store.load(for: lane.id) == signedIn, "\(label): the stored session is the returned one")
        #expect(await store.saves(for: lane.id).count == 1, "\(label): saved exactly once")
        #expect(incarnations == deaths.count + 1)
        let restored = await (try makeClient(lane, slot: slot, store: store, world: world)).restoreSessions()
        #expect(restored.sessions[lane.id]?.session == signedIn, "\(label): a new process restores the session")
    }

    /// A redirect that arrives in a new process without the saved challenge is refused with a
    /// typed error (no session), and with it the same redirect completes.
    @Test func aRedirectWithoutTheSavedChallengeIsATypedError() async throws {
        let world = try StressWorld(seed: 21)
        let lane = world.lane(.portal)
        let slot = 1
        let store = LedgerStore()
        let first = try makeClient(lane, slot: slot, store: store, world: world)
        let challenge = try #require(try await first.signIn(with: .portal, try lane.request(slot)).challenge)
        let link = try #require(world.sandbox.inbox.latest(for: lane.destination(slot))?.link)
        let second = try makeClient(lane, slot: slot, store: store, world: world)
        let error = await #expect(throws: AuthError.self) { try await second.handleRedirect(link) }
        #expect(error?.code == .challengeNotPending)
        let step = try #require(try await second.handleRedirect(link, resuming: challenge))
        guard case .totp = step.challenge?.kind else {
            Issue.record("expected the TOTP step, got \(step)")
            return
        }
        #expect(await store.saves.isEmpty)
    }
}
