import Foundation

/// What the person (or the automatic demo) does at a code prompt.
enum DemoAction: Equatable {
    case code(String)
    case resend
    case wait
    case quit
}

/// Reads the person's input in `--interactive` mode; answers automatically otherwise.
struct DemoConsole {
    let interactive: Bool
    let json: Bool

    /// Prints a demo line (an indented narrative line, or a JSON object in `--json` mode).
    func say(_ text: String, kind: String = "step") {
        if json {
            Terminal.out(Terminal.jsonLine(["type": kind, "text": text]))
        } else {
            Terminal.out("  \(text)")
        }
    }

    /// Asks for a line; `nil` at end of input.
    func ask(_ prompt: String) -> String? {
        Terminal.write("  \(prompt) ")
        let line = readLine()?.trimmingCharacters(in: .whitespacesAndNewlines)
        // A terminal echoes what the person typed; piped input does not, so echo it.
        if isatty(STDIN_FILENO) == 0 { Terminal.out(line ?? "") }
        return line
    }

    /// Asks for an identity, offering `suggestion` as the default.
    func identity(_ label: String, suggestion: String) -> String {
        guard interactive else { return suggestion }
        let answer = ask("\(label) [\(suggestion)]:") ?? ""
        return answer.isEmpty ? suggestion : answer
    }

    /// The next action at a code prompt: typed in `--interactive` mode, else the delivered code.
    func action(delivered code: String?) -> DemoAction {
        guard interactive else { return code.map { .code($0) } ?? .quit }
        guard let line = ask("code (or 'resend', 'wait' to let it expire, 'quit'):") else { return .quit }
        switch line.lowercased() {
        case "resend": return .resend
        case "wait": return .wait
        case "quit", "q": return .quit
        default: return .code(line)
        }
    }
}
