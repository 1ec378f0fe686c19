import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthSandbox

@testable import MultiAuthPortal

/// A sandbox with the emulated Portal backend, an `AuthClient` with `PortalProvider`, and an
/// in-memory store with injectable failures (`FailingSessionStore`).
struct PortalWorld {
    static let email = "user@example.com"
    let sandbox: Sandbox
    let backend: PortalBackend
    let store: FailingSessionStore
    let client: AuthClient

    init(totpRequired: Bool = true, seed: UInt64 = 7) throws {
        sandbox = Sandbox(seed: seed)
        backend = try PortalBackend(totpRequired: totpRequired)
        sandbox.register(backend, host: PortalBackend.defaultHost)
        store = FailingSessionStore(wrapping: InMemorySessionStore())
        client = try sandbox.makeClient(providers: [Self.provider()], store: store)
    }

    static func configuration() -> PortalConfiguration {
        try! PortalConfiguration.sandbox()
    }

    static func provider() -> PortalProvider { PortalProvider(configuration: configuration()) }

    /// The current TOTP code for `email`, computed with our TOTP from the sandbox's secret.
    func code(for email: String = PortalWorld.email, offsetSteps: Int = 0) throws -> String {
        let totp = try TOTP(secret: backend.totpSecret(for: email)!)
        return try totp.code(at: sandbox.clock.wallNow.addingTimeInterval(TimeInterval(30 * offsetSteps)))
    }

    /// Magic link → redirect: returns the step after the redirect.
    func magicLinkRedirect(_ email: String = PortalWorld.email) async throws -> SignInStep {
        _ = try await client.signIn(with: .portal, .email(email))
        let link = try require_link(sandbox.inbox.latest(for: email)?.link)
        return try await client.handleRedirect(link)!
    }

    /// OAuth start → "browser" → redirect URL the sandbox sends.
    func oauthRedirectURL(_ name: OAuthProviderName = .google, email: String = PortalWorld.email) async throws -> URL {
        let step = try await client.signIn(with: .portal, .oauth(name))
        guard case .oauthRedirect(let url)? = step.challenge?.kind else {
            throw AuthError(.generic, "no OAuth challenge")
        }
        return try await browse(url, email: email)
    }

    /// Opens an authorize URL in the emulated browser; the redirect from `Location`.
    func browse(_ url: URL, email: String = PortalWorld.email) async throws -> URL {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
        components.queryItems = (components.queryItems ?? []) + [URLQueryItem(name: "login_hint", value: email)]
        let response = try await sandbox.transport.send(HTTPRequest(method: .get, url: components.url!))
        guard let location = PortalBackend.redirectLocation(response) else {
            throw AuthError(.generic, "HTTP \(response.status)")
        }
        return location
    }
}

/// Unwraps a delivered link or throws.
func require_link(_ link: URL?) throws -> URL {
    guard let link else { throw AuthError(.generic, "no link delivered") }
    return link
}
