/// Sign-in flows through the in-process sandbox (arrives with the sandbox's backends).
enum FlowBench {
    static func run(repeats: Int) async throws -> [BenchRow] { [] }
}
