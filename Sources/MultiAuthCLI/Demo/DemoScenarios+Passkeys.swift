import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthSandbox

extension DemoScenarios {
    /// Passkeys (Docs/Passkeys.md): a new account registers a passkey with the sandbox's
    /// software authenticator (it plays the platform's passkey sheet), signs out, then signs in
    /// with the passkey without typing an account name. The relying party verifies both with
    /// `WebAuthnVerifier`.
    static func passkeys(_ world: DemoWorld) async throws -> AuthSession? {
        let (email, step) = try await start(
            world, "e-mail address for the new account", suggestion: "grace@example.com",
            parse: { try EmailAddress($0) }
        ) { email in
            world.console.say("→ signIn(with: \"passkeys\", .email(\(email.masked)))")
            return try await world.client.signIn(with: DemoWorld.passkeysID, .email(email))
        }
        guard case .challenge(let signUp) = step, case .passkey(let ceremony) = signUp.kind else {
            return step.session
        }
        world.console.say(
            "🔑 \(ceremony.operation.rawValue) ceremony for \(ceremony.relyingPartyID): "
                + "\(ceremony.challenge.count)-byte challenge, user verification \(ceremony.userVerification.rawValue)")
        let created = try world.authenticator.answer(signUp)
        world.console.say("→ submit(ChallengeAnswer(passkey: \(created.passkey.map { "\($0)" } ?? "-")))")
        guard let registered = try await world.client.submit(created, for: signUp).session else { return nil }
        await world.printer.catchUp()
        world.console.say("✔ registered and signed in as \(email.masked); signing out to sign in with the passkey")
        _ = try await world.client.signOut(DemoWorld.passkeysID)
        await world.printer.catchUp()

        world.console.say("→ signIn(with: \"passkeys\", .passkey())   (no account name typed)")
        guard let signIn = try await world.client.signIn(with: DemoWorld.passkeysID, .passkey()).challenge else {
            return nil
        }
        let signed = try world.authenticator.answer(signIn)
        world.console.say("→ submit(ChallengeAnswer(passkey: \(signed.passkey.map { "\($0)" } ?? "-")))")
        let session = try await world.client.submit(signed, for: signIn).session
        if let session, session.user.id != registered.user.id {
            world.console.say("✗ the passkey signed in another user than it registered")
            return nil
        }
        return session
    }
}
