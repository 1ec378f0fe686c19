import Foundation

/// The rename check that proves the contract tests bite: every fixture field, renamed in
/// memory, must make the fixture's contract check fail; a field a fixture marks `unread` must
/// leave it passing (the adapter does not read it and the backend cannot produce its response).
/// Test support: `package`, not public API.
package enum ContractBite {
    /// What the rename check found.
    package struct Report: Sendable {
        /// Fields whose renaming no check noticed (must be empty).
        package var unnoticed: [String] = []
        /// `unread` fields whose renaming changed a result (must be empty).
        package var unreadButRead: [String] = []
        /// How many renamed fixtures were checked.
        package var renamings = 0
    }

    /// Renames every field of every fixture in turn and runs `check` on the result.
    /// - Parameters:
    ///   - fixtures: The fixtures (each must pass `check` unchanged).
    ///   - check: The contract check of one fixture (adapter and sandbox directions): the
    ///     request, plus the response at the given index (`nil`: every response); its
    ///     mismatches, empty when the fixture holds. A renamed response field only needs its
    ///     own response checked.
    package static func run(
        _ fixtures: [ContractFixture], check: (ContractFixture, Int?) async -> [String]
    ) async -> Report {
        var report = Report()
        for fixture in fixtures {
            for field in fixture.fields {
                report.renamings += 1
                let only: Int? = if case .response(let index) = field.location { index } else { nil }
                let failures = await check(fixture.renaming(field), only)
                if isUnread(field, in: fixture) {
                    if !failures.isEmpty { report.unreadButRead.append("\(fixture.name) \(field): \(failures.first!)") }
                } else if failures.isEmpty {
                    report.unnoticed.append("\(fixture.name) \(field)")
                }
            }
        }
        return report
    }

    /// Whether `field` lies under an `unread` path of its response.
    static func isUnread(_ field: ContractFixture.Field, in fixture: ContractFixture) -> Bool {
        guard case .response(let index) = field.location else { return false }
        let unread = fixture.responses[index].unread
        return unread.contains { field.path == $0 || field.path.hasPrefix($0 + ".") || field.path.hasPrefix($0 + "[]") }
    }
}
