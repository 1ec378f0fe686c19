import Foundation
import MultiAuth

/// `multiauth demo`: every built-in provider's main flows end to end through one `AuthClient`
/// against the embedded sandbox.
struct DemoCommand: Command {
    let name = "demo"
    let summary = "Run every provider's sign-in flow end to end against the embedded sandbox (no keys, no network)"
    let options: [CommandOption] = [
        .value("provider", "NAME", "run one flow: \(Self.flowNames.joined(separator: ", "))"),
        .flag(
            "interactive", "you type the identities, names and codes; a refused answer is",
            "asked again; 'quit' at any prompt ends the demo (see below)"),
        .flag("json", "the event stream and steps as JSON lines"),
        .value("store", "DIR", "keep sessions in DIR (FileSessionStore): a second run shows them restored"),
        .value("seed", "N", default: "1", "the sandbox seed: same seed, same codes"),
        .value(
            "time", "UNIX", "start the sandbox clock at this Unix time instead of now (with",
            "--seed, every code and token repeats)"),
        .flag("no-qr", "do not draw the enrollment QR code"),
    ]
    var help: String {
        """
        Usage: multiauth demo [--provider NAME] [--interactive] [--json] [--store DIR] [--no-qr]
                              [--seed N] [--time UNIX]
               multiauth demo help

        Runs the main sign-in flow of every built-in provider through one AuthClient against
        the embedded sandbox (emulated backends, an inbox that plays the phone and the mailbox,
        a manual clock that starts at the current time). For each flow it prints the steps, the
        live event stream (sequence numbers and timings), the code the sandbox delivered, and
        the final session with every token redacted; then a summary table.

        Flows:
          otpless     WhatsApp OTP that falls back to SMS (SmartAuth), then a magic link by e-mail
          dynamic     e-mail OTP (verificationUUID), one wrong code first, then the right one
          truecaller  phone OTP with verification states, TTL and a name to finish
          portal      Google OAuth → TOTP enrollment (otpauth QR) → TOTP code
          passkeys    a new account registers a passkey (the sandbox's software authenticator
                      plays the platform sheet), signs out, signs in with it (WebAuthn)

        \(optionsHelp)

        Interactive prompts:
          identity         an e-mail address or phone number; Enter takes the suggestion
          code             the code from the sandbox inbox (shown above the prompt), or
                           'resend', 'wait' (let it expire), 'quit'
          TOTP code        from an authenticator app that scanned the QR code, or 'code' to
                           let the demo compute it; the secret and the 'multiauth totp'
                           command that computes it are shown
          y/n              after a code expired or its attempts ran out: send a new code?
          quit             at any prompt: cancel the flow in progress and end the demo

        Examples:
          swift run multiauth demo
          swift run multiauth demo --provider portal
          swift run multiauth demo --interactive --provider dynamic
          swift run multiauth demo --seed 7 --time 1700000000 --json   # repeatable output
          swift run multiauth demo --store /tmp/multiauth-demo   # run twice

        \(ExitCode.helpText)
        """
    }

    static let flowNames = ["otpless", "dynamic", "truecaller", "portal", "passkeys"]

    /// The flows of each provider: (label for the summary, runner).
    static func flows(of name: String, showQR: Bool) -> [(String, @Sendable (DemoWorld) async throws -> AuthSession?)] {
        switch name {
        case "otpless":
            [
                ("WhatsApp → SMS OTP", { try await DemoScenarios.otplessWhatsApp($0) }),
                ("magic link", { try await DemoScenarios.otplessMagicLink($0) }),
            ]
        case "dynamic": [("e-mail OTP", { try await DemoScenarios.dynamicEmail($0) })]
        case "truecaller": [("phone OTP + name", { try await DemoScenarios.truecallerOTP($0) })]
        case "passkeys": [("passkey sign-up → sign-in", { try await DemoScenarios.passkeys($0) })]
        default: [("OAuth → TOTP", { try await DemoScenarios.portalTOTP($0, showQR: showQR) })]
        }
    }

    func run(_ arguments: Arguments) async throws -> Int32 {
        guard arguments.positionals.isEmpty else {
            throw Arguments.UsageError(description: "unexpected argument '\(arguments.positionals[0])'")
        }
        let selected = try Self.selectedProviders(arguments)
        let seed = UInt64(try arguments.integerOrDefault("seed", in: 0...Int(Int32.max)))
        let console = DemoConsole(
            interactive: arguments.flags.contains("interactive"), json: arguments.flags.contains("json"))
        let store = try Self.sessionStore(arguments)
        let start = try Self.startTime(arguments)
        let world = try DemoWorld(store: store, console: console, seed: seed, start: start)

        if !console.json {
            Self.printBanner(selected: selected, start: start)
        }
        let restored = await world.client.restoreSessions()
        await world.printer.catchUp()
        if !restored.sessions.isEmpty || !restored.unavailable.isEmpty {
            console.say("restored from \(arguments.options["store"] ?? "the store"): \(restored)", kind: "restored")
        }

        let outcomes = try await Self.runFlows(
            of: selected, in: world, console: console, showQR: !arguments.flags.contains("no-qr"))

        let state = await world.client.currentState()
        if console.json {
            Self.printSummaryJSON(outcomes)
        } else {
            Self.printSummaryTable(outcomes)
            Terminal.out("\nStore now holds: \(state)")
            if arguments.options["store"] != nil {
                Terminal.out("Run the same command again to see the sessions restored.")
            }
        }
        return outcomes.allSatisfy { $0.session != nil } ? ExitCode.ok : ExitCode.verificationFailed
    }

    // MARK: - options

