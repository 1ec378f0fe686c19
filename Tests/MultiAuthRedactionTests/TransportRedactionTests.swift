import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthCrypto
import MultiAuthDynamic
import MultiAuthHTTP
import MultiAuthOTPless
import MultiAuthSandbox
import MultiAuthTruecaller
import Testing

/// Redaction at the transport boundary: no token from a request's path, query,
/// headers or body reaches an error, `AuthClient.SignOutOutcome` or any rendering of them.
@Suite("Transport redaction: every adapter request through a failing transport", .serialized, .timeLimit(.minutes(10)))
struct TransportRedactionTests {
    /// The first rendering of `value` that contains one of `secrets` or a planted marker.
    static func leak(in value: Any, secrets: [String]) -> String? {
        SecretRenderings.firstLeak(of: value, secrets: secrets + Plant.markers).map {
            "\($0.rendering) shows '\($0.secret)'"
        }
    }

    @Test("HTTPRequest renders secret and credential-like path segments as <redacted>")
    func requestRendering() throws {
        let base = URL(string: "https://api.example.com")!
        let marked = HTTPRequest(method: .delete, base: base, path: ["v4/session", .secret("short")])
        #expect(marked.url.path == "/v4/session/short")
        #expect(marked.description == "DELETE api.example.com/v4/session/<redacted>")
        #expect(marked.redactedPath == "/v4/session/<redacted>")
        // Token-like segments are redacted even when nobody marked them.
        let plain = HTTPRequest(
            method: .get, url: base.appending(path: "v1/otp/installation/phoneNumberDetail/a1b2c3d4e5f6"))
        #expect(plain.description == "GET api.example.com/v1/otp/installation/phoneNumberDetail/<redacted>")
        #expect(
            HTTPRequest.redactedPath("/sdk/6b1c2d3e-0000-4000-8000-00000000d7a1/verify") == "/sdk/<redacted>/verify")
        #expect(HTTPRequest.redactedPath("/v1/otp/installation/create") == "/v1/otp/installation/create")
        #expect(HTTPRequest.redactedPath("/.well-known/openid-configuration") == "/.well-known/openid-configuration")
        #expect(
            !HTTPRequest.looksLikeCredential("phoneNumberDetail")
                && HTTPRequest.looksLikeCredential(String(repeating: "a", count: 24)))
        var marked2 = HTTPRequest(method: .get, url: base.appending(path: "files/report"))
        marked2.markPathSegmentSecret("report")
        #expect(marked2.description == "GET api.example.com/files/<redacted>")
        for value in [marked as Any, plain, marked2] {
            #expect(Self.leak(in: value, secrets: ["short", "a1b2c3d4e5f6", "report"]) == nil)
        }
        let response = HTTPResponse(
            status: 200, headers: ["Set-Cookie": "sid=\(Plant.cookie)", "Authorization": Plant.header],
            body: Data(Plant.body.utf8))
        #expect(Self.leak(in: response, secrets: []) == nil)
        #expect(
            String(reflecting: response) == "HTTPResponse(HTTP 200 (18 bytes), headers: [Authorization, Set-Cookie])")
    }

    @Test("the real URLSessionTransport and the sandbox name a failed request by its redacted form")
    func transportErrors() async throws {
        let request = HTTPRequest(
            method: .get, base: URL(string: "https://truecaller.sandbox.test")!,
            path: ["v1/otp/installation/phoneNumberDetail", .secret(Plant.token)], headers: ["appKey": Plant.appKey])
        let urlSession = await #expect(throws: AuthError.self) {
            try await RefusingURLProtocol.transport().send(request)
        }
        #expect(
            urlSession?.message
                == "GET truecaller.sandbox.test/v1/otp/installation/phoneNumberDetail/<redacted>: cannot connect")
        let sandbox = Sandbox(seed: 1)
        let unknownHost = await #expect(throws: AuthError.self) { try await sandbox.transport.send(request) }
        // An unknown sandbox host is a set-up mistake: `.configuration`, naming the host only.
        #expect(unknownHost?.code == .configuration)
        #expect(
            unknownHost?.message.hasPrefix("no sandbox backend is registered for host 'truecaller.sandbox.test'")
                == true)
        #expect(
            sandbox.requestLog.map(\.description) == [
                "#1 GET truecaller.sandbox.test/v1/otp/installation/phoneNumberDetail/<redacted> → dropped"
            ])
        #expect(sandbox.requestLog.first?.path.hasSuffix(Plant.token) == true, "the log keeps the path for tests")
        for value in [urlSession as Any, unknownHost as Any, sandbox.requestLog] {
            #expect(Self.leak(in: value, secrets: [Plant.token, Plant.appKey]) == nil)
        }
    }

    @Test("Truecaller verify(accessToken:) and OTPLESS sign-out put the token in the path, marked secret")
    func pathTokenCallSites() async throws {
        let world = try SweepWorld()
        // Truecaller's server-side check, through a failing transport and through the sandbox.
        let verifier = TruecallerTokenVerifier(
            credential: .appKey(Secret(Plant.appKey)),
            baseURL: URL(string: "https://\(TruecallerBackend.defaultHost)")!,
            transport: RefusingURLProtocol.transport())
        let error = await #expect(throws: AuthError.self) { try await verifier.verify(accessToken: Plant.token) }
        #expect(error?.code == .network)
        #expect(error.flatMap { Self.leak(in: $0, secrets: [Plant.token, Plant.appKey]) } == nil)
        #expect(error?.message.contains("phoneNumberDetail/<redacted>") == true)
        // OTPLESS: a signed-in session whose session token goes into DELETE /v4/session/{token}.
        let lane = world.lanes.first { $0.id == .otpless }!
        let recorder = ScriptedTransport(forwardingTo: world.sandbox.transport)
        let signedIn = await world.runFlow(lane, index: 900, transport: recorder)
        #expect(signedIn.errors.isEmpty && signedIn.otherErrors.isEmpty, "\(signedIn.errors)")
        let delete = recorder.requests.first { $0.method == .delete }
        #expect(delete?.description == "DELETE api.otpless.test/v4/session/<redacted>")
        let token = try #require(signedIn.session?.credentials.extra[revealing: "sessionToken"])
        #expect(delete?.url.path.hasSuffix(token) == true)
        // The same sign-out through a failing transport: the outcome carries the error.
        let client = try AuthClient(
            providers: [lane.provider], store: InMemorySessionStore(), transport: RefusingURLProtocol.transport(),
            time: world.sandbox.time)
        let session = try #require(signedIn.session)
        try await client.store.save(session)
        let outcome = try await client.signOut(.otpless)
        #expect(outcome.wasSignedIn)
        #expect(outcome.remoteError?.code == .network)
        #expect(outcome.remoteError?.message.contains("v4/session/<redacted>") == true)
        #expect(
            Self.leak(in: outcome, secrets: [token] + session.credentials.extra.values.values.map { $0.reveal() })
                == nil)
    }

    @Test("the two call sites mark the token secret: even a token that does not look like one is redacted")
    func wordLikeTokensAreMarked() async throws {
        let world = try SweepWorld()
        // Letters only and short: the credential heuristic would keep these; only the mark redacts them.
        let truecallerToken = "plainlettertoken"
        let sessionToken = "plainlettersession"
        #expect(!HTTPRequest.looksLikeCredential(truecallerToken) && !HTTPRequest.looksLikeCredential(sessionToken))
        let verifier = TruecallerTokenVerifier(
            credential: .appKey(Secret(Plant.appKey)), transport: RefusingURLProtocol.transport())
        let error = await #expect(throws: AuthError.self) { try await verifier.verify(accessToken: truecallerToken) }
        #expect(
            error?.message.hasSuffix("phoneNumberDetail/<redacted>: cannot connect") == true, "\(error?.message ?? "")")
        #expect(error.flatMap { Self.leak(in: $0, secrets: [truecallerToken]) } == nil)
        let lane = world.lanes.first { $0.id == .otpless }!
        let session = AuthSession(
            provider: .otpless, user: AuthUser(id: "u"),
            credentials: Credentials(extra: ProviderState(["sessionToken": sessionToken])),
            createdAt: world.sandbox.clock.wallNow)
        let client = try AuthClient(
            providers: [lane.provider], store: InMemorySessionStore(sessions: [session]),
            transport: RefusingURLProtocol.transport(),
            time: world.sandbox.time)
        let outcome = try await client.signOut(.otpless)
        #expect(outcome.remoteError?.message == "DELETE api.otpless.test/v4/session/<redacted>: cannot connect")
        #expect(Self.leak(in: outcome, secrets: [sessionToken]) == nil)
    }

    @Test("every request of every adapter's flow fails in turn; no error or sign-out outcome shows a secret")
    func everyRequestFails() async throws {
        let world = try SweepWorld()
        var report: [String] = []
        var index = 100
        for lane in world.lanes {
            // A full run first, to learn how many requests the flow makes.
            let recorder = ScriptedTransport(forwardingTo: world.sandbox.transport)
            index += 1
            let full = await world.runFlow(lane, index: index, transport: recorder)
            #expect(full.errors.isEmpty && full.otherErrors.isEmpty, "\(lane.id): \(full.errors) \(full.otherErrors)")
            let count = recorder.requests.count
            #expect(count >= 2, "\(lane.id) made \(count) requests")
            var failures = 0
            for failAt in 1...count {
                world.sandbox.clock.advance(by: .seconds(120))
                index += 1
                let transport = failingAtTransport(world.sandbox.transport, failAt: failAt)
                let run = await world.runFlow(lane, index: index, transport: transport)
                #expect(run.otherErrors.isEmpty, "\(lane.id) #\(failAt): \(run.otherErrors)")
                let credentials = run.session.map(\.credentials)
                var secrets: [String] = transport.requests.flatMap(\.secretValues) + run.codes
                secrets += [credentials?.accessToken, credentials?.refreshToken, credentials?.idToken].compactMap {
                    $0?.reveal()
                }
                secrets += credentials.map { $0.extra.values.values.map { $0.reveal() } } ?? []
                for error in run.errors {
                    failures += 1
                    if let leak = Self.leak(in: error, secrets: secrets) {
                        Issue.record("\(lane.id) request #\(failAt): the error \(leak)")
                    }
                }
                if let outcome = run.signOut, let leak = Self.leak(in: outcome, secrets: secrets) {
                    Issue.record("\(lane.id) request #\(failAt): the sign-out outcome \(leak)")
                }
                // The same request through the sandbox's own failure path (a dropped connection).
                if let failed = transport.requests.dropFirst(failAt - 1).first {
                    _ = world.sandbox.faults.add(.dropConnection, host: failed.url.host, repeat: .once)
                    do { _ = try await world.sandbox.transport.send(failed) } catch {
                        if let leak = Self.leak(in: error, secrets: failed.secretValues) {
                            Issue.record("\(lane.id) sandbox drop: \(leak)")
                        }
                    }
                }
            }
            report.append("\(lane.id): \(count) requests failed on purpose, \(failures) errors free of secrets")
            #expect(failures >= 1, "\(lane.id): no request failure surfaced")
        }
        print("transport redaction, as expected (each request made to fail in turn): " + report.joined(separator: "; "))
    }

    @Test("server-side verifiers fail on their first request without showing a token or key")
    func verifiers() async throws {
        let world = try SweepWorld()
        let failing = RefusingURLProtocol.transport()
        var errors: [(String, any Error)] = []
        let dynamic = DynamicTokenVerifier(
            configuration: DynamicConfiguration(
                environmentID: DynamicBackend.defaultEnvironmentID, baseURL: DynamicBackend.baseURL()),
            transport: failing, time: world.sandbox.time, audience: .anyAudience)
        let dynamicToken = try world.dynamic.mintToken(
            userID: "user-1", sessionID: "s1", issuedAt: world.sandbox.clock.wallNow)
        do { _ = try await dynamic.verify(dynamicToken) } catch { errors.append(("dynamic", error)) }
        let otpless = OTPlessTokenVerifier(
            clientID: "sandbox-client", clientSecret: Plant.clientSecret, transport: failing, time: world.sandbox.time)
        do { _ = try await otpless.validate(token: Plant.token) } catch { errors.append(("otpless validate", error)) }
        let idToken = try world.otpless.sign(claims: [
            "sub": .string("u"), "aud": .string("sandbox-client"), "iss": .string("https://otpless.com"),
        ])
        do { _ = try await otpless.verifyIDToken(idToken) } catch { errors.append(("otpless id token", error)) }
        let profile = try world.truecaller.oneTapResponse(
            e164: "+919876500001", countryCode: "IN", firstName: "A", requestNonce: Plant.nonce,
            requestTime: world.sandbox.clock.wallNow)
        let response = TruecallerProfileResponse(
            payload: profile.payload.reveal(), signature: profile.signature.reveal(),
            signatureAlgorithm: profile.signatureAlgorithm, requestNonce: profile.requestNonce.reveal())
        let profileVerifier = TruecallerProfileVerifier(configuration: world.truecallerConfiguration)
        do {
            _ = try await profileVerifier.verify(
                response, expectedNonce: Plant.nonce, context: AuthContext(transport: failing, time: world.sandbox.time)
            )
        } catch {
            errors.append(("truecaller profile", error))
        }
        #expect(errors.count == 4)
        for (name, error) in errors {
            #expect(
                Self.leak(
                    in: error, secrets: [dynamicToken, idToken, profile.payload.reveal(), profile.signature.reveal()])
                    == nil,
                "\(name)")
        }
    }
}
