import Foundation
import MultiAuth

/// Notes the event bus's sequence number at each successful save, so a check can prove a
/// session was stored before `signedIn` was published.
final class SaveLog: @unchecked Sendable {
    private let lock = NSLock()
    private var _bus: AuthEventBus?
    private var entries: [(sessionID: String, sequence: UInt64)] = []

    var bus: AuthEventBus? {
        get {
            lock.lock()
            defer { lock.unlock() }
            return _bus
        }
        set {
            lock.lock()
            _bus = newValue
            lock.unlock()
        }
    }

    func note(_ session: AuthSession) {
        lock.lock()
        entries.append((session.id, _bus?.currentSequence ?? 0))
        lock.unlock()
    }

    /// The bus sequence number when `sessionID` was first saved, if it was.
    func sequence(ofFirstSave sessionID: String) -> UInt64? {
        lock.lock()
        defer { lock.unlock() }
        return entries.first { $0.sessionID == sessionID }?.sequence
    }
}