    /// `--provider NAME` as a one-element list, or every flow's provider.
    private static func selectedProviders(_ arguments: Arguments) throws -> [String] {
        guard let name = arguments.options["provider"]?.lowercased() else { return flowNames }
        guard flowNames.contains(name) else {
            throw Arguments.UsageError(
                description: "unknown provider '\(name)'; choose one of \(flowNames.joined(separator: ", "))")
        }
        return [name]
    }

    /// `--store DIR` as a ``FileSessionStore``, or an in-memory store.
    private static func sessionStore(_ arguments: Arguments) throws -> any SessionStore {
        guard let directory = arguments.options["store"] else { return InMemorySessionStore() }
        guard !directory.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw Arguments.UsageError(
                description:
                    "--store needs a directory path (an empty one would silently mean the current directory)")
        }
        do {
            return try FileSessionStore(directory: URL(fileURLWithPath: directory, isDirectory: true))
        } catch {
            throw Arguments.UsageError(
                description:
                    "cannot use '\(directory)' as the session directory (it must be a writable folder, created if missing)"
            )
        }
    }

    /// `--time UNIX` as a date, or now.
    private static func startTime(_ arguments: Arguments) throws -> Date {
        guard let text = arguments.options["time"] else {
            // The one place that reads the wall clock: the sandbox starts at the real current
            // time, so the sessions it issues carry today's dates and do not look expired.
            return Date()
        }
        guard let seconds = Int64(text), seconds >= 0, seconds <= 253_402_300_799 else {
            throw Arguments.UsageError(
                description: "--time must be whole Unix seconds from 0 to 253402300799, got '\(text)'")
        }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    // MARK: - flows

    /// The two opening lines of the text output.
    private static func printBanner(selected: [String], start: Date) {
        let count = selected.reduce(0) { $0 + flows(of: $1, showQR: false).count }
        Terminal.out(
            "MultiAuth \(SemanticVersion.multiAuth) demo — \(DemoConsole.plural(count, "flow")) of "
                + "\(DemoConsole.plural(selected.count, "provider")) through one AuthClient, against the embedded sandbox"
        )
        Terminal.out(
            "(no keys, no network: emulated backends, a sandbox inbox, a manual clock that starts at \(start.formatted(.iso8601)))\n"
        )
    }

    /// Runs every flow of the `selected` providers in order; after a quit, the rest are
    /// recorded as skipped.
    private static func runFlows(
        of selected: [String], in world: DemoWorld, console: DemoConsole, showQR: Bool
    ) async throws -> [DemoOutcome] {
        var outcomes: [DemoOutcome] = []
        var quit = false
        for name in selected {
            for (flow, runner) in flows(of: name, showQR: showQR) {
                if quit {
                    outcomes.append(
                        DemoOutcome(
                            provider: AuthProviderID(name), flow: flow, session: nil, events: 0, milliseconds: 0,
                            note: "skipped (quit)"))
                    continue
                }
                outcomes.append(
                    try await runFlow(flow, of: name, runner: runner, in: world, console: console, quit: &quit))
            }
        }
        return outcomes
    }

    /// Runs one flow with its title, event count and timing; sets `quit` when the person quit.
    private static func runFlow(
        _ flow: String, of name: String, runner: @Sendable (DemoWorld) async throws -> AuthSession?,
        in world: DemoWorld, console: DemoConsole, quit: inout Bool
    ) async throws -> DemoOutcome {
        if !console.json {
            let title = "\(name) · \(flow) "
            Terminal.out("━━ " + title + String(repeating: "━", count: max(0, 70 - title.count)))
        }
        let before = world.printer.printedCount
        let start = ContinuousClock.now
        var session: AuthSession?
        var note = ""
        do {
            session = try await runner(world)
        } catch is DemoQuit {
            // The flow in progress was cancelled where the person quit; the rest is skipped.
            await world.client.cancelFlow(for: AuthProviderID(name))
            quit = true
            note = "quit"
            console.say("quit: the flow was cancelled" + (console.json ? "" : "; the remaining flows are skipped"))
        } catch let error as AuthError {
            note = "\(error.code): \(error.message)"
            console.say("✗ \(note)")
        }
        await world.printer.catchUp()
        if let session {
            console.say("✔ signed in, session persisted before it was returned:", kind: "session")
            console.say("  \(session)", kind: "session")
        }
        let elapsed = (ContinuousClock.now - start).timeInterval * 1000
        if !console.json { Terminal.out("") }
        return DemoOutcome(
            provider: AuthProviderID(name), flow: flow, session: session,
            events: world.printer.printedCount - before,
            milliseconds: elapsed, note: note)
    }

    // MARK: - summary

    /// `--json`: one summary line per flow.
    private static func printSummaryJSON(_ outcomes: [DemoOutcome]) {
        for outcome in outcomes {
            Terminal.out(
                Terminal.jsonLine([
                    "type": "summary", "provider": outcome.provider.rawValue, "flow": outcome.flow,
                    "signedIn": outcome.session != nil,
                    "events": outcome.events, "elapsedMs": outcome.milliseconds.rounded(), "note": outcome.note,
                ]))
        }
    }

    /// The summary table of the text output.
    private static func printSummaryTable(_ outcomes: [DemoOutcome]) {
        Terminal.out("Summary")
        Terminal.out(
            Terminal.table(
                outcomes.map { outcome in
                    [
                        "  \(outcome.provider)", outcome.flow,
                        outcome.session == nil ? "✗ not signed in" : "✔ signed in",
                        DemoConsole.plural(outcome.events, "event"),
                        String(format: "%.1f ms", outcome.milliseconds),
                        outcome.session?.expiresAt.map { "expires \($0.formatted(.iso8601))" } ?? outcome.note,
                    ]
                }, header: ["  provider", "flow", "result", "events", "time", "session"]))
    }
}
