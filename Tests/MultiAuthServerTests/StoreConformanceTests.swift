import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthSandboxRuntime
import MultiAuthServer
import Testing

/// The store conformance kit against the in-memory stores (on a `ManualClock`) and against
/// planted broken stores, each of which must fail exactly the checks about its flaw.
@Suite(.timeLimit(.minutes(10)))  // hang guard only
struct StoreConformanceTests {
    /// In-memory stores that cannot take a new key: the in-memory failure mode.
    static func fullStores(clock: ManualClock) async throws -> StoreConformanceSubject.Unavailable {
        let store = InMemoryReplayStore(time: clock.timeSource, capacity: 1)
        let limiter = InMemoryAttemptLimiter(time: clock.timeSource, capacity: 1)
        _ = try await store.consumeOnce(key: try store.keyspace.key("fill", "a"), ttl: ReplayStoreLimits.maximumTTL)
        _ = try await store.advance(key: try store.keyspace.key("fill", "b"), to: 1, ttl: ReplayStoreLimits.maximumTTL)
        _ = try await limiter.hit(
            key: try limiter.keyspace.key("fill", "c"), limit: 1, window: ReplayStoreLimits.maximumTTL)
        return .init(replayStore: store, attemptLimiter: limiter)
    }

    @Test func theInMemoryStoresPassEveryCheck() async throws {
        let clock = ManualClock()
        let subject = StoreConformanceSubject(
            name: "in-memory", replayStore: InMemoryReplayStore(time: clock.timeSource),
            attemptLimiter: InMemoryAttemptLimiter(time: clock.timeSource),
            time: .manual(advance: { clock.advance(by: $0) }), unavailable: try await Self.fullStores(clock: clock))
        let report = await StoreConformance.run(subject)
        print(report.renderTable())
        #expect(report.isConforming, "\(report.failed)")
        #expect(report.skipped.isEmpty)
        #expect(report.results.count == StoreConformanceCheck.allCases.count)
    }

    func report(_ flaw: PlantedStore.Flaw) async throws -> StoreConformanceReport {
        let clock = ManualClock()
        let planted = PlantedStore(flaw, clock: clock)
        let unavailable =
            flaw == .failOpen
            ? StoreConformanceSubject.Unavailable(replayStore: planted, attemptLimiter: planted)
            : try await Self.fullStores(clock: clock)
        return await StoreConformance.run(
            StoreConformanceSubject(
                name: "planted", replayStore: planted, attemptLimiter: planted,
                time: .manual(advance: { clock.advance(by: $0) }), unavailable: unavailable))
    }

    func failedChecks(_ report: StoreConformanceReport) -> Set<String> { Set(report.failed.map(\.id)) }

    /// The done-when criterion: a check-then-set implementation fails the kit, on exactly the
    /// three concurrency checks, and passes the sequential ones (so the failure is about
    /// atomicity, not something else).
    @Test func aCheckThenSetStoreFailsTheAtomicityChecks() async throws {
        let report = try await report(.checkThenSet)
        #expect(!report.isConforming)
        #expect(failedChecks(report) == ["S02", "S05", "S08"], "\(report.renderTable())")
        #expect(report.result(for: .consumeOnceIsAtomic)?.detail?.contains("racers were accepted") == true)
    }

    @Test func aStoreThatNeverForgetsFailsTheTTLChecks() async throws {
        let report = try await report(.neverExpires)
        #expect(failedChecks(report) == ["S03", "S06", "S07"], "\(report.renderTable())")
    }

    @Test func aStoreComparingStepsAsDoublesFailsTheStepCheck() async throws {
        let report = try await report(.doubleSteps)
        #expect(failedChecks(report) == ["S04"], "\(report.renderTable())")
        #expect(report.result(for: .advanceOnlyMovesForward)?.detail?.contains("9007199254740993") == true)
    }

    @Test func aStoreThatFailsOpenFailsTheOutageCheck() async throws {
        let report = try await report(.failOpen)
        #expect(failedChecks(report).contains("S11"), "\(report.renderTable())")
    }

    @Test func aStoreSkippingArgumentChecksFailsTheArgumentCheck() async throws {
        let report = try await report(.acceptsBadArguments)
        #expect(failedChecks(report) == ["S10"], "\(report.renderTable())")
    }

    @Test func aStoreKeyingByNamespaceOnlyFailsTheKeyChecks() async throws {
        let report = try await report(.namespaceOnly)
        #expect(failedChecks(report).isSuperset(of: ["S01", "S09"]), "\(report.renderTable())")
    }

    @Test func withoutAnUnavailableInstanceTheOutageCheckIsSkippedNotPassed() async throws {
        let clock = ManualClock()
        let report = await StoreConformance.run(
            StoreConformanceSubject(
                name: "in-memory", replayStore: InMemoryReplayStore(time: clock.timeSource),
                attemptLimiter: InMemoryAttemptLimiter(time: clock.timeSource),
                time: .manual(advance: { clock.advance(by: $0) })),
            checks: [.unavailableStoreFailsClosed])
        #expect(report.skipped.map(\.id) == ["S11"])
        #expect(report.renderTable().contains("0 passed, 0 failed, 1 skipped"))
        let json = try JSONDecoder().decode(StoreConformanceReport.self, from: try report.jsonData())
        #expect(json == report)
    }
}
