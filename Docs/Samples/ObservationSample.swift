// Sample: an app's set-up — the platform's session store, an `AuthModel` for SwiftUI, errors as
// people read them (README "In an app", Docs/GettingStarted.md §1, §2 and §4). Compiled by
// `swift test`; the model's part also runs against the sandbox below. SignInView.swift is the
// SwiftUI screen over the same model.
import Foundation
import MultiAuth
import MultiAuthDynamic
import MultiAuthHTTP
import MultiAuthObservation
import MultiAuthSandbox
import MultiAuthSandboxKit
import Testing

/// README "In an app": one client over the platform's store, one model for the UI (compiled,
/// not run: it talks to the real service).
@available(iOS 17, macOS 14, tvOS 17, watchOS 10, *)
@MainActor
func makeAppModel() throws -> AuthModel {
    let client = try AuthClient(
        providers: [DynamicProvider(configuration: try .production(environmentID: "<env id>"))],
        store: try SessionStores.platformDefault(service: "com.example.app.multiauth"),   // Keychain on Apple platforms, XDG file on Linux
        transport: URLSessionTransport())
    let model = AuthModel(client: client)                // @Observable, @MainActor: SwiftUI reads it directly
    return model
}

/// README "In an app", continued: restore, sign in, show what went wrong the way people read it.
@available(iOS 17, macOS 14, tvOS 17, watchOS 10, *)
@MainActor
func signIn(_ model: AuthModel, address: String, typedCode: () async -> String, show: (String) -> Void) async {
    await model.restore()                                // stored sessions arrive once, through observe()
    do {
        var step = try await model.signIn(with: .dynamic, .email(address))
        while case .challenge(let challenge) = step {     // model.pendingChallenges shows it too
            do {
                step = try await model.submit(ChallengeAnswer(code: await typedCode()), for: challenge)
            } catch let error as AuthError where error.asksForTheCodeAgain {
                show(error.localizedDescription + " " + (error.recoverySuggestion ?? ""))   // wrong or mistyped: same challenge, ask again
            }
        }
    } catch let error as AuthError {
        show(error.localizedDescription + " " + (error.recoverySuggestion ?? ""))   // same words for the same code, any provider
    } catch {}
}

@Suite(.timeLimit(.minutes(10)))
struct ObservationSample {
    /// The model part against the sandbox: a wrong code and a mistyped one (a space, a digit
    /// missing) each show the user-facing text and the loop asks again; the right code signs
    /// in, and the model shows the session.
    @available(iOS 17, macOS 14, tvOS 17, watchOS 10, *)
    @MainActor
    @Test func theModelSignsInAndShowsErrorsAsPeopleReadThem() async throws {
        let world = try StandardSandbox()
        let model = AuthModel(client: try world.makeClient())
        // Owned by this test and cancelled at its end, like a view's `.task`.
        let observing = Task { await model.observe() }
        defer { observing.cancel() }
        var shown: [String] = []
        var typed = ["000000", "12 34"]
        var asked = 0
        await signIn(
            model, address: "ada@example.com",
            typedCode: {
                asked += 1
                return typed.isEmpty
                    ? (world.inbox.latest(for: "ada@example.com", channel: .email)?.code ?? "") : typed.removeFirst()
            }, show: { shown.append($0) })
        #expect(
            shown == [
                "The code is incorrect. Check the code and try again.",
                "The code doesn’t have the right format. Enter the digits exactly as you received them.",
            ])
        #expect(asked == 3)
        await model.waitUntilProcessed(through: model.client.events.currentSequence)   // (test helper)
        let session = try #require(model.session(for: .dynamic))
        #expect(session.user.email?.identityKey == "ada@example.com")
        #expect(model.pendingChallenges.isEmpty)
    }
}
