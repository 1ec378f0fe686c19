import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthOTPless
import MultiAuthSandbox
import MultiAuthSandboxKit

/// The embedded sandbox: every built-in provider's emulated backend, one `AuthClient` over all
/// of them, and the event printer.
struct DemoWorld {
    let sandbox: Sandbox
    let client: AuthClient
    let printer: EventPrinter
    let console: DemoConsole
    let portalBackend: PortalBackend
    /// Plays the platform's passkey sheet for the passkeys flow (seeded like the sandbox).
    let authenticator: SoftwareAuthenticator

    /// The passkey reference provider's id.
    static let passkeysID: AuthProviderID = "passkeys"

    /// The OTPLESS merchant: WhatsApp then SMS for phones, magic links for e-mail.
    static let otplessAppID = "DEMOAPP"

    /// - Parameter start: Where the sandbox's manual clock starts: the real current time (read
    ///   once by the CLI, the one place allowed to), so sessions and codes carry today's dates;
    ///   `--time` fixes it for repeatable runs.
    init(store: any SessionStore, console: DemoConsole, seed: UInt64, start: Date) throws {
        // The standard sandbox: every backend on its `.test` hosts and the providers' `.sandbox()`
        // configurations; only OTPLESS gets the demo's merchant and channel order.
        let clock = ManualClock(start: start)
        var world = try StandardSandbox(
            seed: seed, time: .manual(clock),
            otplessMerchant: OTPlessMerchant(
                appID: Self.otplessAppID, phoneChannels: [.whatsapp, .sms], emailAuthType: .magicLink))
        console.follow(clock)
        world.otpless.preferredChannels = [.whatsapp, .sms]
        self.sandbox = world.sandbox
        self.portalBackend = world.portalBackend
        // The four vendors' providers, plus passkeys against the sandbox's relying party.
        world.sandbox.register(PasskeyBackend(), host: PasskeyProtocol.defaultHost)
        self.authenticator = SoftwareAuthenticator(seed: seed)
        self.client = try AuthClient(
            providers: try world.providers() + [PasskeyReferenceProvider(id: Self.passkeysID)], store: store,
            transport: world.sandbox.transport, time: world.sandbox.time)
        self.printer = EventPrinter(events: client.events, json: console.json)
        self.console = console
    }

    /// Prints what the sandbox "phone" or "mailbox" received for `destination`.
    func showDelivery(to destination: String, channel: DeliveryChannel? = nil) -> String? {
        guard let message = sandbox.inbox.latest(for: destination, channel: channel) else {
            console.say("📭 nothing delivered to \(destination) yet")
            return nil
        }
        if let code = message.code {
            console.say(
                "📱 \(message.channel) to \(destination): \"Your code is \(code)\"  (sandbox inbox, \(message.status))")
        } else if let link = message.link {
            console.say(
                "✉️  \(message.channel) to \(destination): sign-in link \(link.scheme ?? "")://…  (sandbox inbox, \(message.status))"
            )
        }
        return message.code
    }

    /// Answers code challenges until signed in, following the person's (or the automatic)
    /// actions: wrong codes, resends, waiting past expiry.
    /// - Parameters:
    ///   - wrongFirst: in automatic mode, submit a wrong code once first to show `codeRejected`.
    ///   - restart: starts the flow again (a new code) when the challenge expired or its
    ///     attempts ran out; in interactive mode only after the person agreed.
    /// - Throws: ``DemoQuit`` when the person quits (the flow is cancelled first), or an
    ///   `AuthError` the flow cannot go on from: in automatic mode every submit error except
    ///   `invalidCode`, `expired` and `attemptsExhausted` (the caller prints it once).
    func answerCodes(
        _ first: Challenge, destination: String, channel: DeliveryChannel?, name: PersonName? = nil,
        wrongFirst: Bool = false,
        restart: (() async throws -> Challenge?)? = nil
    ) async throws -> AuthSession? {
        var challenge = first
        var triedWrong = !wrongFirst
        while true {
            await printer.catchUp()
            let delivered = showDelivery(to: destination, channel: channel)
            var action: DemoAction
            do {
                action = try console.action(delivered: delivered)
            } catch let quit as DemoQuit {
                await client.cancelFlow(for: challenge.provider)
                await printer.catchUp()
                throw quit
            }
            if !triedWrong, case .code(let code) = action {
                triedWrong = true
                let wrong =
                    String(code.reversed()) == code
                    ? String(repeating: "0", count: code.count) : String(code.reversed())
                console.say("⌨️  typing a wrong code first: \(wrong)")
                action = .code(wrong)
            }
            switch action {
            case .quit, .computeCode:
                await client.cancelFlow(for: challenge.provider)
                await printer.catchUp()
                if console.interactive { throw DemoQuit() }
                return nil
            case .wait:
                switch try await waitPastExpiry(of: challenge, restart: restart) {
                case .next(let next): challenge = next
                case .finished(let session): return session
                }
            case .resend:
                do {
                    challenge = try await client.resend(challenge)
                    console.say("↻ a new code was sent")
                } catch let error as AuthError where [.expired, .unsupported].contains(error.code) {
                    guard let restart, let fresh = try await restart() else {
                        console.say("✗ resend refused: \(error.code)")
                        return nil
                    }
                    console.say(
                        "↻ \(error.code == .expired ? "the code expired" : "no resend here"): started a new sign-in")
                    challenge = fresh
                } catch let error as AuthError {
                    console.say(
                        "✗ resend refused: \(error.code)" + (error.retryAfter.map { ", retry after \($0)" } ?? ""))
                }
            case .code(let code):
                switch try await submit(code, name: name, for: challenge, restart: restart) {
                case .next(let next): challenge = next
                case .finished(let session): return session
                }
            }
        }
    }

