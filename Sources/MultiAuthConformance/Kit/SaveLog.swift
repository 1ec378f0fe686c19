import Foundation
import MultiAuth
import MultiAuthLocking

/// Notes the client's event sequence number at each successful save, so a check can prove a
/// session was stored before `signedIn` was published.
final class SaveLog: Sendable {
    /// The log's mutable fields, only touched inside `state.withLock`.
    private struct State {
        var events: AuthEventSource?
        var entries: [(sessionID: String, sequence: UInt64)] = []
    }

    private let state = Locked(State())

    var events: AuthEventSource? {
        get { state.withLock { $0.events } }
        set { state.withLock { $0.events = newValue } }
    }

    func note(_ session: AuthSession) {
        state.withLock { state in state.entries.append((session.id, state.events?.currentSequence ?? 0)) }
    }

    /// The event sequence number when `sessionID` was first saved, if it was.
    func sequence(ofFirstSave sessionID: String) -> UInt64? {
        state.withLock { state in state.entries.first { $0.sessionID == sessionID }?.sequence }
    }
}
