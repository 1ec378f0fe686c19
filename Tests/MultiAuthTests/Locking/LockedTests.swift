import Foundation
import MultiAuthLocking
import Testing

@Suite("Locked: the package's lock box")
struct LockedTests {
    @Test("withLock serializes read-modify-write from many tasks: no increment is lost")
    func noLostUpdates() async {
        let box = Locked(0)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<5_000 { box.withLock { $0 += 1 } }
                }
            }
        }
        #expect(box.withLock { $0 } == 40_000)
    }

    @Test("changes made before a throw are kept and the lock is released")
    func throwKeepsChangesAndUnlocks() {
        struct Stop: Error {}
        let box = Locked([Int]())
        #expect(throws: Stop.self) {
            try box.withLock { state in
                state.append(1)
                throw Stop()
            }
        }
        // A second withLock would deadlock if the throw had left the lock held.
        #expect(box.withLock { $0 } == [1])
    }

    @Test("no rendering shows the guarded value")
    func renderingsHideTheState() {
        let box = Locked("planted-secret-4711")
        var dumped = ""
        dump(box, to: &dumped)
        for rendering in [String(describing: box), String(reflecting: box), dumped] {
            #expect(!rendering.contains("4711"), "\(rendering)")
        }
        #expect(Mirror(reflecting: box).children.isEmpty)
    }
}
