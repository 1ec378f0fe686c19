import Foundation
import MultiAuth

/// Notes the client's event sequence number at each successful save, so a check can prove a
/// session was stored before `signedIn` was published.
final class SaveLog: @unchecked Sendable {
    private let lock = NSLock()
    private var _events: AuthEventSource?
    private var entries: [(sessionID: String, sequence: UInt64)] = []

    var events: AuthEventSource? {
        get {
            lock.lock()
            defer { lock.unlock() }
            return _events
        }
        set {
            lock.lock()
            _events = newValue
            lock.unlock()
        }
    }

    func note(_ session: AuthSession) {
        lock.lock()
        entries.append((session.id, _events?.currentSequence ?? 0))
        lock.unlock()
    }

    /// The event sequence number when `sessionID` was first saved, if it was.
    func sequence(ofFirstSave sessionID: String) -> UInt64? {
        lock.lock()
        defer { lock.unlock() }
        return entries.first { $0.sessionID == sessionID }?.sequence
    }
}