    /// What one action of ``answerCodes(_:destination:channel:name:wrongFirst:restart:)`` leads
    /// to: the challenge to answer next, or the end of the flow (signed in, or `nil`).
    private enum CodeStep {
        case next(Challenge)
        case finished(AuthSession?)
    }

    /// The `wait` action: moves the sandbox clock past the challenge's expiry, then starts a new
    /// sign-in if the person agrees (cancelling the flow otherwise).
    private func waitPastExpiry(
        of challenge: Challenge, restart: (() async throws -> Challenge?)?
    ) async throws -> CodeStep {
        guard let expiresAt = challenge.expiresAt else {
            console.say("this challenge has no expiry")
            return .next(challenge)
        }
        let wait = max(0, expiresAt.timeIntervalSince(sandbox.clock.wallNow)) + 1
        sandbox.clock.advance(by: .interval(wait))
        console.say(
            "⏳ the sandbox clock moved \(DemoConsole.plural(Int(wait), "second")): the code has expired")
        // An expired code cannot be answered: ask about a new one now, never at the code
        // prompt (where a "y" would be submitted as a code).
        guard let restart,
            try console.confirm("The code has expired. Send a new code?", default: false, automatic: false)
        else {
            await client.cancelFlow(for: challenge.provider)
            await printer.catchUp()
            console.say("the flow has ended; no new code was sent")
            return .finished(nil)
        }
        guard let fresh = try await restart() else { return .finished(nil) }
        console.say("↻ started a new sign-in: a new code was sent")
        return .next(fresh)
    }

    /// Submits `code`: the session once signed in; after a refusal the same challenge, or a new
    /// sign-in the person agreed to when the code expired or its attempts ran out.
    /// - Throws: in automatic mode every submit error except `invalidCode`, `expired` and
    ///   `attemptsExhausted`.
    private func submit(
        _ code: String, name: PersonName?, for challenge: Challenge, restart: (() async throws -> Challenge?)?
    ) async throws -> CodeStep {
        console.say("→ submit(code: \(code))")
        do {
            let step = try await client.submit(ChallengeAnswer(code: code, name: name), for: challenge)
            switch step {
            case .signedIn(let session):
                await printer.catchUp()
                return .finished(session)
            case .challenge(let next):
                return .next(next)
            }
        } catch let error as AuthError {
            await printer.catchUp()
            // Automatic mode submits the delivered code again, so only a refused code
            // (the deliberate wrong one) can be followed by another try; any other error
            // (a store, network or server failure) ends the flow once, here, instead of
            // repeating the same submit forever.
            let goesOn: [AuthError.Code] = [.invalidCode, .expired, .attemptsExhausted]
            if !console.interactive, !goesOn.contains(error.code) {
                throw error
            }
            console.say(Self.explain(error))
            if [.expired, .attemptsExhausted].contains(error.code) {
                let why = error.code == .expired ? "The code has expired" : "No attempts are left for this code"
                guard console.interactive, let restart,
                    try console.confirm("\(why). Send a new code?", default: false, automatic: false)
                else {
                    console.say(
                        "the flow has ended; no new code was sent"
                            + (console.interactive ? "" : " (run the demo again to start over)"))
                    return .finished(nil)
                }
                guard let fresh = try await restart() else { return .finished(nil) }
                console.say("↻ started a new sign-in: a new code was sent")
                return .next(fresh)
            }
            return .next(challenge)
        }
    }

    /// One line for a refused code: what happened, and what the person can do.
    static func explain(_ error: AuthError) -> String {
        var line = "✗ \(error.code)" + (error.reason.map { " (\($0))" } ?? "") + ": \(DemoConsole.sentence(error))"
        if error.code == .invalidInput {
            line += " — no attempt was used; type the code again"
        } else if error.code != .attemptsExhausted, let remaining = error.attemptsRemaining {
            line += " — " + (remaining == 0 ? "no attempts left" : DemoConsole.plural(remaining, "attempt") + " left")
        }
        return line
    }
}
