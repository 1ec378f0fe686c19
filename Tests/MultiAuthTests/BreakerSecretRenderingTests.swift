import Foundation
import MultiAuth
import Testing

/// Breaker: `codeRejected` now carries the flow's pending challenge, whose provider state and
/// TOTP enrolment are secrets; no rendering of the event may show them.
@Suite(.timeLimit(.minutes(10)))
struct BreakerSecretRenderingTests {
    static let planted = "PLANTED-7f3c9e1d"

    @Test func codeRejectedWithAChallengeShowsNoSecretInAnyRendering() {
        let challenge = Challenge(
            flowID: FlowID(rawValue: "f-9"), provider: "p",
            kind: .totp(
                digits: 6, enrollment: TOTPEnrollment(otpauthURI: Secret("otpauth://totp/x?secret=\(Self.planted)"))),
            issuedAt: Date(timeIntervalSince1970: 0),
            providerState: ProviderState(["ticket": Secret(Self.planted)]))
        var dumped = ""
        let event = AuthEvent(
            sequence: 1, timestamp: Date(timeIntervalSince1970: 0), provider: "p", flowID: challenge.flowID,
            kind: .codeRejected(attemptsRemaining: 2, challenge: challenge))
        dump(event, to: &dumped)
        var walked = ""
        func walk(_ value: Any, depth: Int) {
            guard depth < 12 else { return }
            for child in Mirror(reflecting: value).children {
                walked +=
                    "\(child.label ?? "-")=\(String(describing: child.value))|\(String(reflecting: child.value))\n"
                walk(child.value, depth: depth + 1)
            }
        }
        walk(event, depth: 0)
        let renderings = [
            String(describing: event), String(reflecting: event), "\(event.kind)", String(reflecting: event.kind),
            dumped, walked,
        ]
        for rendering in renderings {
            #expect(!rendering.contains(Self.planted), "leaked: \(rendering.prefix(400))")
        }
    }
}
