// Sample: a SwiftUI sign-in screen over `AuthModel` (README "On iOS", Docs/GettingStarted.md).
// Compiled where SwiftUI exists (Apple platforms); on Linux Scripts/typecheck_apple.py
// type-checks it against SwiftUI declarations taken from Apple's documentation, and
// ObservationSample.swift runs the same model calls against the sandbox.
#if canImport(SwiftUI)
import MultiAuth
import MultiAuthObservation
import SwiftUI

/// E-mail, then the code (and a name when the challenge asks for one), then who is signed in;
/// errors shown as the person should read them.
@available(iOS 17, macOS 14, tvOS 17, watchOS 10, *)
struct SignInView: View {
    let model: AuthModel
    let provider: AuthProviderID
    @State private var email = ""
    @State private var code = ""
    @State private var firstName = ""

    var body: some View {
        VStack {
            if let session = model.session(for: provider) {
                Text(session.user.email?.address ?? session.user.id)
                Button("Sign out") { Task { try? await model.signOut(provider) } }
            } else if let challenge = model.pendingChallenge(for: provider) {
                if challenge.requirements.contains(.name) {
                    TextField("First name", text: $firstName)            // asked before the code, not after a refusal
                }
                TextField("Code", text: $code)
                Button("Continue") {
                    let name = challenge.requirements.contains(.name) ? try? PersonName(firstName: firstName) : nil
                    Task { try? await model.submit(ChallengeAnswer(code: code, name: name), for: challenge) }
                }
            } else {
                TextField("Email", text: $email)
                Button("Send code") { Task { try? await model.signIn(with: provider, .email(email)) } }
            }
            if let error = model.lastError {
                Text(error.localizedDescription)                             // same text for the same code, any provider
                Text(error.recoverySuggestion ?? "")
            }
        }
        .task { await model.observe() }                                      // follows the client while the view is shown
    }
}
#endif
