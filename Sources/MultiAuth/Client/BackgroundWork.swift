/// Marks the sleeps of MultiAuth's own background work (the auto-refresh scheduler), so a test
/// clock (the sandbox's `ManualClock`) can tell them apart from the sleeps of the operation a
/// test drives.
package enum BackgroundWork {
    /// `true` inside a background sleep.
    @TaskLocal package static var isActive = false
}
