import MultiAuth

extension ContractMatch {
    /// Checks a fixture in both directions: for every response (or only the one at index
    /// `only`), what the adapter sends and makes of the response (`adapter`), and, when the
    /// response has a sandbox recipe, what the emulated backend accepts and answers
    /// (`sandbox`). Each failure is prefixed with its direction and the response's name.
    /// Test support: `package`.
    package static func check(
        _ fixture: ContractFixture, only: Int?,
        adapter: (ContractFixture, ContractResponse) async -> [String],
        sandbox: (ContractFixture, ContractResponse) async -> [String]
    ) async -> [String] {
        var failures: [String] = []
        for response in fixture.responses where only == nil || only == response.index {
            failures += await adapter(fixture, response).map { "adapter, \(response.name): \($0)" }
            if response.sandboxRecipe != nil {
                failures += await sandbox(fixture, response).map { "sandbox, \(response.name): \($0)" }
            }
        }
        return failures
    }

    /// The mismatch between what an adapter made of a response (the name of the step it
    /// returned, or the error it threw) and what the fixture expects: the step, or the error
    /// code and raw provider code. Empty when they agree.
    package static func expectation(_ outcome: Result<String, AuthError>, _ response: ContractResponse) -> [String] {
        switch outcome {
        case .success(let step):
            if let error = response.expectedError { return ["got \(step), expected \(error)"] }
            return step == response.expectedStep ? [] : ["got \(step), expected \(response.expectedStep ?? "-")"]
        case .failure(let error):
            guard let expected = response.expectedError else {
                return ["threw \(error), expected \(response.expectedStep ?? "-")"]
            }
            var failures: [String] = []
            if error.code != expected { failures.append("code \(error.code), expected \(expected)") }
            if let raw = response.expectedProviderCode, error.providerCode != raw {
                failures.append("providerCode \(error.providerCode ?? "-"), expected \(raw)")
            }
            return failures
        }
    }
}
