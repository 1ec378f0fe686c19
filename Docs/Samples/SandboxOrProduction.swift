// Sample: one switch between the sandbox and production. Compiled and run by `swift test`
// (target MultiAuthSamples); quoted in README.md and Docs/GettingStarted.md.
import Foundation
import MultiAuth
import MultiAuthDynamic
import MultiAuthPortal
import MultiAuthSandbox
import MultiAuthSandboxKit
import MultiAuthTruecaller
import Testing

/// The providers an app ships: `.production(…)` configurations on the real hosts.
func productionProviders(appLink: URL, installationID: String, redirect: URL) throws -> [any AuthProvider] {
    [
        DynamicProvider(configuration: try .production(environmentID: "<environment id>")),
        TruecallerProvider(configuration: try .production(appKey: "<partner key>", appLink: appLink, deviceID: installationID)),
        PortalProvider(configuration: try .production(
            authEnvironmentID: "<auth environment id>", redirectURL: redirect,
            fromEmail: "login@myapp.example", templateID: "<magic-link template id>")),
    ]
}

@Suite(.timeLimit(.minutes(10)))
struct SandboxOrProductionSample {
    @Test func oneCallForTheSandboxAndTheSameProvidersForProduction() async throws {
        // Tests and demos: every backend on its .test hosts, the .sandbox() configurations, a client.
        let world = try StandardSandbox()
        let client = try world.makeClient()
        let challenge = try #require(try await client.signIn(with: .dynamic, .email("ada@example.com")).challenge)
        let code = try #require(world.inbox.latest(for: "ada@example.com", channel: .email)?.code)
        #expect(try await client.submit(ChallengeAnswer(code: code), for: challenge).session != nil)

        // The app: the same providers with .production(…) and URLSessionTransport(). A production
        // configuration pointed at the sandbox by mistake fails at once, naming the host.
        let production = try productionProviders(
            appLink: URL(string: "https://myapp.example/truecaller")!, installationID: "installation-1",
            redirect: URL(string: "myapp://auth/callback")!)
        let mixedUp = try AuthClient(providers: production, transport: world.transport, time: world.time)
        let error = await #expect(throws: AuthError.self) { try await mixedUp.signIn(with: .dynamic, .email("ada@example.com")) }
        #expect(error?.code == .configuration)
        #expect(error?.message.contains("app.dynamicauth.com") == true)
    }
}
