import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthSandbox
import Testing

@testable import MultiAuthPortal

private func context(_ transport: ScriptedTransport) -> AuthContext {
    let clock = ManualClock()
    return AuthContext(transport: transport, time: clock.timeSource, flowID: .random())
}

private func json(_ status: Int, _ text: String) -> HTTPResponse { ScriptedTransport.json(status, text) }

@Suite(.timeLimit(.minutes(10)))
struct PortalWireTests {
    static let b12 =
        "otpauth://totp/Acme%20Co:user%40example.com?secret=JBSWY3DPEHPK3PXP&issuer=Acme%20Co&algorithm=SHA1&digits=6&period=30"

    @Test func requestsCarryTheProtocolHeadersAndEncodings() async throws {
        let transport = ScriptedTransport { request in
            request.url.path.hasSuffix("/oauth/urls")
                ? json(
                    200,
                    #"{"data":{"google":"https://accounts.example/auth?state=s1","apple":"https://apple.example/auth?state=s1"}}"#
                )
                : json(200, #"{"data":{"sent":true}}"#)
        }
        let provider = PortalProvider(
            configuration: try PortalConfiguration(
                authEnvironmentID: "env-1", redirectURL: URL(string: "myapp://auth/cb")!, apiHost: "localhost:3000",
                fromEmail: "login@example.com", templateID: "template-1"))
        _ = try await provider.start(.email(" Someone@Example.COM "), context: context(transport))
        let step = try await provider.start(.oauth(.google), context: context(transport))
        #expect(step.challenge?.providerState[revealing: "oauthState"] == "s1")
        let (send, urls) = (transport.requests[0], transport.requests[1])
        #expect(send.url.absoluteString == "http://localhost:3000/api/v3/auth/magic-links")
        for request in [send, urls] {
            #expect(request.header("x-portal-auth-environment-id") == "env-1")
            #expect(request.header("Accept") == "application/json")
            #expect(request.header("X-Portal-Trace-Id")?.isEmpty == false)
            #expect(request.header("Authorization") == nil)
        }
        let body = try #require(try JSONSerialization.jsonObject(with: send.body ?? Data()) as? [String: Any])
        #expect(body["email"] as? String == "someone@example.com")
        #expect(body["redirectUrl"] as? String == "myapp://auth/cb")
        #expect(body["isAccountAbstracted"] == nil, "omitted when nil")
        #expect(body["fromEmail"] as? String == "login@example.com")
        #expect(body["templateId"] as? String == "template-1")
        #expect(urls.url.query == "redirectUrl=myapp%3A%2F%2Fauth%2Fcb")
        #expect(
            try PortalConfiguration(authEnvironmentID: "e", redirectURL: URL(string: "myapp://cb")!).authBaseURL
                .absoluteString
                == "https://api.portalhq.io/api/v3/auth")
    }

