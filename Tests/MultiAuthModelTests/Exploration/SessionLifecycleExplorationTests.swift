import Foundation
import MultiAuth
import MultiAuthSandbox
import Testing

/// Exhaustive small-scope exploration of the session lifecycle (Docs/Architecture.md,
/// "Session lifecycle" and "Sign-in flows").
///
/// The world: a sandbox with the reference backend, the reference model of the store
/// (``ModelStore``) shared by two clients; client 0 signed in user A at set-up and holds a
/// pending code flow of user B. Every suspension point the clients reach is a gate the driver
/// holds: each store call (``GatedStore``, and each conditional write again after the store
/// answered, before the client publishes its event) and each provider call before it is sent
/// and after the server answered (``GatedProvider``); the clock moves only when the driver says so. At
/// every quiescent moment the driver lists the enabled choices (start an operation, release a
/// gate, release it with a fault, cancel an operation's task, move the clock, kill client 0's
/// process) and takes one; the search is a stateless depth-first search by replay
/// (``ExplorationDriver``). Scopes: every pair of operations, and a few triples.
///
/// Checked after every step and at the end of every schedule (``ExplorationWorld``):
/// - the model's judgement of every write: no stale refresh result lands, no session the server
///   still accepts is removed outside a sign-out, the store holds what the model says (L2, L5, L6);
/// - no grant is exchanged twice (R1, L1);
/// - every session returned to a caller was stored during the call, or is the refreshed session a
///   failed write left unsaved (L9); a refresh of A's session answers only with A's sign-in (L10);
///   a sign-in answers with the session of the user who signed in;
/// - every stored session names the provider that produced it (L8) and the user the server
///   issued its refresh token to (L7);
/// - no session is ended outside a sign-out while a newer refresh token a live client received
///   is still accepted by the server (L9);
/// - a revoke is sent only after the session left the store (L11);
/// - every session the server issued at sign-in is stored, failed to be written, or revoked (F6,
///   F7); a submit abandoned by a sign-out while the provider answered (F2) is counted apart;
/// - a link of a flow that signed in here answers with its session (F8);
/// - at the end: the client that wrote last announced what the store holds (F7, L3, L6);
///   `signedOut` is published once per user sign-out that removed a session; `sessionExpired`
///   only after a revocation removal; `sessionRefreshed` only for a written session; once a
///   sign-out of client 0 returned, the store holds nothing of B's sign-in, whose flow started
///   before it (F2, F7).
///
/// No known findings are left: every problem fails the test.
///
/// Quiescence is a heuristic (nothing moved for a number of yields, no store or server call in
/// progress); when it misfires on a busy machine the driver sees fewer gates, so the schedule is
/// still a valid interleaving and is checked like any other. Replays wait longer for a gate they
/// expect, and count as divergent when it never comes.
///
/// Environment: `MULTIAUTH_EXPLORE_DEPTH` (explored choice positions per pair schedule, default
/// 6), `MULTIAUTH_EXPLORE_TRIPLE_DEPTH` (default 5), `MULTIAUTH_EXPLORE_FAULTS` (faults per
/// schedule, default 1), `MULTIAUTH_EXPLORE_QUIET` (unchanged yields that count as quiescence,
/// default 16), `MULTIAUTH_EXPLORE_SCOPE` (one scope only, e.g. `refresh@0,signOut@0`),
/// `MULTIAUTH_EXPLORE_REPLAY` (with a scope: one schedule, the `→`-separated choices a report
/// printed), `MULTIAUTH_EXPLORE_DEBUG` (print every schedule and every divergence).
@Suite(.serialized, .timeLimit(.minutes(20)))
struct SessionLifecycleExplorationTests {
    static let environment = ProcessInfo.processInfo.environment
    static let depth = Int(environment["MULTIAUTH_EXPLORE_DEPTH"] ?? "") ?? 6
    static let tripleDepth = Int(environment["MULTIAUTH_EXPLORE_TRIPLE_DEPTH"] ?? "") ?? 5
    static let faults = Int(environment["MULTIAUTH_EXPLORE_FAULTS"] ?? "") ?? 1
    static let quiet = Int(environment["MULTIAUTH_EXPLORE_QUIET"] ?? "") ?? 16

