import Foundation
import MultiAuth
import Testing

@testable import MultiAuthPortal

/// The session names the verified e-mail identity by the end user's id; the address itself
/// appears only masked (found by C14).
@Suite(.timeLimit(.minutes(10)))
struct PortalSessionPrivacyTests {
    @Test func noDumpOfTheSessionHoldsTheAddress() async throws {
        let bed = try PortalWorld(totpRequired: false)
        let session = try #require(try await bed.magicLinkRedirect().session)
        #expect(session.user.email?.identityKey == PortalWorld.email)
        #expect(session.user.identities == [AuthUser.Identity(kind: "email", value: session.user.id, verified: true)])
        var dumped = ""
        dump(session, to: &dumped)
        for text in [String(describing: session), String(reflecting: session), dumped] {
            #expect(!text.contains(PortalWorld.email))
        }
    }
}