    @Test func unsupportedRequestsAndBadConfigurationFailLocally() async throws {
        let transport = ScriptedTransport { _ in json(500, "{}") }
        let provider = PortalWorld.provider()
        for request in [
            SignInRequest.oauth(.github), .phone(try PhoneNumber("+14155550100")),
            .email(try EmailAddress("a@b.co"), channel: .sms),
        ] {
            await #expect(throws: AuthError.self) { try await provider.start(request, context: context(transport)) }
        }
        #expect(transport.requests.isEmpty)
        #expect(throws: AuthError.self) {
            try PortalConfiguration(authEnvironmentID: " ", redirectURL: URL(string: "a://b")!)
        }
        #expect(throws: AuthError.self) {
            try PortalConfiguration(authEnvironmentID: "e", redirectURL: URL(string: "a://b")!, apiHost: "x/y")
        }
    }

    @Test(arguments: [
        (429, "", AuthError.Code.rateLimited), (400, #"{"error":"AA off"}"#, .configuration), (401, "", .configuration),
        (503, "", .providerUnavailable), (418, "", .generic),
    ])
    func magicLinkErrorsMapWithoutRetry(status: Int, body: String, expected: AuthError.Code) async throws {
        let transport = ScriptedTransport { _ in json(status, body) }
        await #expect {
            try await PortalWorld.provider().start(.email("a@b.co"), context: context(transport))
        } throws: {
            ($0 as? AuthError)?.code == expected
        }
        #expect(transport.requests.count == 1, "never retried")
    }

    /// Portal's backend requires `fromEmail` and `templateId` on `POST /magic-links`: the
    /// configuration refuses one without the other (naming the missing one), and an e-mail
    /// sign-in without them is refused before any request, naming both.
    @Test func magicLinkNeedsFromEmailAndTemplateID() async throws {
        let redirect = URL(string: "myapp://cb")!
        for (from, template, named) in [
            ("login@example.com", nil, "set templateID"), (nil, "t-1", "set fromEmail"),
            ("  ", "t-1", "fromEmail is blank"), ("not-an-address", "t-1", "fromEmail is not an e-mail"),
            ("login@example.com", " ", "templateID is blank"),
        ] as [(String?, String?, String)] {
            let error = #expect(throws: AuthError.self) {
                try PortalConfiguration.production(
                    authEnvironmentID: "e", redirectURL: redirect, fromEmail: from, templateID: template)
            }
            #expect(error?.code == .configuration)
            #expect(error?.message.contains(named) == true, "\(named): \(error?.message ?? "")")
        }
        let oauthOnly = PortalProvider(configuration: try .production(authEnvironmentID: "e", redirectURL: redirect))
        #expect(!oauthOnly.configuration.sendsMagicLinks)
        let transport = ScriptedTransport { _ in json(200, #"{"data":{"sent":true}}"#) }
        let refused = await #expect(throws: AuthError.self) {
            try await oauthOnly.start(.email("a@b.co"), context: context(transport))
        }
        #expect(refused?.code == .configuration)
        #expect(refused?.providerCode == PortalConfiguration.magicLinkNotConfiguredCode)
        #expect(refused?.message.contains("fromEmail") == true && refused?.message.contains("templateID") == true)
        #expect(transport.requests.isEmpty, "no request without the backend-required fields")
        #expect(try PortalConfiguration.sandbox().sendsMagicLinks)
        #expect(
            try PortalConfiguration.production(authEnvironmentID: "e", redirectURL: redirect).apiHost
                == "api.portalhq.io")
    }

    /// A 400 on `POST /magic-links` is an account-abstraction problem only when account
    /// abstraction was asked for; otherwise it names what the request depends on.
    @Test func magicLink400IsNotMislabelledAccountAbstraction() async throws {
        let transport = ScriptedTransport { _ in json(400, #"{"error":"fromEmail and templateId are required"}"#) }
        let plain = await #expect(throws: AuthError.self) {
            try await PortalWorld.provider().start(.email("a@b.co"), context: context(transport))
        }
        #expect(plain?.code == .configuration && plain?.providerCode == "badRequest")
        #expect(plain?.message.contains("fromEmail") == true && plain?.message.contains("account abstraction") == false)
        let abstracted = PortalProvider(configuration: try .sandbox(isAccountAbstracted: true))
        let aa = await #expect(throws: AuthError.self) {
            try await abstracted.start(.email("a@b.co"), context: context(transport))
        }
        #expect(aa?.providerCode == "accountAbstractionUnavailable")
    }

    /// A 400 whose `error` text echoes what the request carried (a one-time code, a token)
    /// shows the text with those words redacted; a redirect's `?error=` that is not a code is
    /// not kept as `providerCode` (breaker finding: server text reached descriptions).
    @Test func a400EchoingTheRequestIsRedacted() async throws {
        let token = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1c2VyLTEifQ.c2lnbmF0dXJlLWJ5dGVz"
        let transport = ScriptedTransport { _ in
            json(400, #"{"error":"code 731433 for \#(token) is invalid; fromEmail missing"}"#)
        }
        let error = await #expect(throws: AuthError.self) {
            try await PortalWorld.provider().start(.email("a@b.co"), context: context(transport))
        }
        let shown = "\(String(describing: error))|\(error?.message ?? "")"
        #expect(!shown.contains("731433") && !shown.contains("c2lnbmF0dXJlLWJ5dGVz"), "\(shown)")
        #expect(error?.message.contains("fromEmail missing") == true)
        #expect(AuthError.redactedServerText("code 731433, token \(token).") == "code <redacted> token <redacted>")
        #expect(
            AuthError.redactedServerText("fromEmail and templateId are required")
                == "fromEmail and templateId are required")
        #expect(
            AuthError.redactedServerText(String(repeating: "y ", count: 500)).count == AuthError.maximumServerTextLength
        )

        let provider = PortalWorld.provider()
        var state = ProviderState()
        state["method"] = "EMAIL_MAGIC_LINK"
        let pending = Challenge(
            flowID: .random(), provider: .portal, kind: .magicLink(channel: .email),
            issuedAt: Date(timeIntervalSince1970: 0), providerState: state)
        for (value, kept) in [("access_denied", "access_denied"), ("731433", nil), (token, nil)] {
            let url = URL(string: PortalBackend.defaultRedirectURL + "?error=" + value)!
            let refused = await #expect(throws: AuthError.self) {
                try await provider.handleRedirect(url, pending: pending, context: context(transport))
            }
            #expect(refused?.code == .cancelledByProvider && refused?.providerCode == kept, "\(value)")
        }
    }

    @Test func grantResultsMapToSessionTOTPOrMalformed() async throws {
        let provider = PortalWorld.provider()
        var state = ProviderState()
        state["method"] = "EMAIL_MAGIC_LINK"
        let pending = Challenge(
            flowID: .random(), provider: .portal, kind: .magicLink(channel: .email),
            issuedAt: Date(timeIntervalSince1970: 0), providerState: state)
        let url = URL(string: PortalBackend.defaultRedirectURL + "?token=g1&authMethod=EMAIL_MAGIC_LINK")!
        let cases: [(String, (SignInStep?) -> Bool, AuthError.Code?)] = [
            (#"{"data":{"endUserId":"u1","clientSessionToken":"cst"}}"#, { $0?.session?.user.id == "u1" }, nil),
            (
                #"{"data":{"userJwt":"a.b.c","totpLink":"\#(Self.b12)"}}"#,
                {
                    if case .totp(6, let enrollment?)? = $0?.challenge?.kind {
                        return enrollment.issuer == "Acme Co"
                    } else {
                        return false
                    }
                }, nil
            ),
            (#"{"data":{"clientSessionToken":"cst"}}"#, { _ in false }, .malformedResponse),
            (#"{"data":{}}"#, { _ in false }, .malformedResponse),
            (#"{"data":null}"#, { _ in false }, .malformedResponse),
        ]
        for (body, check, error) in cases {
            let transport = ScriptedTransport { _ in json(200, body) }
            do {
                let step = try await provider.handleRedirect(url, pending: pending, context: context(transport))
                #expect(error == nil && check(step), "\(body)")
            } catch let thrown as AuthError {
                #expect(thrown.code == error, "\(body)")
            }
            #expect(transport.requests.first?.url.path == "/api/v3/auth/magic-links/validations")
        }
        let rejected = ScriptedTransport { _ in json(401, "{}") }
        await #expect { try await provider.handleRedirect(url, pending: pending, context: context(rejected)) } throws: {
            ($0 as? AuthError)?.code == .unauthorized
        }
        let incomplete = URL(string: PortalBackend.defaultRedirectURL + "?foo=1")!
        await #expect {
            try await provider.handleRedirect(incomplete, pending: pending, context: context(rejected))
        } throws: {
            ($0 as? AuthError)?.providerCode == "CALLBACK_INCOMPLETE"
        }
        let long = URL(string: PortalBackend.defaultRedirectURL + "?error=" + String(repeating: "x", count: 300))!
        await #expect {
            try await provider.handleRedirect(long, pending: pending, context: context(rejected))
        } throws: {
            // Not a code (over 64 characters): dropped, not cut (AuthError.plausibleProviderCode).
            ($0 as? AuthError)?.code == .cancelledByProvider && ($0 as? AuthError)?.providerCode == nil
        }
    }

    @Test func anyTOTP401IsAWrongCodeAnd409IsAReplay() async throws {
        let token = "eyJhbGciOiJIUzI1NiJ9.eyJlbmRVc2VySWQiOiJ1MSJ9.c2ln"
        var state = ProviderState()
        state[revealing: "userJwt"] = token
        let challenge = Challenge(
            flowID: .random(), provider: .portal, kind: .totp(digits: 6, enrollment: nil),
            issuedAt: Date(timeIntervalSince1970: 0), providerState: state)
        // Any 401 is a wrong code whatever its body (the real SDK never reads 401 bodies); 409 is
        // a code already used in its step ([ASSUMPTION]).
        for (status, body, expected) in [
            (401, #"{"error":"Invalid TOTP code"}"#, AuthError.Code.invalidCode),
            (401, #"{"error":"Unauthorized"}"#, .invalidCode), (401, "", .invalidCode),
            (401, "<html>nope</html>", .invalidCode), (409, #"{"error":"TOTP code already used"}"#, .codeAlreadyUsed),
            (500, "{}", .providerUnavailable),
        ] {
            let transport = ScriptedTransport { _ in json(status, body) }
            await #expect {
                try await PortalWorld.provider().respond(
                    to: challenge, with: ChallengeAnswer(code: "123456"), context: context(transport))
            } throws: {
                ($0 as? AuthError)?.code == expected
            }
            #expect(transport.requests.first?.header("Authorization") == "Bearer \(token)")
            #expect(String(decoding: transport.requests.first?.body ?? Data(), as: UTF8.self) == #"{"code":"123456"}"#)
        }
        let ok = ScriptedTransport { _ in json(200, #"{"data":{"clientSessionToken":"cst","clientId":"c1"}}"#) }
        let session = try #require(
            try await PortalWorld.provider().respond(
                to: challenge, with: ChallengeAnswer(code: "123456"), context: context(ok)
            ).session)
        #expect(
            session.user.id == "u1" && session.credentials.accessToken == "cst"
                && session.credentials.extra[revealing: "clientId"] == "c1")
    }

    /// Docs/Cases.md, B12: the enrollment URI, built and parsed, and read by the Portal helpers.
    @Test func b12EnrollmentURI() throws {
        let built = try OTPAuthURI(
            issuer: "Acme Co", account: "user@example.com", secret: Base32.decode("JBSWY3DPEHPK3PXP"))
        #expect(built.uriString == Self.b12)
        let enrollment = TOTPEnrollment(otpauthURI: Secret(Self.b12), issuer: "Acme Co", account: "user@example.com")
        let parsed = try enrollment.parsedURI()
        #expect(
            parsed.issuer == "Acme Co" && parsed.account == "user@example.com" && parsed.secret == "JBSWY3DPEHPK3PXP")
        #expect(parsed.algorithm == .sha1 && parsed.digits == 6 && parsed.period == 30)
        #expect(parsed.uriString == Self.b12)
        #expect(enrollment.totpSecret == "JBSWY3DPEHPK3PXP")
        let faulty = TOTPEnrollment(
            otpauthURI: Secret(Self.b12.replacingOccurrences(of: "algorithm=SHA1", with: "algorithm=%SHA1")))
        #expect(throws: CryptoError.self) { try faulty.parsedURI() }
        #expect(try enrollment.qrCode().version == 7)
    }

    @Test(arguments: [
        ("otpauth://totp/A?secret=jbswy3dpehpk3pxp", "JBSWY3DPEHPK3PXP"),
        ("otpauth://totp/A?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY%3D%3D%3D%3D%3D%3D", "GEZDGNBVGY3TQOJQGEZDGNBVGY======"),
        ("otpauth://totp/A?secret=AAAA&secret=JBSWY3DPEHPK3PXP", "JBSWY3DPEHPK3PXP"),
    ])
    func totpSecretIsReadAsTheSDKDoes(link: String, expected: String) {
        #expect(TOTPEnrollment(otpauthURI: Secret(link)).totpSecret?.reveal() == expected)
    }

    /// PortalSwift reads only `unauthorized` (a `401`) as a refused code: a `400` on
    /// `/totps/validations` is a bad request, which another code would not fix, so it must not
    /// send the person back to "enter the current code" (Docs/Providers/Portal.md, "Errors").
    @Test func aTOTP400IsABadRequestNotAWrongCode() async throws {
        var state = ProviderState()
        state["userJwt"] = "eyJhbGciOiJIUzI1NiJ9.eyJlbmRVc2VySWQiOiJ1MSJ9.c2ln"
        let challenge = Challenge(
            flowID: .random(), provider: .portal, kind: .totp(digits: 6, enrollment: nil),
            issuedAt: Date(timeIntervalSince1970: 0), providerState: state)
        for body in ["{}", #"{"error":"Bad Request"}"#, ""] {
            let transport = ScriptedTransport { _ in json(400, body) }
            let error = await #expect(throws: AuthError.self) {
                try await PortalWorld.provider().respond(
                    to: challenge, with: ChallengeAnswer(code: "123456"), context: context(transport))
            }
            #expect(error?.code != .invalidCode, "\(body)")
            #expect(error?.code == .generic && error?.providerCode == "400", "\(body)")
        }
    }

    /// A whitespace-only `clientSessionToken` or `endUserId` is refused as PortalSwift refuses
    /// it (blank counts as absent), with a typed error, before the session exists: it is never
    /// stored, and never sent as a bearer.
    @Test func blankSessionTokensAndEndUserIDsAreRefusedBeforeAnyUse() async throws {
        var magicState = ProviderState()
        magicState["method"] = "EMAIL_MAGIC_LINK"
        let pending = Challenge(
            flowID: .random(), provider: .portal, kind: .magicLink(channel: .email),
            issuedAt: Date(timeIntervalSince1970: 0), providerState: magicState)
        let url = URL(string: PortalBackend.defaultRedirectURL + "?token=g1&authMethod=EMAIL_MAGIC_LINK")!
        for (body, providerCode) in [
            (#"{"data":{"endUserId":"u1","clientSessionToken":" \n "}}"#, "invalidGrantResponse"),
            (#"{"data":{"endUserId":"  ","clientSessionToken":"cst"}}"#, "malformedResponse"),
            (#"{"data":{"endUserId":"\t","clientSessionToken":"cst"}}"#, "malformedResponse"),
        ] {
            let transport = ScriptedTransport { _ in json(200, body) }
            let error = await #expect(throws: AuthError.self) {
                try await PortalWorld.provider().handleRedirect(url, pending: pending, context: context(transport))
            }
            #expect(error?.code == .malformedResponse && error?.providerCode == providerCode, "\(body)")
            #expect(transport.requests.count == 1)
        }
        var totpState = ProviderState()
        totpState["userJwt"] = "eyJhbGciOiJIUzI1NiJ9.eyJlbmRVc2VySWQiOiJ1MSJ9.c2ln"
        let totp = Challenge(
            flowID: .random(), provider: .portal, kind: .totp(digits: 6, enrollment: nil),
            issuedAt: Date(timeIntervalSince1970: 0), providerState: totpState)
        let blank = ScriptedTransport { _ in json(200, #"{"data":{"clientSessionToken":"   "}}"#) }
        let error = await #expect(throws: AuthError.self) {
            try await PortalWorld.provider().respond(
                to: totp, with: ChallengeAnswer(code: "123456"), context: context(blank))
        }
        #expect(error?.code == .malformedResponse)

        // Through the client: nothing is stored.
        let bed = try PortalWorld()
        _ = try await bed.client.signIn(with: .portal, .email(PortalWorld.email))
        let link = try #require(bed.sandbox.inbox.latest(for: PortalWorld.email)?.link)
        bed.sandbox.faults.add(
            .status(200, headers: [:], body: Data(#"{"data":{"endUserId":" ","clientSessionToken":"cst"}}"#.utf8)),
            host: PortalBackend.defaultHost, pathPrefix: "/api/v3/auth/magic-links/validations", repeat: .once)
        await #expect(throws: AuthError.self) { _ = try await bed.client.handleRedirect(link) }
        #expect(try await bed.client.session(for: .portal) == nil)
    }

    /// A redirect carrying a grant without `authMethod=EMAIL_MAGIC_LINK` or
    /// `login_type=GOOGLE|APPLE` is ignored, as PortalSwift ignores it: not claimed, never
    /// exchanged (it was exchanged as a magic link).
    @Test func aRedirectWithoutAnAuthMethodIsIgnored() async throws {
        let bed = try PortalWorld(totpRequired: false)
        _ = try await bed.client.signIn(with: .portal, .email(PortalWorld.email))
        let link = try #require(bed.sandbox.inbox.latest(for: PortalWorld.email)?.link)
        var components = try #require(URLComponents(url: link, resolvingAgainstBaseURL: false))
        components.queryItems = components.queryItems?.filter { $0.name != "authMethod" }
        let unmarked = try #require(components.url)
        let before = bed.sandbox.requestCount
        #expect(!PortalWorld.provider().canHandle(unmarked))
        #expect(try await bed.client.handleRedirect(unmarked) == nil)
        for other in ["&authMethod=GOOGLE", "&authMethod=email_magic_link", "&login_type=EMAIL_MAGIC_LINK"] {
            #expect(
                try await bed.client.handleRedirect(URL(string: unmarked.absoluteString + other)!) == nil, "\(other)")
        }
        #expect(bed.sandbox.requestCount == before)
        #expect(await bed.client.pendingChallenge(for: .portal) != nil)
        // The link as sent still signs in.
        #expect(try await bed.client.handleRedirect(link)?.session != nil)
    }

    @Test(arguments: [
        "otpauth://totp/A?issuer=X", "otpauth://totp/A?secret=JBSWY3DPEHPK3PX1", "otpauth://totp/A?secret=JB=SW",
        "otpauth://totp/A?secret=", "not a link",
    ])
    func totpSecretIsNilWhenAbsentOrInvalid(link: String) {
        #expect(TOTPEnrollment(otpauthURI: Secret(link)).totpSecret == nil)
    }

    @Test func redirectMatchingFollowsTheSDKRules() throws {
        let provider = PortalProvider(
            configuration: try PortalConfiguration(
                authEnvironmentID: "e", redirectURL: URL(string: "https://App.Example.com/Auth/Callback")!))
        for yes in [
            "https://app.example.com/Auth/Callback?token=t&authMethod=EMAIL_MAGIC_LINK",
            "HTTPS://APP.EXAMPLE.COM/Auth/Callback/?x=1#f", "https://app.example.com/Auth/Callback",
        ] {
            #expect(provider.canHandle(URL(string: yes)!), "\(yes)")
        }
        for no in [
            "https://app.example.com/auth/callback?token=t", "https://other.example.com/Auth/Callback",
            "https://app.example.com/Auth/Callback/more",
            "https://app.example.com/Auth/Callback?token=" + String(repeating: "a", count: 8200),
        ] {
            #expect(!provider.canHandle(URL(string: no)!), "\(no.prefix(60))")
        }
        #expect(
            PortalRedirect(URL(string: "x://y?token=a&token=b&login_type=APPLE")!).outcome.grantToken == "b",
            "last one wins")
    }
}

extension PortalRedirect.Outcome {
    var grantToken: String? { if case .grant(let token, _) = self { token } else { nil } }
}
