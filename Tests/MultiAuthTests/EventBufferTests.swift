import Foundation
import MultiAuthSandbox
import Testing

@testable import MultiAuth

/// The overflow policy of a subscriber's buffer (Docs/Events.md, "Buffers and overflow"),
/// checked against a plain reference implementation that scans, and its cost per operation.
@Suite(.timeLimit(.minutes(10)))
struct EventBufferTests {
    /// The policy written the obvious way: O(buffer) per append.
    struct ReferenceBuffer {
        let capacity: Int
        var items: [(event: AuthEvent, supersededAt: Int?)] = []
        var supersessions = 0
        var gap = 0

        static func isInitial(_ event: AuthEvent) -> Bool {
            if case .initialState = event.kind { return true }
            return false
        }

        mutating func append(_ event: AuthEvent) {
            if event.kind.isStateEvent, !Self.isInitial(event),
                let index = items.lastIndex(where: {
                    $0.event.kind.isStateEvent && !Self.isInitial($0.event) && $0.event.provider == event.provider
                        && $0.supersededAt == nil
                })
            {
                supersessions += 1
                items[index].supersededAt = supersessions
            }
            items.append((event, nil))
            guard items.count > capacity else { return }
            let superseded = items.indices.filter { items[$0].supersededAt != nil }
            if let index = superseded.min(by: { items[$0].supersededAt! < items[$1].supersededAt! }) {
                items.remove(at: index)
            } else if let index = items.firstIndex(where: { !$0.event.kind.isStateEvent }) {
                items.remove(at: index)
            } else if items.count > capacity * 2 {
                items.removeFirst()
            } else {
                return
            }
            gap += 1
        }

        mutating func pop() -> AuthEvent? { items.isEmpty ? nil : items.removeFirst().event }
    }

    static let session = AuthSession(
        id: "s", provider: "p", user: AuthUser(id: "u"), credentials: Credentials(accessToken: "A"),
        createdAt: Date(timeIntervalSince1970: 0))

    static func event(_ sequence: UInt64, _ kind: AuthEvent.Kind, provider: String?) -> AuthEvent {
        AuthEvent(
            sequence: sequence, timestamp: Date(timeIntervalSince1970: Double(sequence)),
            provider: provider.map(AuthProviderID.init(rawValue:)),
            flowID: nil, kind: kind)
    }

    /// A random mix of flow events, state events of a few providers, rare initial states and
    /// reads; both buffers must deliver the same events and report the same gaps.
    @Test(arguments: [1, 2, 3, 5, 8, 13, 64])
    func matchesTheReferencePolicy(capacity: Int) {
        let seed = UInt64(0x5EED_0000) + UInt64(capacity)
        var random = SeededRandomNumberGenerator(seed: seed)
        var buffer = EventBuffer(capacity: capacity)
        var reference = ReferenceBuffer(capacity: capacity)
        var sequence: UInt64 = 0
        for step in 0..<20_000 {
            let roll = Int.random(in: 0..<100, using: &random)
            // Phases of heavy lag (reads rare) and of catching up (reads frequent).
            let readPercent = (step / 2_000) % 2 == 0 ? 10 : 60
            if roll < readPercent {
                let expectedGap = reference.gap
                reference.gap = 0
                let gap = buffer.takeGap().count
                let got = buffer.popFirst()?.sequence
                let want = reference.pop()?.sequence
                #expect(
                    gap == expectedGap && got == want,
                    "seed \(seed), step \(step): got \(String(describing: got)) gap \(gap), want \(String(describing: want)) gap \(expectedGap)"
                )
                if gap != expectedGap || got != want { return }
                continue
            }
            sequence += 1
            let provider = ["a", "b", "c", "d", nil].randomElement(using: &random)!
            let kind: AuthEvent.Kind =
                switch roll {
                case 100 - 1: .initialState(AuthState())
                case 60..<80: .sessionRefreshed(Self.session)
                case 80..<85: .signedOut
                default: .flowExpired
                }
            let event = Self.event(sequence, kind, provider: provider)
            buffer.append(event)
            reference.append(event)
            #expect(buffer.count == reference.items.count, "seed \(seed), step \(step)")
            if buffer.count != reference.items.count { return }
        }
        #expect(buffer.totalDropped >= 0)
    }

    /// Every operation is O(1) amortised: with a 256-event buffer and a subscriber that never
    /// (or rarely) reads, the slots and positions visited stay within a small constant per
    /// operation, where a scan of the buffer per publish would visit hundreds.
    @Test(arguments: [
        "flow flood", "one provider's states", "states of two providers between flow events",
        "distinct providers", "slow reader",
    ])
    func everyOperationIsConstantAmortised(pattern: String) {
        var buffer = EventBuffer(capacity: 256)
        let operations = 100_000
        for index in 0..<operations {
            let sequence = UInt64(index + 1)
            switch pattern {
            case "flow flood":
                buffer.append(Self.event(sequence, .flowExpired, provider: "p"))
            case "one provider's states":
                buffer.append(Self.event(sequence, .sessionRefreshed(Self.session), provider: "p"))
            case "states of two providers between flow events":
                let kind: AuthEvent.Kind = index % 2 == 0 ? .sessionRefreshed(Self.session) : .flowExpired
                buffer.append(Self.event(sequence, kind, provider: index % 3 == 0 ? "p" : "q"))
            case "distinct providers":
                buffer.append(Self.event(sequence, .signedOut, provider: "p\(index)"))
            default:
                buffer.append(
                    Self.event(sequence, index % 5 == 0 ? .signedOut : .flowExpired, provider: "p\(index % 7)"))
                if index % 3 == 0 { _ = buffer.popFirst() }
            }
        }
        #expect(buffer.count <= 512)
        #expect(buffer.work <= 8 * operations, "\(buffer.work) slots visited for \(operations) operations")
    }
}
