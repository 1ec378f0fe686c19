import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthDynamic
import MultiAuthOTPless
import MultiAuthPortal
import MultiAuthSandbox
import MultiAuthTruecaller

/// One row of the demo's summary table.
struct DemoOutcome {
    var provider: AuthProviderID
    var flow: String
    var session: AuthSession?
    var events: Int
    var milliseconds: Double
    var note: String
}

/// The demo's flows, one per built-in provider.
enum DemoScenarios {
    /// Asks for an identity and starts the sign-in with it; in `--interactive` mode an identity
    /// the library refuses (it does not parse, or the provider does not take it — both before
    /// any network call) is explained and asked again.
    /// - Throws: ``DemoQuit``, or the first error that is not about the identity.
    static func start<Identity>(
        _ world: DemoWorld, _ label: String, suggestion: String, parse: (String) throws -> Identity,
        signIn: (Identity) async throws -> SignInStep
    ) async throws -> (Identity, SignInStep) {
        while true {
            let identity = try world.console.identity(label, suggestion: suggestion, parse: parse)
            do {
                return (identity, try await signIn(identity))
            } catch let error as AuthError
                where world.console.interactive && [.invalidInput, .unsupported].contains(error.code)
            {
                await world.printer.catchUp()
                world.console.say("✗ \(error.code): \(DemoConsole.sentence(error)) — try another \(label)")
            }
        }
    }

    /// OTPLESS-style WhatsApp OTP; the sandbox's WhatsApp cannot reach the number, so
    /// SmartAuth falls back to SMS (events `fallbackTriggered`, `challengeIssued`).
    static func otplessWhatsApp(_ world: DemoWorld) async throws -> AuthSession? {
        let (phone, step) = try await start(
            world, "phone number", suggestion: "+91 98765 43210", parse: { try PhoneNumber($0) }
        ) { phone in
            world.sandbox.faults.failDelivery(on: .whatsapp, destination: phone.e164)
            world.console.say(
                "→ signIn(with: .otpless, .phone(\(phone.masked)))   channel chosen by the system: WhatsApp, then SMS")
            return try await world.client.signIn(with: .otpless, .phone(phone))
        }
        guard case .challenge(let challenge) = step else { return step.session }
        await world.printer.catchUp()
        world.console.say(
            "📵 WhatsApp cannot reach \(phone.masked) in the sandbox; the status poll (server timer, 3 s) will see it")
        // Subscribed before the clock moves, so the fallback's events cannot be missed.
        let flowEvents = world.client.events.subscribe()
        await world.sandbox.clock.waitForSleepers(count: 1)
        world.sandbox.clock.advance(by: .seconds(3))
        _ = try await world.sandbox.inbox.next(for: phone.e164, channel: .sms)  // resumed by the delivery, no sleeping
        // The status poller publishes the fallback once it has read the SMS status: wait for
        // that event (or the flow's end), not for a number of scheduler turns.
        for await event in flowEvents where event.flowID == challenge.flowID {
            switch event.kind {
            case .challengeIssued, .flowCancelled, .flowExpired, .attemptsExhausted: break
            default: continue
            }
            break
        }
        let current = await world.client.pendingChallenge(for: .otpless) ?? challenge
        return try await world.answerCodes(
            current, destination: phone.e164, channel: .sms,
            restart: { try await world.client.signIn(with: .otpless, .phone(phone, channel: .sms)).challenge })
    }

    /// OTPLESS-style magic link by e-mail, completed through the deep link
    /// `otpless.{appid}://otpless?code=…`.
    static func otplessMagicLink(_ world: DemoWorld) async throws -> AuthSession? {
        let (email, step) = try await start(
            world, "e-mail address", suggestion: "linus@example.com", parse: { try EmailAddress($0) }
        ) { email in
            world.console.say("→ signIn(with: .otpless, .email(\(email.masked)))")
            return try await world.client.signIn(with: .otpless, .email(email))
        }
        await world.printer.catchUp()
        guard case .challenge = step else { return step.session }
        guard let link = world.sandbox.inbox.latest(for: email.identityKey)?.link else {
            world.console.say("✗ no link was delivered")
            return nil
        }
        world.console.say(
            "✉️  email to \(email.identityKey): sign-in link \(link.scheme ?? "")://\(link.host ?? "")?code=…")
        world.console.say("↩︎ the app opens the link: handleRedirect(\(link.scheme ?? "")://…)")
        guard case .signedIn(let session)? = try await world.client.handleRedirect(link) else { return nil }
        await world.printer.catchUp()
        return session
    }

    /// Dynamic-style e-mail OTP (`verificationUUID`), with one wrong code first.
    static func dynamicEmail(_ world: DemoWorld) async throws -> AuthSession? {
        let (email, step) = try await start(
            world, "e-mail address", suggestion: "Ada.Lovelace+demo@Example.com", parse: { try EmailAddress($0) }
        ) { email in
            world.console.say("→ signIn(with: .dynamic, .email(\(email.masked)))   identity key: \(email.identityKey)")
            return try await world.client.signIn(with: .dynamic, .email(email))
        }
        guard case .challenge(let challenge) = step else { return step.session }
        return try await world.answerCodes(
            challenge, destination: email.identityKey, channel: .email, wrongFirst: !world.console.interactive,
            restart: { try await world.client.signIn(with: .dynamic, .email(email)).challenge })
    }

