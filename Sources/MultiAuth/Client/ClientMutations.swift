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

    /// A refreshed session whose store write failed is dropped instead of kept unsaved (L9).
    package var noUnsavedRefresh = false
    /// A failed write of a refreshed session is retried only by the next call, not by the
    /// background scheduler with back-off (L9, S5).
    package var noUnsavedRetryOnScheduler = false
    /// A refresh result discarded because its session was signed out meanwhile is not revoked (L12).
    package var noOrphanRevoke = false
    /// Store writes and the state events that announce them are not ordered per provider (L13).
    package var unorderedStateWrites = false
    /// A flow's code and its magic link handled at once are both exchanged (F9).
    package var noCodeLinkOrdering = false

    /// A submit cancelled after the provider answered throws the answer away (F6).
    package var discardAnswerOnCancel = false
    /// A sign-in's save does not look again, once it holds the provider's write turn, whether a
    /// sign-out abandoned its flow meanwhile: it stores a session after that sign-out (F7).
    package var noAbandonBeforeSave = false
    /// `signOut` reads the stored session before it takes the provider's write turn, so a
    /// sign-in's save in flight lands after the read and survives the sign-out (F7).
    package var signOutReadsOutsideTurn = false

    /// `refresh(_:)` answers with whatever session is stored, another sign-in's included (L10).
    package var refreshReturnsAnySession = false

    /// `signOut` waits for the remote revoke, unbounded, before it removes the session (L11).
    package var revokeBeforeLocalRemoval = false

    /// A link of a flow that already signed in throws instead of answering with its session (F8).
    package var noAlreadySignedInRedirect = false

    /// `submit` and `resend` judge expiry by the challenge value passed in, not the flow's newest (F5).
    package var judgeHeldChallenge = false

    /// No mutation: every guard on.
    package init(
        unconditionalWrites: Bool = false, noRedirectSingleFlight: Bool = false, noRefreshIdentityCheck: Bool = false,
        noSessionProviderCheck: Bool = false, noUnsavedRefresh: Bool = false,
        discardAnswerOnCancel: Bool = false, noAbandonBeforeSave: Bool = false, signOutReadsOutsideTurn: Bool = false,
        refreshReturnsAnySession: Bool = false, revokeBeforeLocalRemoval: Bool = false,
        noAlreadySignedInRedirect: Bool = false, judgeHeldChallenge: Bool = false,
        noUnsavedRetryOnScheduler: Bool = false, noOrphanRevoke: Bool = false,
        unorderedStateWrites: Bool = false, noCodeLinkOrdering: Bool = false
    ) {
        self.noCodeLinkOrdering = noCodeLinkOrdering
        self.unorderedStateWrites = unorderedStateWrites
        self.noOrphanRevoke = noOrphanRevoke
        self.noUnsavedRetryOnScheduler = noUnsavedRetryOnScheduler
        self.judgeHeldChallenge = judgeHeldChallenge
        self.noAlreadySignedInRedirect = noAlreadySignedInRedirect
        self.revokeBeforeLocalRemoval = revokeBeforeLocalRemoval
        self.refreshReturnsAnySession = refreshReturnsAnySession
        self.discardAnswerOnCancel = discardAnswerOnCancel
        self.noAbandonBeforeSave = noAbandonBeforeSave
        self.signOutReadsOutsideTurn = signOutReadsOutsideTurn
        self.noUnsavedRefresh = noUnsavedRefresh
        self.unconditionalWrites = unconditionalWrites
        self.noRedirectSingleFlight = noRedirectSingleFlight
        self.noRefreshIdentityCheck = noRefreshIdentityCheck
        self.noSessionProviderCheck = noSessionProviderCheck
    }
}
