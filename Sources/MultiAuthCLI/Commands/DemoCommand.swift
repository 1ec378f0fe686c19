/// `multiauth demo`: sign-in flows end to end against the embedded sandbox.
struct DemoCommand: Command {
    let name = "demo"
    let summary = "Run sign-in flows end to end against the embedded sandbox (no keys, no network)"
    let valueOptions: Set<String> = []
    let flags: Set<String> = []
    var help: String {
        """
        Usage: multiauth demo

        Runs sign-in flows end to end through one AuthClient against the embedded sandbox.

        \(ExitCode.helpText)
        """
    }

    func run(_ arguments: Arguments) async throws -> Int32 {
        Terminal.out("The demo's flows arrive with the sandbox and the provider adapters.")
        return ExitCode.ok
    }
}