    /// Truecaller-style OTP for a non-Truecaller user: states, TTL, a name to finish. The name
    /// is asked for (and checked) before the code is sent, so a refused name never wastes an SMS.
    static func truecallerOTP(_ world: DemoWorld) async throws -> AuthSession? {
        var asked: PersonName?
        let (phone, step) = try await start(
            world, "phone number", suggestion: "098765 43210", parse: { try PhoneNumber($0, defaultRegion: "IN") }
        ) { phone in
            if asked == nil {
                world.console.say(
                    "Truecaller needs the person's name to finish a sign-in by code; asking before the code is sent:")
                let first = try world.console.identity("first name", suggestion: "Asha") {
                    try PersonName(firstName: $0)
                }
                asked = try world.console.identity("last name", suggestion: "Rao") {
                    try PersonName(firstName: first.firstName, lastName: $0)
                }
            }
            world.console.say(
                "→ signIn(with: .truecaller, .phone(\(phone.masked)))   parsed from national input, region IN")
            return try await world.client.signIn(with: .truecaller, .phone(phone))
        }
        let name = asked
        guard case .challenge(let challenge) = step else { return step.session }
        return try await world.answerCodes(
            challenge, destination: phone.e164, channel: .sms, name: name,
            restart: { try await world.client.signIn(with: .truecaller, .phone(phone)).challenge })
    }

    /// Portal-style OAuth → TOTP enrollment (otpauth QR) → TOTP code from an "authenticator".
    static func portalTOTP(_ world: DemoWorld, showQR: Bool) async throws -> AuthSession? {
        let email = try world.console.identity("Google account", suggestion: "grace@example.com") {
            try EmailAddress($0)
        }
        world.console.say("→ signIn(with: .portal, .oauth(.google))")
        let step = try await world.client.signIn(with: .portal, .oauth(.google))
        await world.printer.catchUp()
        guard case .challenge(let oauthChallenge) = step, case .oauthRedirect(let authorize) = oauthChallenge.kind
        else {
            return step.session
        }
        world.console.say("🌐 the browser opens \(authorize.host ?? "")\(authorize.path) and \(email.masked) consents")
        let consent = try await world.sandbox.transport.send(
            HTTPRequest(method: .get, url: URL(string: authorize.absoluteString + "&login_hint=\(email.identityKey)")!))
        guard let redirect = PortalBackend.redirectLocation(consent) else {
            world.console.say("✗ the consent page did not redirect (HTTP \(consent.status))")
            return nil
        }
        world.console.say("↩︎ handleRedirect(\(redirect.scheme ?? "")://\(redirect.host ?? "")\(redirect.path)?token=…)")
        guard case .challenge(let totpChallenge)? = try await world.client.handleRedirect(redirect) else { return nil }
        await world.printer.catchUp()
        guard case .totp(let digits, let enrollment) = totpChallenge.kind, let enrollment else {
            world.console.say("✗ expected a TOTP enrollment")
            return nil
        }
        let uri = try enrollment.parsedURI()
        world.console.say(
            "🔐 enroll an authenticator: \(uri.issuer ?? "-") / \(uri.account), \(uri.algorithm.rawValue), \(uri.digits) digits, \(uri.period) s"
        )
        if showQR, !world.console.json {
            let qr = try enrollment.qrCode()
            Terminal.out(qr.terminalString().split(separator: "\n").map { "      " + $0 }.joined(separator: "\n"))
            world.console.say("(QR: version \(qr.version), error correction M, \(qr.size)×\(qr.size) modules)")
        }
        if world.console.interactive { offerAuthenticatorHelp(world, uri: uri) }
        var challenge = totpChallenge
        while true {
            let code: String
            if world.console.interactive {
                let action: DemoAction
                do {
                    action = try world.console.action(delivered: nil, totp: digits)
                } catch let quit as DemoQuit {
                    await world.client.cancelFlow(for: .portal)
                    await world.printer.catchUp()
                    throw quit
                }
                switch action {
                case .code(let typed):
                    code = typed
                case .computeCode:
                    code = try uri.makeTOTP().code(at: world.sandbox.clock.wallNow)
                    world.console.say(
                        "📱 computed here for the demo (normally your authenticator app's job, RFC 6238): \(code)")
                case .quit, .resend, .wait:
                    await world.client.cancelFlow(for: .portal)
                    await world.printer.catchUp()
                    throw DemoQuit()
                }
            } else {
                code = try uri.makeTOTP().code(at: world.sandbox.clock.wallNow)
                world.console.say("📱 authenticator app shows \(code)  (RFC 6238 from the scanned otpauth URI)")
            }
            world.console.say("→ submit(code: \(code))")
            do {
                let step = try await world.client.submit(ChallengeAnswer(code: code), for: challenge)
                await world.printer.catchUp()
                if case .signedIn(let session) = step { return session }
                if case .challenge(let next) = step { challenge = next }
            } catch let error as AuthError {
                await world.printer.catchUp()
                world.console.say(DemoWorld.explain(error))
                if !world.console.interactive || [.expired, .attemptsExhausted].contains(error.code) {
                    world.console.say("the flow has ended; run the demo again to start over")
                    return nil
                }
            }
        }
    }

    /// The TOTP step without a phone at hand: the enrolment secret, and the exact `multiauth
    /// totp` command that computes the code the sandbox expects now (`--time` is the sandbox
    /// clock, which started at the real time and follows it while you type).
    static func offerAuthenticatorHelp(_ world: DemoWorld, uri: OTPAuthURI) {
        let now = Int64(world.sandbox.clock.wallNow.timeIntervalSince1970.rounded(.down))
        world.console.say("No authenticator app at hand? The QR code carries this enrolment (sandbox values):")
        world.console.say(
            "  secret  \(uri.secret)   (base32; an authenticator keeps it — treat a real one like a password)")
        world.console.say("  compute the code with:")
        world.console.say("    multiauth totp '\(uri.uriString)' --time \(now)")
        world.console.say(
            "  (from this package: swift run multiauth totp …; without --time it uses this machine's clock)")
        world.console.say("  or type 'code' and the demo computes it — normally your authenticator app's job.")
    }
}
