import Foundation
import MultiAuth
import MultiAuthLocking
import MultiAuthSandbox

/// What the person (or the automatic demo) does at a code prompt.
enum DemoAction: Equatable {
    case code(String)
    case resend
    case wait
    /// The person asked the demo to act as the authenticator app (TOTP prompt only).
    case computeCode
    case quit
}

/// The person typed `quit` (or input ended): the demo cancels the flow in progress, skips the
/// rest and prints the summary.
struct DemoQuit: Error {}

/// Reads the person's input in `--interactive` mode; answers automatically otherwise.
///
/// Every prompt accepts `quit` (and end of input) and throws ``DemoQuit``; an answer the
/// library refuses is explained and asked again, never read as something else.
///
/// In `--interactive` mode the sandbox's manual clock follows the real time that passes while
/// the person types (``follow(_:)``), so codes expire and TOTP steps advance as they would with
/// a real server, and an authenticator app on a phone agrees with the sandbox.
final class DemoConsole: Sendable {
    let interactive: Bool
    let json: Bool

    private struct State {
        /// The clock that follows the real time at the prompts, if any.
        var clock: ManualClock?
        /// When the last answer was read.
        var lastInput = ContinuousClock.now
    }

    private let state = Locked(State())

    init(interactive: Bool, json: Bool) {
        self.interactive = interactive
        self.json = json
    }

    /// Makes `clock` follow the real time that passes at the prompts (interactive mode only).
    func follow(_ clock: ManualClock) {
        guard interactive else { return }
        state.withLock { state in
            state.clock = clock
            state.lastInput = ContinuousClock.now
        }
    }

    /// Prints a demo line (an indented narrative line, or a JSON object in `--json` mode).
    func say(_ text: String, kind: String = "step") {
        if json {
            Terminal.out(Terminal.jsonLine(["type": kind, "text": text]))
        } else {
            Terminal.out("  \(text)")
        }
    }

    /// Asks for a line.
    /// - Throws: ``DemoQuit`` when the person types `quit` or input ends.
    func ask(_ prompt: String) throws -> String {
        Terminal.write("  \(prompt) ")
        let line = readLine()?.trimmingCharacters(in: .whitespacesAndNewlines)
        // A terminal echoes what the person typed; piped input does not, so echo it.
        if isatty(STDIN_FILENO) == 0 { Terminal.out(line ?? "") }
        moveClockWithRealTime()
        guard let line else {
            say("(end of input: quitting)")
            throw DemoQuit()
        }
        if ["quit", "exit"].contains(line.lowercased()) { throw DemoQuit() }
        return line
    }

    /// Advances the followed clock by the real time since the last answer.
    private func moveClockWithRealTime() {
        let (followed, elapsed): (ManualClock?, Duration) = state.withLock { state in
            let now = ContinuousClock.now
            defer { state.lastInput = now }
            return (state.clock, now - state.lastInput)
        }
        if let followed, elapsed > .zero { followed.advance(by: elapsed) }
    }

    /// Asks for an identity (or a name) until `parse` accepts it; offers `suggestion` as the
    /// default. Automatic mode parses the suggestion.
    /// - Throws: ``DemoQuit``; automatic mode rethrows `parse`'s error.
    func identity<Value>(_ label: String, suggestion: String, parse: (String) throws -> Value) throws -> Value {
        guard interactive else { return try parse(suggestion) }
        while true {
            let answer = try ask("\(label) [\(suggestion)] (or 'quit'):")
            do {
                return try parse(answer.isEmpty ? suggestion : answer)
            } catch let error as AuthError {
                say("✗ not a valid \(label): \(Self.sentence(error)) — try again")
            }
        }
    }

    /// Asks a yes/no question until the answer is one; empty means `defaultAnswer`. Automatic
    /// mode answers `automatic`.
    /// - Throws: ``DemoQuit``.
    func confirm(_ question: String, default defaultAnswer: Bool, automatic: Bool) throws -> Bool {
        guard interactive else { return automatic }
        while true {
            let answer = try ask("\(question) [\(defaultAnswer ? "Y/n" : "y/N")] (or 'quit'):").lowercased()
            switch answer {
            case "": return defaultAnswer
            case "y", "yes": return true
            case "n", "no": return false
            default: say("✗ please answer y or n")
            }
        }
    }

    /// The next action at a code prompt: typed in `--interactive` mode, else the delivered code.
    /// - Parameter totp: The prompt is a TOTP step (offers `code`; there is nothing to resend).
    /// - Throws: ``DemoQuit``.
    func action(delivered code: String?, totp digits: Int? = nil) throws -> DemoAction {
        guard interactive else { return code.map { .code($0) } ?? .quit }
        let prompt =
            if let digits {
                "TOTP code (\(digits) digits; 'code' to let the demo compute it, 'quit'):"
            } else {
                "code (or 'resend', 'wait' to let it expire, 'quit'):"
            }
        let line = try ask(prompt)
        switch line.lowercased() {
        case "resend" where digits == nil: return .resend
        case "wait" where digits == nil: return .wait
        case "code" where digits != nil: return .computeCode
        case "q": return .quit
        default: return .code(line)
        }
    }

    /// An error as a short sentence for the person (its message, else its code).
    static func sentence(_ error: AuthError) -> String {
        error.message.isEmpty ? error.code.rawValue : error.message
    }

    /// `count` and the noun, singular for one: `plural(1, "attempt")` is "1 attempt".
    static func plural(_ count: Int, _ noun: String, _ pluralNoun: String? = nil) -> String {
        "\(count) " + (count == 1 ? noun : (pluralNoun ?? noun + "s"))
    }
}
