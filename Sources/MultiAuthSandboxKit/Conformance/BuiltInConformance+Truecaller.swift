import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthCrypto
import MultiAuthSandbox
import MultiAuthTruecaller

extension BuiltInConformance {
    /// `TruecallerProvider` (`TruecallerConfiguration.sandbox(…)`: the production host layout
    /// on `.test` names) against `TruecallerBackend`.
    public static func truecaller() -> ProviderConformance {
        ProviderConformance(
            provider: { sandbox in
                // The one-tap hand-off asks the sandbox's emulated Truecaller app whether it is installed.
                let app = (sandbox.backend(forHost: TruecallerBackend.otpHost) as? TruecallerBackend)?.app
                return TruecallerProvider(
                    configuration: try .sandbox(appKey: "sandbox-app-key-secret", deviceID: "conformance-device"),
                    app: TruecallerApp { app?.isInstalled ?? false })
            },
            harness: .truecaller())
    }

    /// Why the abilities the harness leaves out do not apply to Truecaller (shown in the skips).
    public static let truecallerReasons: [ConformanceHarness.Abilities: String] = [
        .attemptLimit:
            "the attempt limit (code 4290) maps to rateLimited with retryAfter (a lock-out is a wait), not attemptsExhausted (see C08)",
        .resend: "Truecaller has no resend API; a new create starts over",
        .refresh: "no refresh API",
    ]

    /// A Truecaller error answer `{"code": code, "message": message}` (plus `retryAfter` in
    /// seconds when given) on the create (`.start`) or verify (`.submit`) endpoint, expected to
    /// map to `expected` with providerCode `code`.
    public static func truecallerError(
        _ name: String, _ stage: ConformanceHarness.ErrorFixture.Stage, _ status: Int, _ code: Int, _ message: String,
        retryAfter: Int? = nil, _ expected: AuthError.Code
    ) -> ConformanceHarness.ErrorFixture {
        ConformanceHarness.ErrorFixture(
            name, stage: stage,
            pathPrefix: stage == .start ? "/v1/otp/installation/create" : "/v1/otp/installation/verify",
            status: status,
            json: #"{"code":\#(code),"message":"\#(message)"\#(retryAfter.map { #","retryAfter":\#($0)"# } ?? "")}"#,
            expectedCode: expected, expectedProviderCode: String(code))
    }

    /// The sandbox host of the Truecaller OTP endpoints (`api4.truecaller.test`).
    static let truecallerHost = TruecallerBackend.otpHost

    /// Distinct Indian mobile numbers `+91 98765 0xxxx`; the name comes in the request options
    /// because the kit answers with a code only.
    public static func truecallerRequest(_ index: Int) -> SignInRequest {
        let phone = try! PhoneNumber("+9198765" + String(format: "%05d", index))
        return .phone(
            phone,
            options: [TruecallerProvider.firstNameOption: "Test", TruecallerProvider.lastNameOption: "User \(index)"])
    }

    /// The Truecaller harness with the default seed (`ConformanceHarness.truecaller(seed:)`).
    public static var truecallerHarness: ConformanceHarness { .truecaller() }

    /// The one-tap request of C17 and C23: `.truecallerOneTap()` (the emulated Truecaller app is
    /// installed, so the start is a hand-off).
    public static func truecallerOneTapRequest(_ index: Int) -> SignInRequest {
        .truecallerOneTap(options: [TruecallerProvider.requestNonceOption: "conformance-nonce-\(index)"])
    }

    /// The redirects of one-tap (Docs/Providers/Truecaller.md, "One-tap hand-off"): the genuine
    /// link is the emulated Truecaller app's approval of the challenge's hand-off URL; the forged
    /// one carries that response re-archived with another nonce (its signature still verifies,
    /// so only the nonce check can refuse it); the refusals are the user declining (code 3)
    /// and the Truecaller app failing (code 10).
    public static let truecallerOneTapRedirects = ConformanceHarness.RedirectFixture(
        validURL: { sandbox, _, challenge in
            try truecallerApp(sandbox).approve(handoff(challenge), now: sandbox.time.now)
        },
        forge: { url in (try? TruecallerReturnLink.withNonce("forged-nonce", in: url)) ?? url },
        foreignURLs: [
            URL(string: "https://app.example.test/other?state=abc")!,
            URL(string: "https://www.truecaller.com/userProfile?profileRequest=abc")!,
        ],
        refusals: { sandbox, _, challenge in
            let app = try truecallerApp(sandbox)
            return [
                .init("declined", url: try app.decline(handoff(challenge)), expectedCodes: [.cancelledByProvider]),
                .init(
                    "internal error", url: try app.fail(handoff(challenge), code: 10),
                    expectedCodes: [.providerUnavailable]),
            ]
        })

