import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthSandbox

/// A small seeded generator (SplitMix64): a schedule is a pure function of its seed.
struct ModelRandom: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 | 1 }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &self) < percent }
}

/// Where the task of a cancelled operation is cancelled (SwiftUI's `.task` cancels when its
/// view disappears, at whatever point the operation has reached).
enum CancelPoint: CustomStringConvertible, Sendable {
    /// Before the operation's main client call (submit, redirect, refresh, sign-out) begins.
    case beforeCall
    /// As the provider call begins, before its request is sent: nothing is spent.
    case beforeRequest
    /// Right after the provider answered, before the client applied the answer (rule F6).
    case afterAnswer

    var description: String {
        switch self {
        case .beforeCall: "before the call"
        case .beforeRequest: "before the request"
        case .afterAnswer: "after the answer"
        }
    }
}

/// The store write a store fault hits.
enum StoreWrite: CustomStringConvertible, Sendable, CaseIterable {
    /// `save` (a sign-in's persist).
    case save
    /// `replace(_:with:)` with a session (a refresh result, an unsaved refresh retried).
    case conditionalSave
    /// `replace(_:with: nil)` (a sign-out, an ended session, a withdrawn sign-in).
    case conditionalRemove

    var description: String {
        switch self {
        case .save: "save"
        case .conditionalSave: "conditional save"
        case .conditionalRemove: "conditional remove"
        }
    }
}

/// An answer the provider rewrites so that it names someone else (rules L7, L8).
enum ForeignAnswer: CustomStringConvertible, Sendable, CaseIterable {
    /// The next refresh answer names another user id (L7).
    case refreshOtherUser
    /// The next refresh answer names another provider (L7).
    case refreshOtherProvider
    /// The next sign-in answer (submit or redirect) names another provider (L8).
    case signInOtherProvider

    var description: String {
        switch self {
        case .refreshOtherUser: "refresh→other user"
        case .refreshOtherProvider: "refresh→other provider"
        case .signInOtherProvider: "sign-in→other provider"
        }
    }
}

/// One operation of a schedule, run by client `client` (0 or 1).
indirect enum ModelOperation: CustomStringConvertible, Sendable {
    case signInWithCode(client: Int)
    /// A magic link delivered `deliveries` times at once (duplicate deliveries).
    case signInWithLink(client: Int, deliveries: Int)
    /// A user sign-out; with `remoteLost`, the remote revocation fails (503) and the old
    /// refresh token stays valid on the server.
    case signOut(client: Int, remoteLost: Bool)
    case refresh(client: Int)
    case validSession(client: Int)
    case restoreSessions(client: Int)
    /// The server revokes the stored session's refresh token.
    case revokeOnServer
    /// The clock jumps (background refreshes become due, tokens expire).
    case advance(seconds: Int)
    /// `operation` (a sign-in, refresh, `validSession` or sign-out) whose task is cancelled at
    /// `point`.
    case cancelled(ModelOperation, at: CancelPoint)
    /// The next `count` writes of kind `write` by client `client` throw (a locked keychain);
    /// a failed write changes nothing.
    case failStoreWrite(client: Int, write: StoreWrite, count: Int)
    /// The next `save` by client `client` takes two seconds on the clock before it reaches the
    /// store (a slow keychain): a sign-out can overtake it (rule F7).
    case slowSave(client: Int)
    /// The provider's next answer of that kind names another user or provider.
    case foreignAnswer(ForeignAnswer)
    /// A magic link delivered `deliveries` times at once, `seconds` after the sign-in started
    /// (the user reads the e-mail late; past the challenge's lifetime the flow expired).
    case lateLink(client: Int, deliveries: Int, seconds: Int)
    /// `operation`, started `seconds` later on the clock than the round's others (a sign-out
    /// that lands while a sign-in's save is in flight, rule F7).
    case delayed(ModelOperation, seconds: Int)

    var description: String {
        switch self {
        case .signInWithCode(let c): "signIn+code@\(c)"
        case .signInWithLink(let c, let n): "signIn+link×\(n)@\(c)"
        case .signOut(let c, let lost): "signOut\(lost ? "(remote lost)" : "")@\(c)"
        case .refresh(let c): "refresh@\(c)"
        case .validSession(let c): "validSession@\(c)"
        case .restoreSessions(let c): "restoreSessions@\(c)"
        case .revokeOnServer: "revokeOnServer"
        case .advance(let s): "advance(\(s)s)"
        case .cancelled(let operation, let point): "cancel(\(operation) \(point))"
        case .failStoreWrite(let c, let write, let count): "failStore(\(write)×\(count))@\(c)"
        case .slowSave(let c): "slowSave@\(c)"
        case .foreignAnswer(let kind): "foreign(\(kind))"
        case .delayed(let operation, let seconds): "\(operation)+\(seconds)s"
        case .lateLink(let c, let n, let seconds): "signIn+link×\(n)@\(c) tapped after \(seconds)s"
        }
    }
}

