import Foundation
import MultiAuth
import MultiAuthSandbox

/// One choice of the driver at a quiescent moment.
enum ExplorationChoice: Hashable, CustomStringConvertible {
    /// Start operation `index`.
    case start(Int, String)
    /// Let the held gate go with a verdict (a fault unless `.proceed`).
    case release(String, GateVerdict)
    /// Cancel operation `index`'s task.
    case cancel(Int, String)
    /// Move the clock past the refresh due time (the `tick` operation).
    case tick
    /// Move the clock past B's first challenge's expiry, not a resent one's (the `lapse` operation).
    case lapse
    /// Client 0's process dies and the `takeover` operation starts.
    case kill

    var description: String {
        switch self {
        case .start(_, let tag): "start \(tag)"
        case .release(let label, let verdict): "\(verdict.rawValue) [\(label)]"
        case .cancel(_, let tag): "cancel \(tag)"
        case .tick: "tick"
        case .lapse: "lapse"
        case .kill: "kill client 0"
        }
    }

    /// Whether taking this choice spends the fault budget.
    var isFault: Bool {
        switch self {
        case .release(_, let verdict): verdict != .proceed
        case .cancel: true
        default: false
        }
    }
}

/// The bounds of one exploration.
struct ExplorationBounds: Sendable {
    /// Choice positions explored with every alternative; later choices take the first enabled
    /// non-fault choice (run to completion).
    var depth: Int
    /// Faults (injected store failures, forged answers, cancellations) per schedule.
    var faults: Int
    /// Consecutive unchanged yields that count as quiescence.
    var quiet: Int
    /// Choices per schedule before it is reported as not terminating.
    var maximumSteps = 200
}

/// What one scope's exploration came to.
struct ExplorationSummary {
    var scope: [ExplorationOp]
    var schedules = 0
    var states = 0
    /// Replays whose enabled set differed from the recorded one (a quiescence misfire).
    var divergences = 0
    var violations: [(schedule: [String], problems: [String])] = []
    var seconds: Double = 0

    var scopeName: String { scope.map(\.description).joined(separator: " ‖ ") }
}

/// Stateless depth-first search by replay: every schedule is a fresh world plus a list of
/// choices; the next schedule takes the next untried alternative at the deepest position that
/// has one.
struct ExplorationDriver {
    let scope: [ExplorationOp]
    let mutations: ClientMutations
    let bounds: ExplorationBounds

    private struct Position {
        var enabled: [String]
        var chosen: Int
    }

    private struct RunResult {
        var taken: [String] = []
        var trace: [Position] = []
        var diverged = false
        var problems: [String] = []
    }

    /// Explores the scope; stops at the first violating schedule when `stopAtFirstViolation`.
    func explore(stopAtFirstViolation: Bool = false) async throws -> ExplorationSummary {
        var summary = ExplorationSummary(scope: scope)
        let began = ContinuousClock.now  // Reported only; never decides anything.
        var stack: [Position] = []
        var prefix: [String] = []
        if let replay = ProcessInfo.processInfo.environment["MULTIAUTH_EXPLORE_REPLAY"] {
            // One schedule only (the `→`-separated choices a report printed).
            let choices = replay.components(separatedBy: " → ")
            let result = try await run(choices)
            print(
                "replayed: \(result.taken.joined(separator: " → "))\n  diverged: \(result.diverged)\n  \(result.problems)"
            )
            summary.schedules = 1
            if !result.problems.isEmpty { summary.violations.append((result.taken, result.problems)) }
            return summary
        }
        while true {
            let result = try await run(prefix)
            summary.schedules += 1
            if ProcessInfo.processInfo.environment["MULTIAUTH_EXPLORE_DEBUG"] != nil {
                print("schedule \(summary.schedules): \(result.taken.joined(separator: " → "))")
            }
            summary.states += result.taken.count
            if result.diverged { summary.divergences += 1 }
            if !result.problems.isEmpty {
                summary.violations.append((result.taken, result.problems))
                if stopAtFirstViolation { break }
            }
            stack = Array(stack.prefix(prefix.count)) + result.trace.dropFirst(prefix.count)
            while let last = stack.last, last.chosen + 1 >= last.enabled.count { stack.removeLast() }
            guard !stack.isEmpty else { break }
            stack[stack.count - 1].chosen += 1
            prefix = stack.map { $0.enabled[$0.chosen] }
        }
        let elapsed = ContinuousClock.now - began
        summary.seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return summary
    }

    /// The enabled choices, in the order the default policy prefers: releases, starts, the
    /// driver actions, then faults and cancellations.
    private func enabled(_ world: ExplorationWorld, faultsLeft: Int) -> [ExplorationChoice] {
        let held = world.board.held
        var choices = held.map { ExplorationChoice.release($0.label, .proceed) }
        for (index, operation) in scope.enumerated() where !world.isStarted(index) {
            switch operation {
            case .tick: choices.append(.tick)
            case .lapse: choices.append(.lapse)
            case .takeover: if !world.board.isDead(0) { choices.append(.kill) }
            default:
                if let client = operation.client, !world.board.isDead(client) {
                    choices.append(.start(index, world.tag(index)))
                }
            }
        }
        guard faultsLeft > 0 else { return choices }
        for gate in held {
            for fault in gate.kind.faults { choices.append(.release(gate.label, fault)) }
        }
        for (index, operation) in scope.enumerated()
        where operation.client != nil && world.isStarted(index) && !world.isFinished(index) {
            choices.append(.cancel(index, world.tag(index)))
        }
        return choices
    }

