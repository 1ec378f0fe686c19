// Sample: one switch between the sandbox and production. Compiled and run by `swift test`
// (target MultiAuthSamples); quoted in README.md and Docs/GettingStarted.md.
import Foundation
import MultiAuth
import MultiAuthDynamic
import MultiAuthHTTP
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

/// README.md, "Sandbox or production: one switch", verbatim (Scripts/check_doc_blocks.py).
func readmeSandboxOrProduction(sessionsDirectory: URL) throws -> (sandboxed: AuthClient, app: AuthClient) {
    let world = try StandardSandbox()                 // tests, demos: ManualClock (or time: .realTime)
    let client = try world.makeClient()               // Dynamic, Truecaller, Portal, OTPLESS on .test hosts

    let app = try AuthClient(providers: [DynamicProvider(configuration: try .production(environmentID: "<env id>"))],
                             store: try FileSessionStore(directory: sessionsDirectory), transport: URLSessionTransport())
    return (client, app)
}

/// Docs/GettingStarted.md, "7. Sandbox or production: one switch", verbatim; `sessions` is the
/// app's session directory, `appLink`, `installationID` and `redirect` its Truecaller and Portal
/// settings.
func gettingStartedOneSwitch(appLink: URL, installationID: String, redirect: URL, sessions: URL) throws -> (AuthClient, AuthClient) {
    let world = try StandardSandbox()                 // backends on app.dynamic.test, api4/outline-*.truecaller.test, api.portal.test, OTPLESS's hosts
    let client = try world.makeClient()               // ManualClock by default; StandardSandbox(time: .realTime) for a live demo
    // code delivered in the sandbox: world.inbox.latest(for: "ada@example.com", channel: .email)?.code

    // The app: the same providers, .production(…) configurations, the real network.
    let providers = try productionProviders(appLink: appLink, installationID: installationID, redirect: redirect)
    let app = try AuthClient(providers: providers, store: try FileSessionStore(directory: sessions), transport: URLSessionTransport())
    return (client, app)
}

@Suite(.timeLimit(.minutes(10)))
struct SandboxOrProductionSample {
    @Test func theDocumentedSwitchBuildsBothClients() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("multiauth-switch-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (sandboxed, app) = try readmeSandboxOrProduction(sessionsDirectory: directory)
        #expect(try await sandboxed.signIn(with: .dynamic, .email("ada@example.com")).challenge != nil)
        #expect(await app.currentState().sessions.isEmpty)                // built, nothing sent
        let (client, production) = try gettingStartedOneSwitch(
            appLink: URL(string: "https://myapp.example/truecaller")!, installationID: "installation-1",
            redirect: URL(string: "myapp://auth/callback")!, sessions: directory.appendingPathComponent("app"))
        #expect(try await client.signIn(with: .portal, .oauth(.google)).challenge != nil)
        #expect(await production.currentState().sessions.isEmpty)
    }

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
