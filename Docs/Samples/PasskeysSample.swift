// Sample: passkeys offline through AuthClient — sign up, sign in, prove a passkey provider.
// Compiled and run by `swift test` (target MultiAuthSamples); quoted in Docs/Passkeys.md.
import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthSandbox
import Testing

@Suite(.timeLimit(.minutes(10)))
struct PasskeysSample {
    @Test func signUpThenSignInWithAPasskey() async throws {
        let sandbox = Sandbox(seed: 5)
        sandbox.register(PasskeyBackend(), host: PasskeyProtocol.defaultHost)
        let client = try sandbox.makeClient(providers: [PasskeyReferenceProvider()])
        let authenticator = SoftwareAuthenticator(seed: 5)      // plays the platform's passkey sheet

        // A new account: the provider asks for a registration ceremony.
        let signUp = try #require(try await client.signIn(with: "passkeys", .email("kim@example.com")).challenge)
        guard case .passkey(let ceremony) = signUp.kind else { return }
        #expect(ceremony.operation == .registration)
        let created = try authenticator.answer(signUp)          // on iOS: PasskeyAuthorization
        let session = try #require(try await client.submit(created, for: signUp).session)

        // Later: no account name typed; the user picks the passkey.
        _ = try await client.signOut("passkeys")
        let signIn = try #require(try await client.signIn(with: "passkeys", .passkey()).challenge)
        let again = try await client.submit(try authenticator.answer(signIn), for: signIn).session
        #expect(again?.user.id == session.user.id)
    }

    @Test func proveAPasskeyProvider() async {
        let report = await PasskeyConformance(provider: { _ in PasskeyReferenceProvider() }, harness: .reference()).run()
        #expect(report.failed.isEmpty, "\(report.renderTable())")
    }
}