    static let rules = [
        "L1/R1 one exchange per grant", "L2/L5/L6 model-judged writes", "L3 sessionExpired only after a revocation",
        "L7 stored user matches the token", "L8 stored provider", "L9 unsaved refresh kept, never ended while newer",
        "L10 refresh answers with the same sign-in", "L11 revoke after local removal", "F2/F6/F7 no dropped sign-in",
        "F5 a held challenge lives while its resend does", "F8 second link answers",
        "returned sessions were stored", "last writer's events match the store",
        "signedOut once per user sign-out", "F2/F7 nothing of a flow abandoned by a sign-out outlives it",
    ]

    /// The operations pairs are built from.
    static let catalog: [ExplorationOp] = [
        .submit, .signIn(1), .link, .resend, .refresh(0), .refresh(1), .valid(0), .valid(1), .signOut(0), .signOut(1),
        .restore(1), .tick, .takeover,
    ]

    static var pairs: [[ExplorationOp]] {
        var scopes: [[ExplorationOp]] = []
        for (i, first) in catalog.enumerated() {
            for second in catalog[(i + 1)...] { scopes.append([first, second]) }
        }
        return scopes + [[.link, .link], [.refresh(0), .refresh(0)], [.signOut(0), .signOut(0)]]
    }

    static let triples: [[ExplorationOp]] = [
        [.submit, .signOut(0), .refresh(0)],
        [.refresh(0), .refresh(1), .signOut(1)],
        [.refresh(0), .tick, .valid(0)],
        [.link, .link, .signOut(0)],
        [.refresh(0), .takeover, .signOut(1)],
        [.signIn(1), .refresh(0), .signOut(0)],
        [.resend, .lapse, .submit],
    ]

    /// A scope named by `MULTIAUTH_EXPLORE_SCOPE`, if any.
    static var onlyScope: [ExplorationOp]? {
        guard let names = environment["MULTIAUTH_EXPLORE_SCOPE"] else { return nil }
        let all = catalog + [.signIn(0), .restore(0), .lapse]
        return names.split(separator: ",").compactMap { name in all.first { $0.description == name } }
    }

    static func bounds(depth: Int) -> ExplorationBounds {
        ExplorationBounds(depth: depth, faults: faults, quiet: quiet)
    }

    static func explore(_ scopes: [[ExplorationOp]], depth: Int, title: String) async throws {
        var total = ExplorationSummary(scope: [])
        var failing: [ExplorationSummary] = []
        for scope in onlyScope.map({ [$0] }) ?? scopes {
            let summary = try await ExplorationDriver(
                scope: scope, mutations: ClientMutations(), bounds: bounds(depth: depth)
            ).explore()
            print(
                "exploration \(summary.scopeName): \(summary.schedules) schedules, \(summary.states) states, \(summary.divergences) divergent replays, \(String(format: "%.1f", summary.seconds)) s"
            )
            total.schedules += summary.schedules
            total.states += summary.states
            total.divergences += summary.divergences
            total.seconds += summary.seconds
            if !summary.violations.isEmpty { failing.append(summary) }
        }
        print(
            "exploration \(title) (depth \(depth), \(faults) fault(s)): \(total.schedules) schedules, \(total.states) states, \(total.divergences) divergent replays, \(String(format: "%.1f", total.seconds)) s; rules: \(rules.joined(separator: "; "))"
        )
        #expect(failing.isEmpty, "\(report(failing))")
    }

    static func report(_ failing: [ExplorationSummary]) -> String {
        failing.prefix(3).map { summary in
            let first = summary.violations[0]
            return
                "\(summary.scopeName): \(summary.violations.count) violating schedule(s); first:\n  \(first.schedule.joined(separator: " → "))\n  "
                + first.problems.prefix(4).joined(separator: "\n  ")
        }.joined(separator: "\n")
    }

