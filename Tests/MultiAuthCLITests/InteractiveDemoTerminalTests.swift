import Foundation
import Testing

/// `multiauth demo --interactive` driven through a pseudo-terminal, as a person would: every
/// dead end a first user met (re-prompts, `quit` everywhere, the Truecaller name before the code,
/// no new code without asking, the TOTP step without a phone, real-time dates, plurals).
@Suite("Interactive demo through a pseudo-terminal", .serialized, .timeLimit(.minutes(10)))
struct InteractiveDemoTerminalTests {
    static func demo(_ provider: String, _ extra: [String] = []) throws -> PseudoTerminal {
        try PseudoTerminal(["demo", "--interactive", "--no-qr", "--provider", provider] + extra)
    }

    /// The code the sandbox inbox delivered, from the line the demo prints above the prompt.
    static func deliveredCode(in text: String) throws -> String {
        let line = try #require(text.split(separator: "\n").last { $0.contains("Your code is ") })
        return String(try #require(line.split(separator: "\"").dropFirst().first?.split(separator: " ").last))
    }

    static func count(_ needle: String, in text: String) -> Int { text.components(separatedBy: needle).count - 1 }

    @Test func aBadIdentityIsAskedAgainAndQuitIsNeverAnAddress() throws {
        let terminal = try Self.demo("dynamic")
        try terminal.expect("e-mail address [")
        terminal.send("not-an-email")
        try terminal.expect("✗ not a valid e-mail address")
        try terminal.expect("try again")
        try terminal.expect("e-mail address [")  // asked again, flow not ended
        terminal.send("quit")
        try terminal.expect("quit: the flow was cancelled")
        #expect(try terminal.finish() == 1)
        #expect(!terminal.transcript.contains("signIn(with: .dynamic"), "\(terminal.transcript)")
        #expect(!terminal.transcript.contains("invalidInput"))  // 'quit' was never parsed as an address
        #expect(terminal.transcript.contains("quit\n"))  // the terminal echoed it
    }

    /// (label, the lines that reach the prompt, the prompt, whether a flow is pending there).
    static let prompts: [(String, [String], String, Bool)] = [
        ("otpless phone", [], "phone number [", false),
        ("otpless code", [""], "code (or 'resend'", true),
        ("dynamic code", [""], "code (or 'resend'", true),
        ("truecaller first name", [""], "first name [", false),
        ("truecaller last name", ["", ""], "last name [", false),
        ("truecaller code", ["", "", ""], "code (or 'resend'", true),
        ("portal account", [], "Google account [", false),
        ("portal TOTP", [""], "TOTP code (", true),
        ("dynamic new code?", ["", "111111", "222222", "333333"], "Send a new code?", false),
    ]

    @Test(arguments: 0..<9)
    func quitIsAcceptedAtEveryPrompt(_ index: Int) throws {
        let (label, lines, prompt, pending) = Self.prompts[index]
        let provider = String(label.split(separator: " ")[0])
        let terminal = try Self.demo(provider)
        for line in lines {
            try terminal.expect("'quit'):")  // every prompt ends so
            terminal.send(line)
        }
        try terminal.expect(prompt)
        try terminal.expect("'quit'")
        terminal.send("quit")
        try terminal.expect("quit: the flow was cancelled")
        #expect(try terminal.finish() == 1, "\(label)")
        let after = terminal.transcript.components(separatedBy: "quit: the flow was cancelled").last ?? ""
        #expect(!after.contains("(or 'quit'):"), "\(label): asked again after quit\n\(terminal.transcript)")
        #expect(after.contains("Summary"))
        #expect(terminal.transcript.contains("flowCancelled") == pending, "\(label)\n\(terminal.transcript)")
    }

    @Test func quitSkipsTheRemainingFlows() throws {
        let terminal = try PseudoTerminal(["demo", "--interactive", "--no-qr"])
        try terminal.expect("phone number [")
        terminal.send("quit")
        #expect(try terminal.finish() == 1)
        // link, dynamic, truecaller, portal, passkeys
        #expect(Self.count("skipped (quit)", in: terminal.transcript) == 5, "\(terminal.transcript)")
        #expect(!terminal.transcript.contains("e-mail address ["))
    }

    @Test func aMalformedCodeIsAskedAgainWithoutUsingAnAttempt() throws {
        let terminal = try Self.demo("dynamic")
        try terminal.expect("e-mail address [")
        terminal.send("")
        let delivered = try terminal.expect("code (or 'resend'")
        let code = try Self.deliveredCode(in: delivered)
        terminal.send("12 3x")
        try terminal.expect("no attempt was used; type the code again")
        try terminal.expect("code (or 'resend'")
        terminal.send(code)
        try terminal.expect("✔ signed in")
        #expect(try terminal.finish() == 0, "\(terminal.transcript)")
        #expect(!terminal.transcript.contains("codeRejected"))
    }

    @Test func truecallerAsksForTheNameBeforeTheCodeIsSent() throws {
        let terminal = try Self.demo("truecaller")
        try terminal.expect("phone number [")
        terminal.send("")
        try terminal.expect("first name [")
        terminal.send("12")  // refused locally: asked again
        try terminal.expect("✗ not a valid first name")
        try terminal.expect("first name [")
        terminal.send("Asha")
        try terminal.expect("last name [")
        let beforeName = terminal.transcript
        terminal.send("Rao")
        let delivered = try terminal.expect("code (or 'resend'")
        terminal.send(try Self.deliveredCode(in: delivered))
        try terminal.expect("✔ signed in")
        #expect(try terminal.finish() == 0, "\(terminal.transcript)")
        // Nothing was sent before the name was complete.
        #expect(!beforeName.contains("signIn(with: .truecaller") && !beforeName.contains("sms to"), "\(beforeName)")
        let transcript = terminal.transcript
        let order = ["last name [", "signIn(with: .truecaller", "sms to", "signedIn"].map {
            transcript.range(of: $0)?.lowerBound
        }
        #expect(order.allSatisfy { $0 != nil } && order.map { $0! } == order.map { $0! }.sorted(), "\(transcript)")
    }

    @Test(arguments: [false, true])
    func noNewCodeAfterTheAttemptsRunOutWithoutAsking(_ answerYes: Bool) throws {
        let terminal = try Self.demo("dynamic")
        try terminal.expect("e-mail address [")
        terminal.send("")
        for wrong in ["111111", "222222", "333333"] {
            try terminal.expect("code (or 'resend'")
            terminal.send(wrong)
        }
        try terminal.expect("Send a new code? [y/N]")
        #expect(Self.count("challengeIssued", in: terminal.transcript) == 1)  // nothing sent while asking
        #expect(terminal.transcript.contains("— 2 attempts left") && terminal.transcript.contains("— 1 attempt left"))
        #expect(!terminal.transcript.contains("1 attempts"))
        terminal.send("maybe")
        try terminal.expect("please answer y or n")
        try terminal.expect("Send a new code? [y/N]")
        if answerYes {
            terminal.send("y")
            let delivered = try terminal.expect("code (or 'resend'")
            #expect(delivered.contains("a new code was sent"))
            terminal.send(try Self.deliveredCode(in: delivered))
            try terminal.expect("✔ signed in")
            #expect(try terminal.finish() == 0)
            #expect(Self.count("challengeIssued", in: terminal.transcript) == 2)
        } else {
            terminal.send("n")
            try terminal.expect("no new code was sent")
            #expect(try terminal.finish() == 1)
            #expect(Self.count("challengeIssued", in: terminal.transcript) == 1, "\(terminal.transcript)")
            #expect(Self.count("flowStarted", in: terminal.transcript) == 1)
        }
    }

    /// `wait` lets the code expire; the demo then asks about a new code at once, so the `y`
    /// the person types answers that question and is never submitted as a code.
    @Test(arguments: [false, true])
    func afterWaitTheDemoAsksForANewCodeAndNeverSubmitsTheAnswerAsACode(_ answerYes: Bool) throws {
        let terminal = try Self.demo("dynamic")
        try terminal.expect("e-mail address [")
        terminal.send("")
        try terminal.expect("code (or 'resend'")
        terminal.send("wait")
        try terminal.expect("the code has expired")
        try terminal.expect("Send a new code? [y/N]")
        if answerYes {
            terminal.send("y")
            let delivered = try terminal.expect("code (or 'resend'")
            #expect(delivered.contains("a new code was sent"))
            terminal.send(try Self.deliveredCode(in: delivered))
            try terminal.expect("✔ signed in")
            #expect(try terminal.finish() == 0, "\(terminal.transcript)")
        } else {
            terminal.send("n")
            try terminal.expect("no new code was sent")
            #expect(try terminal.finish() == 1, "\(terminal.transcript)")
        }
        #expect(!terminal.transcript.contains("submit(code: y)"), "\(terminal.transcript)")
        #expect(!terminal.transcript.contains("submit(code: n)"), "\(terminal.transcript)")
        #expect(!terminal.transcript.contains("invalidCodeFormat"), "\(terminal.transcript)")
    }

    @Test func theTOTPStepShowsTheSecretAndTheExactCommandThatComputesTheCode() throws {
        let terminal = try Self.demo("portal")
        try terminal.expect("Google account [")
        terminal.send("")
        try terminal.expect("secret  ")
        let secret = String(terminal.rest.prefix { !$0.isWhitespace })
        try terminal.expect("compute the code with:\n")
        let commandLine = try terminal.expect("\n").trimmingCharacters(in: .whitespaces)
        try terminal.expect("TOTP code (6 digits")
        // The exact command: `multiauth totp '<otpauth URI>' --time <the sandbox's now>`.
        let parts = commandLine.split(separator: "'", omittingEmptySubsequences: false)
        #expect(parts.count == 3 && parts[0] == "multiauth totp ", "\(commandLine)")
        let uri = String(parts[1])
        #expect(uri.hasPrefix("otpauth://totp/") && uri.contains("secret=\(secret)&"), "\(uri) / \(secret)")
        let time = parts[2].split(separator: " ").map(String.init)
        #expect(time.count == 2 && time[0] == "--time" && Int64(time[1]) != nil, "\(commandLine)")
        let computed = try CLI.run(["totp", uri] + time)
        #expect(computed.status == 0, "\(computed.stderr)")
        terminal.send(computed.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        try terminal.expect("✔ signed in")
        #expect(try terminal.finish() == 0, "\(terminal.transcript)")
    }

    @Test func theDemoComputesTheTOTPCodeOnRequestAndSaysWhoseJobThatIs() throws {
        let terminal = try Self.demo("portal")
        try terminal.expect("Google account [")
        terminal.send("")
        try terminal.expect("TOTP code (6 digits")
        terminal.send("123")  // malformed: asked again
        try terminal.expect("type the code again")
        try terminal.expect("TOTP code (6 digits")
        terminal.send("code")
        try terminal.expect("normally your authenticator app's job")
        try terminal.expect("✔ signed in")
        #expect(try terminal.finish() == 0, "\(terminal.transcript)")
    }

    @Test func sessionsCarryTodaysDates() throws {
        let testStarted = Date()
        let terminal = try Self.demo("portal")
        try terminal.expect("Google account [")
        terminal.send("")
        try terminal.expect("TOTP code (6 digits")
        terminal.send("code")
        try terminal.expect("expires ")
        let stamp = String(terminal.rest.prefix { !$0.isWhitespace })
        #expect(try terminal.finish() == 0)
        let expires = try #require(ISO8601DateFormatter().date(from: stamp), "\(stamp)")
        // The sandbox clock started at the real time: the session expires after the test began
        // (a clock stuck in 2023 made every session look expired) and within a few days.
        #expect(expires > testStarted && expires < testStarted.addingTimeInterval(7 * 86_400), "\(stamp)")
        #expect(!terminal.transcript.contains("2023-"))
    }

    @Test func versionAndDemoHelpOnATerminal() throws {
        let version = try PseudoTerminal(["--version"])
        try version.expect("multiauth ")
        #expect(try version.finish() == 0)
        let help = try PseudoTerminal(["demo", "help"])
        try help.expect("Usage: multiauth demo")
        try help.expect("quit             at any prompt")
        #expect(try help.finish() == 0)
    }
}
