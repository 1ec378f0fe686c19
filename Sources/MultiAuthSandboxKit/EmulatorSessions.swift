import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthDynamic
import MultiAuthOTPless
import MultiAuthPortal
import MultiAuthSandbox
import MultiAuthSandboxServer
import MultiAuthTruecaller

/// Issues signed-in sessions on an emulator world for `POST /_multiauth/sessions` ("already
/// signed in" UI tests): a real sign-in with the provider's adapter and `.sandbox()`
/// configuration through the world's in-process transport, so the backend knows the session
/// (refresh and sign-out work) and the request log and inbox show how it was made.
///
/// The server module knows no adapter; `multiauth serve` passes ``issue`` as its
/// `SandboxServer.Configuration.sessionIssuer` (Docs/Emulator.md, "Issuing a session").
public enum EmulatorSessions {
    /// Signs in as `request` asks and returns the session as `AuthSession` encodes it (JSON).
    /// - Throws: `AuthError` `.invalidInput` for an identity the provider does not take, or
    ///   what the sign-in throws (a scenario such as `blocked` refuses it, too).
    public static let issue: SandboxServer.SessionIssuer = { request, world in
        try JSONEncoder.multiAuth.encode(try await signIn(request, world: world))
    }

    /// Signs in as `request` asks on `world` and returns the session.
    /// - Throws: `AuthError` `.invalidInput` (identity), `.unsupported` (unknown provider), or
    ///   the sign-in's error.
    public static func signIn(_ request: SandboxServer.SessionRequest, world: EmulatorWorld) async throws
        -> AuthSession
    {
        let identity = request.identity.trimmingCharacters(in: .whitespaces)
        let signIn: SignInRequest
        let provider: any AuthProvider
        let destination: String
        switch request.provider {
        case "dynamic":
            provider = DynamicProvider(configuration: try .sandbox())
            (signIn, destination) = try phoneOrEmail(identity)
        case "truecaller":
            provider = TruecallerProvider(configuration: try .sandbox())
            let phone = try PhoneNumber(identity)
            signIn = .phone(
                phone,
                options: [
                    TruecallerProvider.firstNameOption: request.firstName ?? "Test",
                    TruecallerProvider.lastNameOption: request.lastName ?? "User",
                ])
            destination = phone.e164
        case "portal":
            provider = PortalProvider(configuration: try .sandbox())
            let email = try EmailAddress(identity)
            signIn = .email(email)
            destination = email.identityKey
        case "otpless":
            provider = try OTPlessProvider(configuration: .sandbox())
            (signIn, destination) = try phoneOrEmail(identity)
        default:
            throw AuthError(.unsupported, "no emulated provider '\(request.provider)'")
        }
        let client = try AuthClient(
            providers: [provider], store: InMemorySessionStore(), transport: world.sandbox.transport,
            time: world.sandbox.time, autoRefresh: .disabled)
        var step = try await client.signIn(with: provider.id, signIn)
        for _ in 0..<4 {
            switch step {
            case .signedIn(let session):
                return session
            case .challenge(let challenge):
                switch challenge.kind {
                case .magicLink, .oauthRedirect:
                    guard let link = world.sandbox.inbox.latest(for: destination)?.link,
                        let next = try await client.handleRedirect(link, resuming: challenge)
                    else { throw AuthError(.generic, "no link was delivered to the destination") }
                    step = next
                case .totp(let digits, _):
                    guard let secret = world.portalBackend.totpSecret(for: destination) else {
                        throw AuthError(.generic, "no TOTP secret is enrolled for the destination")
                    }
                    let code = try TOTP(secret: secret, digits: digits).code(at: world.sandbox.time.now)
                    step = try await client.submit(ChallengeAnswer(code: code), for: challenge)
                default:
                    guard let code = world.sandbox.inbox.latest(for: destination)?.code else {
                        throw AuthError(.generic, "no code was delivered to the destination")
                    }
                    step = try await client.submit(ChallengeAnswer(code: code), for: challenge)
                }
            }
        }
        throw AuthError(.generic, "the sign-in asked for more than four answers")
    }

    private static func phoneOrEmail(_ identity: String) throws -> (SignInRequest, String) {
        if identity.contains("@") {
            let email = try EmailAddress(identity)
            return (.email(email), email.identityKey)
        }
        let phone = try PhoneNumber(identity)
        return (.phone(phone), phone.e164)
    }
}
