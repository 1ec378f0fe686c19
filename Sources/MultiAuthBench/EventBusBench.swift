import Foundation
import MultiAuth

/// Event bus fan-out against raw `AsyncStream` fan-out, and publish latency.
enum EventBusBench {
    static let events = 100_000

    /// Deliveries per second from one publisher to `subscribers` consumers through the bus.
    static func busDeliveries(subscribers: Int) async -> Double {
        let bus = AuthEventBus()
        let streams = (0..<subscribers).map { _ in bus.subscribe(bufferCapacity: events) }
        let start = Measure.clock.now
        await withTaskGroup(of: Int.self) { group in
            for stream in streams {
                group.addTask {
                    var count = 0
                    for await _ in stream { count += 1 }
                    return count
                }
            }
            group.addTask {
                for _ in 0..<events { bus.publish(.flowExpired, provider: "bench") }
                bus.finish()
                return 0
            }
            for await _ in group {}
        }
        let seconds = (Measure.clock.now - start).nanoseconds / 1e9
        return Double(events * subscribers) / seconds
    }

    /// The same fan-out with one `AsyncStream` per consumer and a sequence counter.
    static func rawDeliveries(subscribers: Int) async -> Double {
        let pairs = (0..<subscribers).map { _ in AsyncStream<AuthEvent>.makeStream(bufferingPolicy: .bufferingNewest(events)) }
        let start = Measure.clock.now
        await withTaskGroup(of: Int.self) { group in
            for (stream, _) in pairs {
                group.addTask {
                    var count = 0
                    for await _ in stream { count += 1 }
                    return count
                }
            }
            let continuations = pairs.map(\.continuation)
            group.addTask {
                let lock = NSLock()
                var sequence: UInt64 = 0
                let now = Date(timeIntervalSince1970: 0)
                for _ in 0..<events {
                    lock.withLock {
                        sequence += 1
                        let event = AuthEvent(sequence: sequence, timestamp: now, provider: "bench", flowID: nil, kind: .flowExpired)
                        for continuation in continuations { continuation.yield(event) }
                    }
                }
                for continuation in continuations { continuation.finish() }
                return 0
            }
            for await _ in group {}
        }
        let seconds = (Measure.clock.now - start).nanoseconds / 1e9
        return Double(events * subscribers) / seconds
    }

    /// Publish latency (ns) to 8 subscribers that drain concurrently: p50 and p99.
    static func publishLatency() async -> (p50: Double, p99: Double) {
        let bus = AuthEventBus()
        let streams = (0..<8).map { _ in bus.subscribe(bufferCapacity: 1024) }
        var samples: [Double] = []
        samples.reserveCapacity(50_000)
        await withTaskGroup(of: Void.self) { group in
            for stream in streams { group.addTask { for await _ in stream {} } }
            for _ in 0..<50_000 {
                let start = Measure.clock.now
                bus.publish(.flowExpired, provider: "bench")
                samples.append((Measure.clock.now - start).nanoseconds)
            }
            bus.finish()
        }
        return (Measure.percentile(samples, 50), Measure.percentile(samples, 99))
    }

    static func run(repeats: Int) async -> [BenchRow] {
        var rows: [BenchRow] = []
        for subscribers in [1, 8] {
            var ours: [Double] = []
            var raw: [Double] = []
            for _ in 0..<repeats {
                ours.append(await busDeliveries(subscribers: subscribers))
                raw.append(await rawDeliveries(subscribers: subscribers))
            }
            let a = Measure.median(ours)
            let b = Measure.median(raw)
            rows.append(BenchRow(
                group: "event bus", name: "deliveries/s, 1 → \(subscribers)", value: a, unit: "/s", baseline: b,
                ratioLabel: String(format: "%.2f× raw AsyncStream", a / b), goal: "≥ 0.8×", met: a / b >= 0.8))
        }
        let latency = await publishLatency()
        rows.append(BenchRow(group: "event bus", name: "publish latency p50 (8 subs)", value: latency.p50, unit: "ns"))
        rows.append(BenchRow(group: "event bus", name: "publish latency p99 (8 subs)", value: latency.p99, unit: "ns"))
        return rows
    }
}