/// Faults active during one round.
struct ModelFaults: CustomStringConvertible {
    /// Seconds of latency on each request (0: none), per path prefix.
    var latency: [(path: String, seconds: Int)] = []
    /// The next refresh is dropped (offline) / answered 429 / answered 503.
    var refreshFault: Int?
    var description: String {
        let parts =
            latency.map { "latency \($0.seconds)s \($0.path)" }
            + (refreshFault.map { ["refresh \($0 == 0 ? "offline" : String($0))"] } ?? [])
        return parts.isEmpty ? "no faults" : parts.joined(separator: ", ")
    }
}

/// A schedule: rounds of operations started together, each round with its faults.
struct ModelSchedule: CustomStringConvertible {
    let seed: UInt64
    var rounds: [(faults: ModelFaults, operations: [ModelOperation])] = []

    init(seed: UInt64) {
        self.seed = seed
        var random = ModelRandom(seed: seed)
        let count = Int.random(in: 3...5, using: &random)
        for index in 0..<count {
            var faults = ModelFaults()
            for path in ["/otp/verify", "/token/refresh", "/logout"] where random.chance(35) {
                faults.latency.append((path, Int.random(in: 1...3, using: &random)))
            }
            if random.chance(30) { faults.refreshFault = [0, 429, 503].randomElement(using: &random)! }
            var operations: [ModelOperation] = []
            if index == 0 { operations.append(.signInWithCode(client: Int.random(in: 0...1, using: &random))) }
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let client = Int.random(in: 0...1, using: &random)
                // One operation in four is of the newer kinds: cancellations, store faults and
                // foreign answers.
                if random.chance(25) {
                    operations.append(Self.newerOperation(client: client, using: &random))
                    continue
                }
                let operation: ModelOperation =
                    switch Int.random(in: 0..<100, using: &random) {
                    case 0..<14: .signInWithCode(client: client)
                    case 14..<28: .signInWithLink(client: client, deliveries: Int.random(in: 1...3, using: &random))
                    case 28..<40: .signOut(client: client, remoteLost: random.chance(50))
                    case 40..<56: .refresh(client: client)
                    case 56..<72: .validSession(client: client)
                    case 72..<78: .restoreSessions(client: client)
                    case 78..<86: .revokeOnServer
                    default: .advance(seconds: [1800, 3545, 3600, 7300].randomElement(using: &random)!)
                    }
                operations.append(operation)
            }
            rounds.append((faults, operations))
        }
    }

    /// A cancellation, a store fault or a foreign answer.
    static func newerOperation(client: Int, using random: inout ModelRandom) -> ModelOperation {
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<50:
            let point = [CancelPoint.beforeCall, .beforeRequest, .afterAnswer].randomElement(using: &random)!
            let inner: ModelOperation =
                switch Int.random(in: 0..<100, using: &random) {
                case 0..<45: .signInWithCode(client: client)
                case 45..<60: .signInWithLink(client: client, deliveries: Int.random(in: 1...2, using: &random))
                case 60..<75: .refresh(client: client)
                case 75..<85: .validSession(client: client)
                default: .signOut(client: client, remoteLost: random.chance(30))
                }
            return .cancelled(inner, at: point)
        case 50..<78:
            return .failStoreWrite(
                client: client, write: StoreWrite.allCases.randomElement(using: &random)!,
                count: Int.random(in: 1...2, using: &random))
        case 78..<84:
            return .slowSave(client: client)
        case 84..<88:
            return .lateLink(
                client: client, deliveries: Int.random(in: 1...3, using: &random),
                seconds: [30, 200, 301, 600].randomElement(using: &random)!)
        case 88..<92:
            return .delayed(
                .signOut(client: client, remoteLost: random.chance(30)), seconds: Int.random(in: 1...4, using: &random))
        default:
            return .foreignAnswer(ForeignAnswer.allCases.randomElement(using: &random)!)
        }
    }

    var description: String {
        "seed \(seed): "
            + rounds.enumerated().map {
                "[\($0.offset): \($0.element.faults); \($0.element.operations.map(\.description).joined(separator: ", "))]"
            }
            .joined(separator: " ")
    }
}
