/// Lets other tasks run until `condition` holds: yields the calling task (`Task.yield()`) at most
/// `maximumYields` times, checking `condition` before each yield.
///
/// For tests that wait for work other tasks do in response to something the test did (an event
/// delivered, a background refresh started), without sleeping and without depending on the
/// machine's speed in time: the bound counts yields, not seconds. It returns rather than hangs
/// when the condition never holds, so the test's next expectation reports what is missing.
///
/// - Parameters:
///   - maximumYields: The most yields before giving up (10,000 by default).
///   - condition: Checked before each yield, on the calling task.
/// - Returns: Whether `condition` held (`false` when the yields ran out).
/// - Concurrency: Runs on the calling task; `condition` may `await`.
@discardableResult
public func settle(maximumYields: Int = 10_000, until condition: () async -> Bool) async -> Bool {
    for _ in 0..<max(0, maximumYields) {
        if await condition() { return true }
        await Task.yield()
    }
    return await condition()
}