    @Test func everyPairOfOperationsHoldsEveryRule() async throws {
        try await Self.explore(Self.pairs, depth: Self.depth, title: "pairs")
    }

    @Test func selectedTriplesHoldEveryRule() async throws {
        try await Self.explore(Self.triples, depth: Self.tripleDepth, title: "triples")
    }

    /// A guard switched off, and the smallest scope whose exploration reaches the bug it prevents.
    struct MutationCase: Sendable, CustomStringConvertible {
        let name: String
        let mutations: ClientMutations
        let scope: [ExplorationOp]
        var description: String { name }
    }

    static let mutationCases: [MutationCase] = [
        MutationCase(
            name: "unconditionalWrites", mutations: ClientMutations(unconditionalWrites: true),
            scope: [.refresh(0), .signOut(0)]),
        MutationCase(
            name: "noRedirectSingleFlight", mutations: ClientMutations(noRedirectSingleFlight: true),
            scope: [.link, .link]),
        MutationCase(
            name: "noRefreshIdentityCheck", mutations: ClientMutations(noRefreshIdentityCheck: true),
            scope: [.refresh(0)]),
        MutationCase(
            name: "noSessionProviderCheck", mutations: ClientMutations(noSessionProviderCheck: true), scope: [.submit]),
        MutationCase(
            name: "noUnsavedRefresh", mutations: ClientMutations(noUnsavedRefresh: true), scope: [.refresh(0), .tick]),
        MutationCase(
            name: "discardAnswerOnCancel", mutations: ClientMutations(discardAnswerOnCancel: true), scope: [.submit]),
        MutationCase(
            name: "signOutReadsOutsideTurn", mutations: ClientMutations(signOutReadsOutsideTurn: true),
            scope: [.submit, .signOut(0)]),
        MutationCase(
            name: "judgeHeldChallenge", mutations: ClientMutations(judgeHeldChallenge: true),
            scope: [.resend, .lapse, .submit]),
        MutationCase(
            name: "noAbandonBeforeSave", mutations: ClientMutations(noAbandonBeforeSave: true),
            scope: [.link, .signOut(0)]),
        MutationCase(
            name: "refreshReturnsAnySession", mutations: ClientMutations(refreshReturnsAnySession: true),
            scope: [.refresh(0), .submit]),
        MutationCase(
            name: "revokeBeforeLocalRemoval", mutations: ClientMutations(revokeBeforeLocalRemoval: true),
            scope: [.signOut(0)]),
        MutationCase(
            name: "noCodeLinkOrdering", mutations: ClientMutations(noCodeLinkOrdering: true), scope: [.submit, .link]),
        MutationCase(
            name: "unorderedStateWrites", mutations: ClientMutations(unorderedStateWrites: true),
            scope: [.submit, .refresh(0)]),
        MutationCase(
            name: "noAlreadySignedInRedirect", mutations: ClientMutations(noAlreadySignedInRedirect: true),
            scope: [.submit, .link]),
    ]

    /// Mutation check: with one guard off, the exploration of its scope finds a violating
    /// schedule (printed as the list of choices). `judgeHeldChallenge` (F5) is reached by the
    /// `lapse` operation, which moves the clock into the gap between the held challenge's expiry
    /// and its resend's.
    @Test(arguments: mutationCases)
    func theExplorationCatchesTheMutation(_ mutation: MutationCase) async throws {
        let summary = try await ExplorationDriver(
            scope: mutation.scope, mutations: mutation.mutations, bounds: Self.bounds(depth: Self.depth)
        ).explore(stopAtFirstViolation: true)
        let first = summary.violations.first
        print(
            "mutation \(mutation.name) [\(summary.scopeName)]: caught after \(summary.schedules) schedules: \(first?.schedule.joined(separator: " → ") ?? "none")\n  \(first?.problems.first ?? "")"
        )
        #expect(first != nil, "no violation in \(summary.schedules) schedules")
    }
}
