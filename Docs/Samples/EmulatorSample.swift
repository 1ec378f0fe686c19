import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthDynamic
import MultiAuthHTTP
import MultiAuthOTPless
import MultiAuthPortal
import MultiAuthSandboxRuntime
import MultiAuthSandboxServer
import MultiAuthTruecaller
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// In the app: the emulator's address comes in a launch argument, and every provider gets its
/// `.sandbox(baseURL:)` configuration from it (Docs/Emulator.md).
enum EmulatorLaunch {
    static let argument = "-multiauth-sandbox-url"

    static func serverURL(in arguments: [String] = ProcessInfo.processInfo.arguments) -> URL? {
        guard let index = arguments.firstIndex(of: argument), index + 1 < arguments.count else { return nil }
        return URL(string: arguments[index + 1])
    }

    static func providers(server: URL) throws -> [any AuthProvider] {
        [
            DynamicProvider(configuration: try .sandbox(baseURL: server)),
            TruecallerProvider(configuration: try .sandbox(baseURL: server)),
            PortalProvider(configuration: try .sandbox(baseURL: server)),
            try OTPlessProvider(configuration: .sandbox(baseURL: server)),
        ]
    }
}

@Suite(.timeLimit(.minutes(10)))
struct EmulatorSample {
    @Test func anAppSignsInAgainstTheEmulatorAndABackendVerifiesTheToken() async throws {
        let server = try SandboxServer()
        let url = try server.start()
        defer { server.stopAndWait() }

        // The app, launched by a UI test with `-multiauth-sandbox-url <url>`:
        let arguments = ["MyApp", EmulatorLaunch.argument, url.absoluteString]
        let serverURL = try #require(EmulatorLaunch.serverURL(in: arguments))
        let client = try AuthClient(
            providers: try EmulatorLaunch.providers(server: serverURL), transport: URLSessionTransport(),
            time: ManualClock().timeSource, autoRefresh: .disabled)
        let challenge = try #require(try await client.signIn(with: .dynamic, .email("ada@example.com")).challenge)

        // The UI test reads the code from the control API:
        let inbox = URL(string: "\(url.absoluteString)/_multiauth/inbox/ada@example.com")!
        let (data, _) = try await URLSession.shared.data(from: inbox)
        let code = try #require(try JSONValue(parsing: data)["latest"]?["code"]?.stringValue)
        let session = try #require(try await client.submit(ChallengeAnswer(code: code), for: challenge).session)

        // A backend verifies the token against the emulator's JWKS (on the server's clock):
        let verifier = DynamicTokenVerifier(
            configuration: try .sandbox(baseURL: url), transport: URLSessionTransport(),
            time: ManualClock().timeSource, audience: "https://app.sandbox.test")
        let verified = try await verifier.verify(try #require(session.credentials.accessToken).reveal())
        #expect(verified.userID == session.user.id)
    }
}