    static func truecallerApp(_ sandbox: Sandbox) throws -> TruecallerAppEmulator {
        guard let backend = sandbox.backend(forHost: TruecallerBackend.otpHost) as? TruecallerBackend else {
            throw ConformanceFailure("no TruecallerBackend on \(TruecallerBackend.otpHost)")
        }
        return backend.app
    }

    static func handoff(_ challenge: Challenge) throws -> URL {
        guard case .oauthRedirect(let url) = challenge.kind else {
            throw ConformanceFailure("the one-tap start gave \(challenge.kind), not a hand-off")
        }
        return url
    }
}

/// Rewrites a Truecaller return link (C17's forged link).
enum TruecallerReturnLink {
    /// `url` with its archived response's `requestNonce` replaced by `nonce`.
    static func withNonce(_ nonce: String, in url: URL) throws -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let index = components.queryItems?.firstIndex(where: { $0.name == "response" }),
            let text = components.queryItems?[index].value
        else { throw ConformanceFailure("not a Truecaller return link with a response") }
        var object = try KeyedArchive.decode(try Base64.decode(text.filter { !$0.isWhitespace }))
        object.fields["requestNonce"] = .string(nonce)
        components.queryItems?[index].value = Base64.encode(KeyedArchive.encode(object))
        guard let forged = components.url else { throw ConformanceFailure("the forged link could not be built") }
        return forged
    }
}

extension ConformanceHarness {
    /// The harness of `TruecallerProvider` against `TruecallerBackend`: Indian mobile numbers,
    /// code entry and expiry by the OTP flow; redirects by one-tap against the emulated
    /// Truecaller app (`BuiltInConformance.truecallerOneTapRedirects`); the other abilities are
    /// skipped with
    /// `BuiltInConformance.truecallerReasons`. Error fixtures from Docs/Providers/Truecaller.md
    /// ("Error table"); any clock offset works (expiry is relative).
    public static func truecaller(seed: UInt64 = 1) -> ConformanceHarness {
        ConformanceHarness(
            host: BuiltInConformance.truecallerHost,
            installBackend: { sandbox in
                TruecallerBackend(signingKey: BuiltInConformance.sandboxSigningKey).install(in: sandbox)
            },
            validRequest: BuiltInConformance.truecallerRequest,
            invalidRequests: [
                .email(try! EmailAddress("user@example.com")),
                .oauth(.google),
                .phone(try! PhoneNumber("+1 650 555 0100")),  // the OTP flow is India only
                .phone(try! PhoneNumber("+91 98765 43210"), channel: .whatsapp),
                // error 18
                .phone(try! PhoneNumber("+91 98765 43210"), options: [TruecallerProvider.firstNameOption: "1234"]),
            ],
            abilities: [.codeEntry, .expiry, .redirect],
            unsupportedReasons: BuiltInConformance.truecallerReasons,
            errorFixtures: [
                BuiltInConformance.truecallerError(
                    "invalid partner credentials", .start, 404, 404, "Invalid partner credentials.", .configuration),
                BuiltInConformance.truecallerError(
                    "too many requests", .start, 429, 4291, "Too many requests", retryAfter: 60, .rateLimited),
                BuiltInConformance.truecallerError(
                    "internal on a 200", .start, 200, 10, "Internal", .providerUnavailable),
                BuiltInConformance.truecallerError("token expired", .submit, 400, 4002, "expired", .expired),
                BuiltInConformance.truecallerError(
                    "attempt limit", .submit, 429, 4290, "Too many attempts", retryAfter: 300, .rateLimited),
                BuiltInConformance.truecallerError("invalid name", .submit, 400, 18, "Invalid name", .invalidInput),
                // A refused verify is a wrong code whatever its code (the real one is unpublished);
                // an unknown code elsewhere stays generic (Docs/Providers/Truecaller.md, "Error table").
                BuiltInConformance.truecallerError("unknown code on verify", .submit, 400, 7777, "?", .invalidCode),
                BuiltInConformance.truecallerError("unknown code on create", .start, 400, 7777, "?", .generic),
            ],
            redirect: BuiltInConformance.truecallerOneTapRedirects,
            // Expiry is relative (`tokenTtl` seconds from the local clock), so any server offset works.
            serverClockTolerance: .seconds(300),
            fixtureSecrets: ["sandbox-app-key-secret"],
            seed: seed,
            // C24: without the name options the challenge must say it needs a name.
            bareRequest: { index in SignInRequest(identity: BuiltInConformance.truecallerRequest(index).identity) },
            redirectRequest: BuiltInConformance.truecallerOneTapRequest)
    }
}
