import Foundation
import MultiAuth
import MultiAuthSandboxRuntime

/// Everything ``ProviderConformance`` needs to know about a provider besides the provider
/// itself: how to install its emulated backend, which identities it accepts and rejects, how to
/// read a delivered code, which abilities to check, which error responses to inject.
///
/// A struct of closures and values, so a provider author fills in only what differs from the
/// defaults:
///
/// ```swift
/// let harness = ConformanceHarness(
///     host: "api.acme.sandbox.test",
///     installBackend: { sandbox in sandbox.register(AcmeBackend(), host: "api.acme.sandbox.test") },
///     validRequest: { index in .email(try! EmailAddress("user\(index)@example.com")) },
///     invalidRequests: [.oauth(.google)],
///     abilities: [.codeEntry, .expiry, .attemptLimit])
/// let report = await ProviderConformance(provider: { _ in AcmeProvider(baseURL: …) }, harness: harness).run()
/// ```
///
/// The kit answers challenges the way an app would: code-like challenges (one-time code, TOTP,
/// consent) with ``readCode``, magic-link and OAuth challenges with the redirect URL from
/// ``redirect``, and further challenges (a TOTP second step) the same way until signed in.
/// Checks whose ability is not in ``abilities`` are reported as skipped with the reason.
public struct ConformanceHarness: Sendable {
    /// Optional behaviours a check needs. A check of an ability the harness does not list is
    /// skipped; listing an ability the provider does not implement fails the check.
    public struct Abilities: OptionSet, Sendable, Hashable {
        /// The raw bits.
        public let rawValue: Int
        /// Creates abilities from raw bits.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// The first challenge is a code the user types, so the kit can submit malformed and
        /// wrong codes (C03, C04, C05, part of C14).
        public static let codeEntry = Abilities(rawValue: 1 << 0)
        /// The provider limits wrong attempts (C05).
        public static let attemptLimit = Abilities(rawValue: 1 << 1)
        /// Challenges expire (C06).
        public static let expiry = Abilities(rawValue: 1 << 2)
        /// Codes can be resent (`ResendableProvider`, C07).
        public static let resend = Abilities(rawValue: 1 << 3)
        /// Flows complete through redirect URLs (`RedirectHandlingProvider`, C17).
        public static let redirect = Abilities(rawValue: 1 << 4)
        /// Sessions can be refreshed (`RefreshableProvider`, C18).
        public static let refresh = Abilities(rawValue: 1 << 5)
        /// Every ability.
        public static let all: Abilities = [.codeEntry, .attemptLimit, .expiry, .resend, .redirect, .refresh]
    }

    /// One provider error response to inject, and the `AuthError` it must map to (C08).
    public struct ErrorFixture: Sendable {
        /// Which call gets the injected response.
        public enum Stage: Sendable, Hashable {
            /// The first request of `start`.
            case start
            /// The first request of `respond` (the right code is submitted).
            case submit
        }

        /// A short, secret-free name for reports, e.g. `"expired"`.
        public var name: String
        /// Which call gets the response.
        public var stage: Stage
        /// The path prefix the injected response applies to (`""`: the next request to the host).
        public var pathPrefix: String
        /// The HTTP status.
        public var status: Int
        /// The response body bytes (usually the provider's JSON error).
        public var body: Data
        /// Response headers.
        public var headers: [String: String]
        /// The `AuthError.Code` the provider must throw.
        public var expectedCode: AuthError.Code
        /// The raw provider code the error must keep in `providerCode`.
        public var expectedProviderCode: String?

        /// Creates a fixture with a JSON body.
        public init(
            _ name: String, stage: Stage, pathPrefix: String = "", status: Int, json: String,
            headers: [String: String] = [:],
            expectedCode: AuthError.Code, expectedProviderCode: String?
        ) {
            self.name = name
            self.stage = stage
            self.pathPrefix = pathPrefix
            self.status = status
            self.body = Data(json.utf8)
            var headers = headers
            headers["Content-Type"] = headers["Content-Type"] ?? "application/json"
            self.headers = headers
            self.expectedCode = expectedCode
            self.expectedProviderCode = expectedProviderCode
        }
    }

    /// How to produce redirect URLs for C17.
    public struct RedirectFixture: Sendable {
        /// A redirect the provider's side answers with instead of a grant (the user declined, the
        /// provider failed), and the `AuthError` codes it may map to (C17).
        public struct Refusal: Sendable, CustomReflectable {
            /// A short, secret-free name for reports, e.g. `"declined"`.
            public var name: String
            /// The redirect URL.
            public var url: URL
            /// The codes the refusal may map to (any one of them passes).
            public var expectedCodes: Set<AuthError.Code>

