import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthOTPless
import MultiAuthSandbox
import Testing

/// One named test per wire mismatch the audit of the real SDK found (Docs/Providers/OTPless.md,
/// "Verified against"); each fails on the old behaviour.
@Suite(.timeLimit(.minutes(10)))
struct OTPlessWireTests {
    func body(_ request: HTTPRequest?) throws -> [String: JSONValue] {
        let data = try #require(request?.body)
        return try #require(try JSONDecoder().decode(JSONValue.self, from: data).objectValue)
    }

    func query(_ request: HTTPRequest?) -> [String: String] {
        var items: [String: String] = [:]
        for item in request.flatMap({ URLComponents(url: $0.url, resolvingAgainstBaseURL: false)?.queryItems }) ?? [] {
            items[item.name] = item.value ?? ""
        }
        return items
    }

    /// A phone sign-in through the client: challenge, then the session.
    func signIn(_ world: OTPlessWorld, _ provider: OTPlessProvider) async throws -> AuthSession {
        let context = world.context()
        let challenge = try #require(try await provider.start(.phone(phone, channel: .sms), context: context).challenge)
        let code = try #require(world.latest(phone.e164)?.code)
        let session = try #require(
            try await provider.respond(to: challenge, with: ChallengeAnswer(code: code), context: context).session)
        provider.stopAllPolling()
        return session
    }

    @Test func sessionInfoIsReadBesideMerchantUserInfoSoTheSessionHasTokensAndExpiry() async throws {
        let world = try OTPlessWorld()
        let session = try await signIn(world, try world.provider())
        #expect(session.credentials.extra[revealing: "sessionToken"]?.count == 32)
        #expect(session.credentials.refreshToken?.reveal().count == 32)
        #expect(session.credentials.extra[revealing: "sessionTokenJWT"]?.split(separator: ".").count == 3)
        #expect(session.credentials.expiresAt == world.clock.wallNow.addingTimeInterval(86_400))
        #expect(session.credentials.extra[revealing: "state"]?.isEmpty == false)
        let verify = try #require(world.requests(containing: "/transaction/otp/").last)
        #expect(session.credentials.extra[revealing: "state"] == verify.url.lastPathComponent)
    }

    @Test func signOutDeletesTheSessionWithTheAppIDAndStateHeadersAndTheSDKBody() async throws {
        let world = try OTPlessWorld()
        let provider = try world.provider()
        let session = try await signIn(world, provider)
        try await provider.signOut(session, context: world.context())
        let delete = try #require(world.requests.last)
        #expect(delete.method == .delete)
        #expect(delete.url.host == OTPlessBackend.sessionHost)
        #expect(delete.url.path == "/v4/session/" + session.credentials.extra[revealing: "sessionToken"]!)
        #expect(delete.header("appId") == "SANDBOXAPP")
        #expect(delete.header("state") == session.credentials.extra[revealing: "state"])
        #expect(
            try body(delete) == [
                "appId": .string("SANDBOXAPP"), "origin": .string("https://otpless.com"),
                "loginUri": .string("https://otpless.com/rc5/appid/SANDBOXAPP"),
            ])
        #expect(world.requests.count { $0.method == .delete } == 1)
        // The server forgot the session: signing out again is a no-op success (404 is "gone").
        try await provider.signOut(session, context: world.context())
    }

    @Test func voiceIsSentAsVoiceCall() async throws {
        let world = try OTPlessWorld(merchant: OTPlessMerchant(phoneChannels: [.sms, .voice]))
        let challenge = try #require(
            try await world.provider().start(.phone(phone, channel: .voice), context: world.context()).challenge)
        #expect(
            try body(world.requests(containing: "/transaction/intent/").first)["deliveryMethod"]
                == .string("VOICE_CALL"))
        #expect(challenge.kind == .oneTimeCode(length: 6, channel: .voice, linkAlsoSent: false))
        #expect(world.latest(phone.e164, channel: .voice)?.code != nil)
    }

    @Test func thePhoneIntentValueIsTheNationalNumber() async throws {
        let world = try OTPlessWorld()
        _ = try await world.provider().start(.phone(phone), context: world.context())
        let intent = try body(world.requests(containing: "/transaction/intent/").first)
        #expect(intent["value"] == .string("9876543210"))
        #expect(intent["mobile"] == .string("919876543210"))
        #expect(intent["selectedCountryCode"] == .string("+91"))
    }

    @Test func uidIsInEveryPostBodyEmptyUntilTheServerNamesIt() async throws {
        let world = try OTPlessWorld()
        _ = try await signIn(world, try world.provider())
        let intent = try body(world.requests(containing: "/transaction/intent/").first)
        #expect(intent["uid"] == .string(""))
        #expect(intent["asId"] == .string(""))
        #expect(intent["clientMetaData"] == .string("{}"))
        let verify = try body(world.requests(containing: "/transaction/otp/").first)
        #expect(verify["uid"]?.stringValue?.hasPrefix("OT_") == true)
    }

    @Test func metadataCarriesAppInfoAndDeviceInfoAsJSONStrings() async throws {
        let world = try OTPlessWorld()
        _ = try await world.provider().start(.phone(phone, channel: .sms), context: world.context())
        let intent = try body(world.requests(containing: "/transaction/intent/").first)
        let metadata = try #require(Contract.parse(intent["metadata"]?.stringValue ?? "")?.objectValue)
        #expect(Set(metadata.keys) == ["appInfo", "deviceInfo"])
        let appInfo = try #require(Contract.parse(metadata["appInfo"]?.stringValue ?? "")?.objectValue)
        let deviceInfo = try #require(Contract.parse(metadata["deviceInfo"]?.stringValue ?? "")?.objectValue)
        #expect(appInfo["inid"] == intent["inId"])
        #expect(appInfo["tsid"] == intent["tsId"])
        #expect(appInfo["isSilentAuthSupported"] == .string("true"))
        #expect(deviceInfo == ["platform": .string("iOS"), "vendor": .string("Apple")])
        #expect(intent["deviceInfo"] == metadata["deviceInfo"])
    }

    @Test func theStatusPollCarriesTheIdentityKeys() async throws {
        let world = try OTPlessWorld()
        let provider = try world.provider()
        _ = try await provider.start(.phone(phone, channel: .sms), context: world.context())
        await world.clock.waitForSleepers(count: 1)
        world.clock.advance(by: .seconds(3))
        await settle { !world.requests(containing: "/transaction/status/").isEmpty }
        provider.stopAllPolling()
        let poll = query(world.requests(containing: "/transaction/status/").first)
        #expect(poll["mobile"] == "9876543210")
        #expect(poll["selectedCountryCode"] == "91")
        #expect(poll["value"] == "919876543210")
        #expect(poll["platform"] == "iOS")
        #expect(poll["metadata"] == nil)
    }

    @Test func inIdIsStablePerConfigurationAndTsIdPerProcess() async throws {
        let world = try OTPlessWorld()
        _ = try await world.provider().start(.phone(phone, channel: .sms), context: world.context())
        _ = try await world.provider().start(.email(email), context: world.context())
        _ = try await world.provider { $0.packageName = "com.other.app" }.start(.email(email), context: world.context())
        let intents = try world.requests(containing: "/transaction/intent/").map { try body($0) }
        #expect(intents.count == 3)
        #expect(intents[0]["inId"] == intents[1]["inId"])
        #expect(intents[0]["inId"] != intents[2]["inId"])
        #expect(Set(intents.compactMap { $0["tsId"] }).count == 1)
        let inId = try #require(intents[0]["inId"]?.stringValue)
        #expect(inId.count == 36 && inId.split(separator: "-").count == 5)
        let pinned = try world.provider { $0.installationID = "PERSISTED-INSTALLATION-1" }
        _ = try await pinned.start(.email(email), context: world.context())
        #expect(
            try body(world.requests(containing: "/transaction/intent/").last)["inId"]
                == .string("PERSISTED-INSTALLATION-1"))
    }

    @Test(arguments: ["", "   ", "com.acme app"])
    func aMissingBundleIDIsAConfigurationErrorThatSaysWhatToSet(_ packageName: String) {
        let error = #expect(throws: AuthError.self) {
            _ = try OTPlessProvider(configuration: OTPlessConfiguration(appID: "SANDBOXAPP", packageName: packageName))
        }
        #expect(error?.code == .configuration)
        #expect(error?.message.contains("OTPlessConfiguration.packageName") == true)
        // The memberwise initializer still compiles without a bundle id; only building refuses it.
        #expect(OTPlessConfiguration(appID: "SANDBOXAPP").packageName == "")
    }

    @Test func productionAndSandboxConfigurationsPointAtTheirHosts() throws {
        let production = OTPlessConfiguration.production(appID: "ACME1", packageName: "com.acme.app")
        #expect(production.baseURL.absoluteString == "https://user-auth.otpless.app")
        #expect(production.sessionBaseURL.absoluteString == "https://api.otpless.com")
        let sandbox = OTPlessConfiguration.sandbox()
        #expect(sandbox.baseURL.host == OTPlessBackend.clientHost)
        #expect(sandbox.sessionBaseURL.host == OTPlessBackend.sessionHost)
        #expect(sandbox.appID == OTPlessMerchant().appID)
        #expect(OTPlessBackend.hosts == ["user-auth.otpless.test", "api.otpless.test"])
        #expect(OTPlessTokenVerifier.sandboxIssuer == OTPlessBackend.issuer)
        _ = try OTPlessProvider(configuration: sandbox)
    }
}
