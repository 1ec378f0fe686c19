import Foundation
import MultiAuth
import MultiAuthDynamic
import MultiAuthOTPless
import MultiAuthPortal
import MultiAuthSandbox
import MultiAuthSandboxKit
import MultiAuthTestKeys
import MultiAuthTruecaller
import Testing

@Suite(.timeLimit(.minutes(10)))
struct StandardSandboxTests {
    static func world(seed: UInt64 = 3) throws -> StandardSandbox {
        try StandardSandbox(seed: seed, signingKey: TestKeys.rsaA)
    }

    @Test func registersEveryBackendOnItsTestHosts() throws {
        let world = try Self.world()
        let hosts = Set(world.sandbox.hosts)
        for host in [
            "app.dynamic.test", "api4.truecaller.test", "outline-eu.truecaller.test", "outline-noneu.truecaller.test",
            "sdk-otp-verification-noneu.truecaller.test", "api.portal.test",
        ] {
            #expect(hosts.contains(host), "\(host)")
        }
        for host in OTPlessBackend.hosts { #expect(hosts.contains(host), "\(host)") }
        #expect(world.dynamic.baseURL.host == "app.dynamic.test")
        #expect(world.truecaller.otpBaseURL.host == "api4.truecaller.test")
        #expect(world.portal.apiHost == "api.portal.test")
        #expect(try world.providers().map(\.id) == [.dynamic, .truecaller, .portal, .otpless])
    }

    /// One call, then a sign-in with each code provider through the client it hands out.
    @Test func signsInWithDynamicAndTruecallerThroughTheClient() async throws {
        let world = try Self.world()
        let client = try world.makeClient()
        let dynamic = try #require(try await client.signIn(with: .dynamic, .email("ada@example.com")).challenge)
        let code = try #require(world.inbox.latest(for: "ada@example.com", channel: .email)?.code)
        #expect(try await client.submit(ChallengeAnswer(code: code), for: dynamic).session != nil)

        let phone = try PhoneNumber("+91 98765 43210")
        let truecaller = try #require(try await client.signIn(with: .truecaller, .phone(phone)).challenge)
        let otp = try #require(world.inbox.latest(for: phone.e164, channel: .sms)?.code)
        let name = try PersonName(firstName: "Asha")
        #expect(try await client.submit(ChallengeAnswer(code: otp, name: name), for: truecaller).session != nil)
        #expect(
            world.sandbox.requestLog.contains { $0.host == "outline-noneu.truecaller.test" && $0.path == "/v1/profile" }
        )
    }

    /// A wrong code refused by Dynamic and by Truecaller (different raw codes and
    /// developer messages) reads the same to the person.
    @Test func aWrongCodeReadsTheSameFromDynamicAndTruecaller() async throws {
        let world = try Self.world()
        let client = try world.makeClient()
        let dynamic = try #require(try await client.signIn(with: .dynamic, .email("ada@example.com")).challenge)
        let phone = try PhoneNumber("+91 98765 43210")
        let truecaller = try #require(try await client.signIn(with: .truecaller, .phone(phone)).challenge)
        let name = try PersonName(firstName: "Asha")
        var errors: [AuthError] = []
        for (challenge, right) in [
            (dynamic, world.inbox.latest(for: "ada@example.com", channel: .email)?.code),
            (truecaller, world.inbox.latest(for: phone.e164, channel: .sms)?.code),
        ] {
            let code = try #require(right)
            // last digit changed
            let wrong = String(code.dropLast()) + String(((code.last?.wholeNumberValue ?? 0) + 1) % 10)
            let error = await #expect(throws: AuthError.self) {
                try await client.submit(ChallengeAnswer(code: wrong, name: name), for: challenge)
            }
            errors.append(try #require(error))
        }
        #expect(errors.map(\.code) == [.invalidCode, .invalidCode])
        #expect(errors[0].provider != errors[1].provider)
        #expect(errors[0].errorDescription == errors[1].errorDescription)
        #expect(errors[0].recoverySuggestion == errors[1].recoverySuggestion)
        #expect(errors[0].errorDescription == "The code is incorrect.")
    }

    /// A production configuration left in a sandbox set-up is a configuration error naming the
    /// host, never a network error.
    @Test func productionHostInTheSandboxIsAConfigurationError() async throws {
        let world = try Self.world()
        let error = await #expect(throws: AuthError.self) {
            try await world.transport.send(
                HTTPRequest(method: .post, url: URL(string: "https://app.dynamicauth.com/api/v0/sdk/x/refresh")!))
        }
        #expect(error?.code == .configuration)
        #expect(error?.message.contains("app.dynamicauth.com") == true)
        #expect(error?.message.contains("app.dynamic.test") == true)
    }

    @Test func realTimeRunsOnTheSystemClock() throws {
        let world = try StandardSandbox(time: .realTime, signingKey: TestKeys.rsaA)
        #expect(world.time.clock is ContinuousClock)
        #expect(world.sandbox.context(for: DynamicBackend.defaultHost).time.clock is ContinuousClock)
        let manual = try Self.world()
        #expect(manual.time.clock is ManualClock)
    }
}