            /// Creates a refusal.
            public init(_ name: String, url: URL, expectedCodes: Set<AuthError.Code>) {
                self.name = name
                self.url = url
                self.expectedCodes = expectedCodes
            }

            /// The name, the expected codes and the URL's host (its query may carry a state).
            public var customMirror: Mirror {
                Mirror(
                    self,
                    children: [
                        "name": name, "host": url.host ?? "", "expectedCodes": expectedCodes.map(\.rawValue).sorted(),
                    ], displayStyle: .struct)
            }
        }

        /// The genuine redirect URL for a pending challenge (e.g. the magic link from the inbox).
        public var validURL:
            @Sendable (_ sandbox: Sandbox, _ request: SignInRequest, _ challenge: Challenge) throws -> URL
        /// The same URL with an unknown state (the default replaces the `state` query item).
        public var forge: @Sendable (URL) -> URL
        /// URLs of other apps and services that the provider must not claim (added to the
        /// kit's own).
        public var foreignURLs: [URL]
        /// The refusals the provider's side can answer a pending challenge with (C17: each ends
        /// in one of its codes, stores nothing and leaves the flow pending, so the genuine link
        /// still signs in afterwards). Default: none.
        public var refusals:
            @Sendable (_ sandbox: Sandbox, _ request: SignInRequest, _ challenge: Challenge) throws -> [Refusal]

        /// Creates a fixture.
        public init(
            validURL: @escaping @Sendable (Sandbox, SignInRequest, Challenge) throws -> URL,
            forge: @escaping @Sendable (URL) -> URL = RedirectFixture.replacingState, foreignURLs: [URL] = [],
            refusals: @escaping @Sendable (Sandbox, SignInRequest, Challenge) throws -> [Refusal] = { _, _, _ in [] }
        ) {
            self.validURL = validURL
            self.forge = forge
            self.foreignURLs = foreignURLs
            self.refusals = refusals
        }

        /// Replaces (or adds) the `state` query item with a value no flow has.
        public static func replacingState(_ url: URL) -> URL {
            guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
            var items = (components.queryItems ?? []).filter { $0.name != "state" }
            items.append(URLQueryItem(name: "state", value: "forged-" + FlowID.random().rawValue))
            components.queryItems = items
            return components.url ?? url
        }

        /// A fixture that reads the link of the newest delivered message to the request's
        /// destination.
        public static func inboxLink(
            destination: @escaping @Sendable (SignInRequest) -> String = ConformanceHarness.defaultDestination
        ) -> RedirectFixture {
            RedirectFixture(validURL: { sandbox, request, _ in
                guard let link = sandbox.inbox.latest(for: destination(request))?.link else {
                    throw ConformanceFailure("no link was delivered to \(request)")
                }
                return link
            })
        }
    }

