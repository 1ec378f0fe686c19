import Foundation

/// One provider's contract tests in one value: its fixtures, the endpoints the adapter calls,
/// and the check of one fixture in both directions (adapter and sandbox). Each of the three
/// contract tests every provider runs is one call that returns its failures (empty: the
/// contract holds):
///
/// ```swift
/// static let suite = ContractSuite(
///     directory: fixturesDirectory, endpoints: ["email-create", "refresh"], minimumRenamings: 40,
///     adapter: adapterDirection, sandbox: sandboxDirection)
/// @Test func everyEndpointTheAdapterCallsHasAFixture() { #expect(Self.suite.endpointFailures() == []) }
/// @Test(arguments: suite.fixtures) func fixtureHoldsInBothDirections(fixture: ContractFixture) async {
///     #expect(await Self.suite.failures(of: fixture) == [])
/// }
/// @Test func renamingAnyFixtureFieldBreaksACheck() async { #expect(await Self.suite.biteFailures() == []) }
/// ```
///
/// Test support: `package`, not public API.
package struct ContractSuite: Sendable {
    /// The check of one direction for one fixture response: its mismatches.
    package typealias Direction = @Sendable (ContractFixture, ContractResponse) async -> [String]

    /// Every fixture of the provider, sorted by name.
    package let fixtures: [ContractFixture]
    /// The names of the endpoints the adapter calls: one fixture each, no other.
    package let endpoints: Set<String>
    /// The rename check must try more renamings than this (it proves the check saw the fields).
    package let minimumRenamings: Int
    private let adapter: Direction
    private let sandbox: Direction

    /// Creates a suite of the fixtures in `directory`.
    /// - Parameters:
    ///   - directory: The provider's fixture directory (`Tests/Fixtures/Contracts/<Provider>`).
    ///   - endpoints: The fixture names the adapter's endpoints must have.
    ///   - minimumRenamings: The rename check must try more renamings than this.
    ///   - adapter: What the adapter sends and makes of a response: its mismatches.
    ///   - sandbox: What the emulated backend accepts and answers: its mismatches.
    /// - Note: A directory that cannot be read gives no fixtures (and an endpoint failure).
    package init(
        directory: URL, endpoints: Set<String>, minimumRenamings: Int, adapter: @escaping Direction,
        sandbox: @escaping Direction
    ) {
        fixtures = (try? ContractFixture.load(directory: directory)) ?? []
        self.endpoints = endpoints
        self.minimumRenamings = minimumRenamings
        self.adapter = adapter
        self.sandbox = sandbox
    }

    /// The fixture named `name`.
    /// - Throws: `ContractError` when there is none.
    package func fixture(_ name: String) throws -> ContractFixture { try ContractFixture.named(name, in: fixtures) }

    /// The endpoints without a fixture and the fixtures of no endpoint (empty: one fixture per
    /// endpoint the adapter calls).
    package func endpointFailures() -> [String] {
        let names = Set(fixtures.map(\.name))
        return endpoints.subtracting(names).sorted().map { "no fixture for the endpoint \($0)" }
            + names.subtracting(endpoints).sorted().map { "the fixture \($0) is of no endpoint" }
    }

    /// The check of `fixture` in both directions, for every response or only the one at index
    /// `only` (``ContractMatch/check(_:only:adapter:sandbox:)``): its failures.
    package func check(_ fixture: ContractFixture, only: Int? = nil) async -> [String] {
        await ContractMatch.check(fixture, only: only, adapter: adapter, sandbox: sandbox)
    }

    /// The failures of `fixture` in both directions, headed by its name (empty: it holds).
    package func failures(of fixture: ContractFixture) async -> [String] {
        let failures = await check(fixture)
        return failures.isEmpty ? [] : ["\(fixture.name):\n\(failures.joined(separator: "\n"))"]
    }

    /// The rename check (``ContractBite/run(_:check:)``): too few renamings, renamed fields no
    /// check noticed, and `unread` fields whose renaming changed a result (empty: the checks
    /// bite).
    package func biteFailures() async -> [String] {
        let report = await ContractBite.run(fixtures) { fixture, only in await check(fixture, only: only) }
        var failures: [String] = []
        if report.renamings <= minimumRenamings {
            failures.append("only \(report.renamings) renamings, expected more than \(minimumRenamings)")
        }
        if !report.unnoticed.isEmpty {
            failures.append("renamed without a failing check:\n\(report.unnoticed.joined(separator: "\n"))")
        }
        if !report.unreadButRead.isEmpty { failures.append("\(report.unreadButRead)") }
        return failures
    }
}
