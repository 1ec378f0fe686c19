import Foundation
import MultiAuth

/// Prints a client's events as they happen: aligned, with sequence numbers and the time since
/// the demo started, or as JSON lines.
///
/// It owns one subscription, registered before any flow starts, and prints by draining it up
/// to the bus's current sequence number (``catchUp()``), so event lines and the demo's own
/// lines come out in the order things happened, without a background task.
///
/// Not `Sendable`: only the demo's one task uses it; ``catchUp()`` advances the iterator across
/// an `await`, which no lock could cover.
final class EventPrinter {
    private var iterator: AuthEventStream.Iterator
    private let events: AuthEventSource
    private let started = ContinuousClock.now
    private let json: Bool
    private var printed: UInt64 = 0
    private(set) var counts: [AuthProviderID: Int] = [:]
    /// How many events were printed: a count, not the events, so a long run holds no history.
    private(set) var printedCount = 0

    init(events: AuthEventSource, json: Bool) {
        self.events = events
        self.json = json
        iterator = events.subscribe(bufferCapacity: 4096).makeAsyncIterator()
        printed = events.currentSequence
    }

    /// Prints every event published so far.
    func catchUp() async {
        while printed < events.currentSequence, let event = await iterator.next() {
            printed = event.sequence
            printedCount += 1
            if let provider = event.provider { counts[provider, default: 0] += 1 }
            output(event)
        }
    }

    private var elapsed: String {
        let elapsed = ContinuousClock.now - started
        return String(format: "%7.1f ms", elapsed.timeInterval * 1000)
    }

    private func output(_ event: AuthEvent) {
        if json {
            var object: [String: Any] = [
                "type": "event", "sequence": event.sequence, "event": event.kind.name,
                "detail": Self.detail(event.kind),
                "elapsedMs": ((ContinuousClock.now - started).timeInterval * 1000).rounded(),
            ]
            object["provider"] = event.provider?.rawValue
            object["flow"] = event.flowID?.rawValue
            Terminal.out(Terminal.jsonLine(object))
            return
        }
        let sequence = "#\(event.sequence)".padding(toLength: 5, withPad: " ", startingAt: 0)
        let provider = (event.provider?.rawValue ?? "-").padding(toLength: 11, withPad: " ", startingAt: 0)
        let name = event.kind.name.padding(toLength: 26, withPad: " ", startingAt: 0)
        Terminal.out("    \(sequence) \(elapsed)  \(provider)\(name)\(Self.detail(event.kind))")
    }

    /// A short, secret-free detail for an event line.
    static func detail(_ kind: AuthEvent.Kind) -> String {
        switch kind {
        case .flowStarted(let summary): summary
        case .challengeIssued(let challenge):
            "\(challenge.kind)" + (challenge.destination.map { " → \($0)" } ?? "")
                + (challenge.expiresAt.map { ", valid \(Int($0.timeIntervalSince(challenge.issuedAt).rounded())) s" }
                    ?? "")
        case .deliveryStatus(let channel, let status): "\(status) via \(channel)"
        case .fallbackTriggered(let from, let to): "\(from) → \(to)"
        case .verificationStateChanged(let state): state
        case .codeRejected(let remaining, let challenge):
            "attempts remaining: \((challenge?.attemptsRemaining ?? remaining).map(String.init) ?? "?")"
        case .signedIn(let session), .sessionRefreshed(let session), .sessionRestored(let session): "\(session.user)"
        case .storageFailed(let error): error.code.rawValue
        case .sessionExpired(let error): "provider code: \(error.providerCode ?? "-")"
        case .initialState(let state): "\(state)"
        case .eventsDropped(let count): "\(count) events dropped by this subscriber's buffer"
        case .flowCancelled, .flowExpired, .attemptsExhausted, .signedOut: ""
        }
    }
}
