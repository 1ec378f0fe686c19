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

/// One operation of a schedule, run by client `client` (0 or 1).
enum ModelOperation: CustomStringConvertible {
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

    var description: String {
        "seed \(seed): "
            + rounds.enumerated().map {
                "[\($0.offset): \($0.element.faults); \($0.element.operations.map(\.description).joined(separator: ", "))]"
            }
            .joined(separator: " ")
    }
}