    private func take(_ choice: ExplorationChoice, in world: ExplorationWorld) {
        switch choice {
        case .start(let index, _): world.start(index)
        case .release(let label, let verdict): world.board.release(label, verdict)
        case .cancel(let index, _): world.cancel(index)
        case .tick:
            if let index = scope.firstIndex(of: .tick) { world.markDriverAction(index) }
            world.sandbox.clock.advance(by: .seconds(ExplorationWorld.tickSeconds))
        case .lapse:
            if let index = scope.firstIndex(of: .lapse) { world.markDriverAction(index) }
            world.sandbox.clock.advance(by: .seconds(ExplorationWorld.lapseSeconds))
        case .kill:
            if let index = scope.firstIndex(of: .takeover) { world.kill(takeover: index) }
        }
    }

    private func running(_ world: ExplorationWorld) -> Bool {
        scope.indices.contains { world.isStarted($0) && !world.isFinished($0) && scope[$0] != .tick }
    }

    private func run(_ prefix: [String]) async throws -> RunResult {
        let world = try await ExplorationWorld.make(operations: scope, mutations: mutations, quiet: bounds.quiet)
        defer { world.tearDown() }
        var result = RunResult()
        var faultsLeft = bounds.faults
        var step = 0
        var finalChecked = false
        while true {
            await world.settle()
            if world.problemCount > 0 { break }
            var choices = enabled(world, faultsLeft: faultsLeft)
            // The same choices twice in a row, one quiet window apart (a busy machine may stall
            // a task on its way to a gate for longer than one window).
            while true {
                await world.settle()
                let again = enabled(world, faultsLeft: faultsLeft)
                if again == choices { break }
                choices = again
            }
            if !choices.contains(where: { !$0.isFault }) {
                guard running(world) else {
                    if world.problemCount == 0 {
                        await world.settle(8)
                        await world.finalChecks()
                    }
                    // Every operation finished and nothing was held, but a task an operation left
                    // behind (a revoke runs in a task of its own, F2/F7/L11/L12) may have been on
                    // its way to its gate on a busy machine, and the final checks (which wait and
                    // look again before reporting) saw its work undone: when such a gate is held
                    // now, the schedule goes on (it is released like any other) and is judged again.
                    if world.problemCount > 0, enabled(world, faultsLeft: faultsLeft).contains(where: { !$0.isFault }) {
                        world.clearProblems()
                        continue
                    }
                    finalChecked = true
                    break
                }
                // Something still runs but nothing is held: a task may be slow on a busy machine.
                // Wait: the suite's time limit is the hang guard.
                var looks = 0
                repeat {
                    await world.settle(20)
                    choices = enabled(world, faultsLeft: faultsLeft)
                    looks += 1
                    if looks % 50 == 0 {
                        print("exploration: still waiting after \(result.taken.joined(separator: " → "))")
                    }
                } while running(world) && !choices.contains(where: { !$0.isFault })
                guard running(world) else { continue }
            }
            guard step < bounds.maximumSteps else {
                world.note("no end after \(bounds.maximumSteps) choices")
                break
            }
            var names = choices.map(\.description)
            var index = choices.firstIndex { !$0.isFault } ?? 0
            if step < prefix.count {
                // A replayed choice not enabled yet: its task may still be on its way to the gate
                // (a busy machine); look longer before calling the replay divergent.
                var patience = 0
                while !names.contains(prefix[step]) && patience < 16 {
                    await world.settle(8)
                    choices = enabled(world, faultsLeft: faultsLeft)
                    names = choices.map(\.description)
                    index = choices.firstIndex { !$0.isFault } ?? 0
                    patience += 1
                }
                // Everything finished meanwhile: look again from the top.
                if !choices.contains(where: { !$0.isFault }) { continue }
                if let wanted = names.firstIndex(of: prefix[step]) {
                    index = wanted
                } else {
                    if !result.diverged, ProcessInfo.processInfo.environment["MULTIAUTH_EXPLORE_DEBUG"] != nil {
                        print("divergence at \(step): wanted \(prefix[step]) after \(result.taken), enabled \(names)")
                    }
                    result.diverged = true
                }
            }
            if step < bounds.depth {
                result.trace.append(Position(enabled: names, chosen: index))
            }
            let choice = choices[index]
            if choice.isFault { faultsLeft -= 1 }
            result.taken.append(names[index])
            let baseline = await world.signals()
            take(choice, in: world)
            if case .cancel = choice {
                // A cancellation moves nothing until the task is let go.
            } else {
                await world.awaitProgress(from: baseline)
            }
            step += 1
        }
        if world.problemCount == 0 && !finalChecked {
            await world.settle(8)
            await world.finalChecks()
        }
        result.problems = world.problems
        return result
    }
}