    /// The backend host (fault rules are scoped to it).
    public var host: String
    /// Registers the provider's emulated backend(s) in a fresh sandbox.
    public var installBackend: @Sendable (Sandbox) throws -> Void
    /// A valid request for identity number `index` (0, 1, 2, …); distinct indexes must give
    /// distinct identities (C16 uses up to ``concurrentFlows`` + 1).
    public var validRequest: @Sendable (_ index: Int) -> SignInRequest
    /// A valid request that leaves to the answer everything the provider lets the answer
    /// bring (e.g. no name in the options), for C24; `nil` uses ``validRequest``.
    public var bareRequest: (@Sendable (_ index: Int) -> SignInRequest)?
    /// A valid request whose flow completes through a redirect (a social login, a one-tap
    /// hand-off), for C17 and C23, when ``validRequest``'s flow completes by code; `nil` uses
    /// ``validRequest``.
    public var redirectRequest: (@Sendable (_ index: Int) -> SignInRequest)?
    /// Requests the provider must refuse before any network call (C01).
    public var invalidRequests: [SignInRequest]
    /// The inbox destination key of a request (default: E.164 or e-mail identity key).
    public var destination: @Sendable (SignInRequest) -> String
    /// Reads the code delivered for `request` (default: the newest delivered message's code).
    /// For a TOTP challenge, compute the code from the enrollment secret at the client's time
    /// (`sandbox.clock.wallNow`): C19 then also proves TOTP verification tolerates the server
    /// clock offset.
    /// - Throws: when no code was delivered.
    public var readCode:
        @Sendable (_ sandbox: Sandbox, _ request: SignInRequest, _ challenge: Challenge) throws -> String
    /// A wrong code of the same length (default: the last digit changed).
    public var wrongCode: @Sendable (String) -> String
    /// The abilities to check.
    public var abilities: Abilities
    /// Why the provider lacks abilities the harness does not list, e.g.
    /// `[.resend: "no resend API; a new start sends a new code"]`. A check skipped for a
    /// missing ability gives this reason in its detail (a key may combine abilities that share
    /// one reason); without one, the detail says only that the harness does not list the
    /// ability. Reasons for abilities in ``abilities`` are ignored.
    public var unsupportedReasons: [Abilities: String]
    /// Error responses and their mappings (C08); include one unknown code (→ `.generic`).
    public var errorFixtures: [ErrorFixture]
    /// Redirect URLs: required when ``abilities`` contains `.redirect` (C17) or when the
    /// provider's challenges complete through a redirect (magic link, OAuth), which every check
    /// then answers with ``RedirectFixture/validURL``.
    public var redirect: RedirectFixture?
    /// The server clock skew the provider documents it tolerates (C19); `nil` skips C19.
    public var serverClockTolerance: Duration?
    /// Further fixture secrets that must never appear anywhere (C14).
    public var fixtureSecrets: [String]
    /// Provider-state keys whose values are not secret (C14 treats every other provider-state
    /// value as one): e.g. a wire constant naming the sign-in method that the provider also
    /// shows in the user's attributes. Default: none.
    public var publicProviderStateKeys: Set<String>
    /// The number of concurrent flows in C16 (default 200).
    public var concurrentFlows: Int
    /// The base seed; check `n` uses sandbox seed `seed + n`.
    public var seed: UInt64

    /// Creates a harness.
    public init(
        host: String, installBackend: @escaping @Sendable (Sandbox) throws -> Void,
        validRequest: @escaping @Sendable (Int) -> SignInRequest, invalidRequests: [SignInRequest] = [],
        destination: @escaping @Sendable (SignInRequest) -> String = ConformanceHarness.defaultDestination,
        readCode: (@Sendable (Sandbox, SignInRequest, Challenge) throws -> String)? = nil,
        wrongCode: @escaping @Sendable (String) -> String = ConformanceHarness.defaultWrongCode,
        abilities: Abilities, unsupportedReasons: [Abilities: String] = [:], errorFixtures: [ErrorFixture] = [],
        redirect: RedirectFixture? = nil,
        serverClockTolerance: Duration? = nil, fixtureSecrets: [String] = [], publicProviderStateKeys: Set<String> = [],
        concurrentFlows: Int = 200, seed: UInt64 = 1, bareRequest: (@Sendable (Int) -> SignInRequest)? = nil,
        redirectRequest: (@Sendable (Int) -> SignInRequest)? = nil
    ) {
        self.host = host
        self.installBackend = installBackend
        self.validRequest = validRequest
        self.invalidRequests = invalidRequests
        self.destination = destination
        self.readCode =
            readCode ?? { sandbox, request, _ in
                guard let code = sandbox.inbox.latest(for: destination(request))?.code else {
                    throw ConformanceFailure("no code was delivered to \(request)")
                }
                return code
            }
        self.wrongCode = wrongCode
        self.abilities = abilities
        self.unsupportedReasons = unsupportedReasons
        self.errorFixtures = errorFixtures
        self.redirect = redirect
        self.serverClockTolerance = serverClockTolerance
        self.fixtureSecrets = fixtureSecrets
        self.publicProviderStateKeys = publicProviderStateKeys
        self.concurrentFlows = concurrentFlows
        self.seed = seed
        self.bareRequest = bareRequest
        self.redirectRequest = redirectRequest
    }

    /// The inbox key of a request: the E.164 number, the e-mail identity key, the OAuth name, or
    /// `"passkey"`.
    public static let defaultDestination: @Sendable (SignInRequest) -> String = { request in
        switch request.identity {
        case .phone(let phone): phone.e164
        case .email(let email): email.identityKey
        case .oauth(let name): name.rawValue
        case .passkey: "passkey"
        }
    }

    /// The code with its last digit changed (`9` ↔ `0`, others + 1); same length.
    public static let defaultWrongCode: @Sendable (String) -> String = { code in
        guard let last = code.last, let digit = last.wholeNumberValue else { return code + "0" }
        return String(code.dropLast()) + String((digit + 1) % 10)
    }
}
