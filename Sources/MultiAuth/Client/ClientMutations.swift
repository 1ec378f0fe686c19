import Foundation

/// Test seams that switch off one guard of `AuthClient`, so the model-based test can show it
/// catches the bug the guard prevents (mutation checks, Docs/Reliability.md).
package struct ClientMutations: Sendable, Hashable {
    /// Refresh results are saved and removals made without the conditional write.
    package var unconditionalWrites = false
    /// Concurrent deliveries of one redirect each call the provider.
    package var noRedirectSingleFlight = false
    /// A refresh answer is applied without checking that it names the same provider and user (L7).
    package var noRefreshIdentityCheck = false
    /// A signed-in session naming another provider than the one that produced it is stored (L8).
    package var noSessionProviderCheck = false

    /// No mutation: every guard on.
    package init(
        unconditionalWrites: Bool = false, noRedirectSingleFlight: Bool = false, noRefreshIdentityCheck: Bool = false,
        noSessionProviderCheck: Bool = false
    ) {
        self.unconditionalWrites = unconditionalWrites
        self.noRedirectSingleFlight = noRedirectSingleFlight
        self.noRefreshIdentityCheck = noRefreshIdentityCheck
        self.noSessionProviderCheck = noSessionProviderCheck
    }
}
