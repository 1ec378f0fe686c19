// Sample: a passkey sign-in button in SwiftUI with `PasskeyAuthorization` (Docs/Passkeys.md).
// Compiled where SwiftUI and AuthenticationServices exist (not watchOS, which has no
// presentation anchor); on Linux Scripts/typecheck_apple.py type-checks it against the
// SwiftUI and AuthenticationServices declarations taken from Apple's documentation, and the
// MultiAuthSamples target compiles it out.
#if canImport(SwiftUI) && canImport(AuthenticationServices) && !os(watchOS)
import AuthenticationServices
import MultiAuth
import SwiftUI

/// One button: start a passkey sign-in, run the platform's passkey sheet, submit what it
/// returned. A dismissed sheet (`.cancelledByUser`) shows nothing and the button starts again;
/// any other error shows its text, the same for every provider.
struct PasskeySignInView: View {
    let client: AuthClient
    let provider: AuthProviderID
    /// The window the passkey sheet is presented over.
    let anchor: ASPresentationAnchor
    @State private var signedInAs: String?
    @State private var errorText: String?

    var body: some View {
        VStack {
            if let signedInAs {
                Text(signedInAs)
            } else {
                Button("Sign in with a passkey") { Task { await signIn() } }
            }
            if let errorText {
                Text(errorText)
            }
        }
    }

    private func signIn() async {
        errorText = nil
        do {
            var step = try await client.signIn(with: provider, .passkey())
            if case .challenge(let challenge) = step {
                let answer = try await PasskeyAuthorization().perform(challenge, anchor: anchor)
                // A dismissed sheet answers `.cancelled`: the submit throws `.cancelledByUser`.
                step = try await client.submit(answer, for: challenge)
            }
            if let session = step.session {
                signedInAs = session.user.email?.address ?? session.user.id
            }
        } catch let error as AuthError where error.code == .cancelledByUser {
            return  // the person closed the sheet: say nothing
        } catch {
            errorText = error.localizedDescription
        }
    }
}
#endif
