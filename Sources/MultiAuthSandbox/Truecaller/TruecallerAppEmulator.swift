import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthLocking

/// The emulated Truecaller app on one device: the other side of the one-tap hand-off
/// (Docs/Providers/Truecaller.md, "One-tap hand-off"; Docs/Emulator.md).
///
/// It takes the hand-off URL an app opens (`https://www.truecaller.com/userProfile?profileRequest=…`),
/// reads the archived `TCTrueProfileRequest` strictly (TrueSDK's ten keys and class name, its
/// versions, the `truecallersdk-<appKey>` scheme; an app key the backend does not accept), and
/// answers with the return link the real app opens through the request's app link:
/// ``approve(_:now:)`` (an archived `TCTrueProfileResponse` whose payload is signed by the
/// backend's current key and carries the request's nonce), ``decline(_:)`` (an archived
/// `TCError` with code 3, `UserCancelled`) or ``fail(_:code:)`` (any other code). A request
/// that breaks the contract is answered with code 14 (`BadRequest`); an unknown app key with
/// 12 (`UnauthorizedDeveloper`); no account signed in with 4 (`UserNotSignedIn`).
///
/// The envelope formats follow TrueSDK 0.1.8 (`TCTrueProfileRequest.m`,
/// `TCTrueProfileResponse.m`, `NSURL+TrueSDK.m`); how the real Truecaller app writes its answer
/// (line breaks in the base64, the `TCError` fields) is an **[ASSUMPTION]** recorded there.
///
/// Get it from ``TruecallerBackend/app``. Thread-safe (its fields are in one `Locked` state; no suspension while held).
public final class TruecallerAppEmulator: Sendable {
    /// The hand-off host, `www.truecaller.com` (TrueSDK's `kTCTruecallerAppURL`).
    public static let handoffHost = "www.truecaller.com"
    /// The hand-off path, `/userProfile`.
    public static let handoffPath = "/userProfile"
    /// The fields of a profile request, as `TCTrueProfileRequest.m` encodes them.
    public static let requestKeys: Set<String> = [
        "appId", "appKey", "appLink", "appName", "requestNonce", "apiVersion", "sdkVersion", "titleType", "locale",
        "urlScheme",
    ]

    private struct Account: Sendable {
        var e164: String
        var countryCode: String
        var firstName: String
        var lastName: String
    }

    /// The emulator's mutable fields, only touched inside `state.withLock`.
    private struct State {
        weak var backend: TruecallerBackend?
        var installed = true
        var account: Account? = Account(
            e164: "+919876543210", countryCode: "IN", firstName: "Asha", lastName: "Rao")
        var requests = 0
    }

    private let state = Locked(State())

    init() {}

    func attach(_ backend: TruecallerBackend) {
        state.withLock { $0.backend = backend }
    }

    /// Whether the Truecaller app is installed on the emulated device (default `true`); pass
    /// it to the provider as `TruecallerApp { app.isInstalled }`.
    public var isInstalled: Bool {
        get { state.withLock { $0.installed } }
        set { state.withLock { $0.installed = newValue } }
    }

    /// Profile requests read so far (diagnostics and tests).
    public var requestCount: Int { state.withLock { $0.requests } }

    /// Signs `e164` in to the emulated Truecaller app: the profile one-tap shares. The default
    /// account is `+91 98765 43210`, Asha Rao.
    /// - Parameters:
    ///   - e164: The number, E.164 with `+`.
    ///   - countryCode: ISO 3166-1 alpha-2 (the payload carries it lower-case).
    ///   - firstName: The first name.
    ///   - lastName: The last name.
    public func signIn(e164: String, countryCode: String, firstName: String, lastName: String = "") {
        state.withLock {
            $0.account = Account(e164: e164, countryCode: countryCode, firstName: firstName, lastName: lastName)
        }
    }

    /// Signs the account out: the next request is answered with code 4 (`UserNotSignedIn`).
    public func signOut() {
        state.withLock { $0.account = nil }
    }

    /// The user shares the profile: the return link carries a response signed by the backend's
    /// current key, with the request's nonce, `requestTime` = `now`.
    /// - Parameters:
    ///   - handoff: The hand-off URL the app opened.
    ///   - now: The time the profile is signed at (the sandbox clock's).
    /// - Returns: The return link (`<appLink>?response=…`), or an error link when the request
    ///   breaks the contract, names an unknown app key or no account is signed in.
    /// - Throws: ``TruecallerAppEmulator/Refusal`` when the URL is not a hand-off URL at all,
    ///   or its app link cannot carry an answer; `CryptoError` when signing fails.
    public func approve(_ handoff: URL, now: Date) throws -> URL {
        let request = try read(handoff)
        if let code = request.refusal { return try errorLink(request.appLink, code: code) }
        guard let account = state.withLock({ $0.account }) else { return try errorLink(request.appLink, code: 4) }
        guard let backend = state.withLock({ $0.backend }) else { throw Refusal("the emulator has no backend") }
        let signed = try backend.oneTapResponse(
            e164: account.e164, countryCode: account.countryCode, firstName: account.firstName,
            lastName: account.lastName, requestNonce: request.nonce, requestTime: now)
        return try returnLink(request.appLink, response: signed)
    }

    /// The user declines: the return link carries code 3 (`UserCancelled`).
    /// - Throws: ``TruecallerAppEmulator/Refusal`` as ``approve(_:now:)``.
    public func decline(_ handoff: URL) throws -> URL {
        try fail(handoff, code: 3)
    }

    /// The Truecaller app fails with `code` (TrueSDK's 1–20, or any number).
    /// - Throws: ``TruecallerAppEmulator/Refusal`` as ``approve(_:now:)``.
    public func fail(_ handoff: URL, code: Int) throws -> URL {
        try errorLink(try read(handoff).appLink, code: code)
    }

    /// A return link for `handoff` carrying `response` as given (a test's forged or mismatched
    /// response, e.g. from ``TruecallerBackend/oneTapResponse(e164:countryCode:firstName:lastName:requestNonce:requestTime:)``).
    /// - Throws: ``TruecallerAppEmulator/Refusal`` as ``approve(_:now:)``.
    public func returnLink(for handoff: URL, response: TruecallerSignedProfile) throws -> URL {
        try returnLink(try read(handoff).appLink, response: response)
    }

    /// The `requestNonce` of a hand-off URL's request (tests use it to sign a response by hand).
    /// - Throws: ``TruecallerAppEmulator/Refusal`` when the URL is not a readable hand-off URL.
    public func requestNonce(of handoff: URL) throws -> String {
        try read(handoff).nonce
    }

    /// The archived request object of a hand-off URL, read without judging it (contract tests).
    /// - Throws: ``TruecallerAppEmulator/Refusal`` when there is no readable archive.
    package func requestObject(of handoff: URL) throws -> KeyedArchiveObject {
        guard let components = URLComponents(url: handoff, resolvingAgainstBaseURL: false),
            let item = components.queryItems?.first(where: { $0.name == "profileRequest" })?.value
        else { throw Refusal("no profileRequest item") }
        return try Self.unarchive(item)
    }

    /// Why the emulator could not answer at all (no error link can be built). Its renderings
    /// are Swift's default, `Refusal(reason: "…")`: the reason names what is wrong with the URL,
    /// never a value from it.
    public struct Refusal: Error, Sendable {
        /// What is wrong.
        public let reason: String
        init(_ reason: String) { self.reason = reason }
    }

    // MARK: Reading the request

    private struct ReadRequest {
        var appLink: URL
        var nonce: String
        /// The error code to answer with instead of a profile, if any.
        var refusal: Int?
    }

    private func read(_ handoff: URL) throws -> ReadRequest {
        guard handoff.scheme?.lowercased() == "https", handoff.host?.lowercased() == Self.handoffHost,
            handoff.path == Self.handoffPath
        else { throw Refusal("not a Truecaller hand-off URL") }
        let items = URLComponents(url: handoff, resolvingAgainstBaseURL: false)?.queryItems ?? []
        guard items.count == 1, let item = items.first, item.name == "profileRequest", let text = item.value else {
            throw Refusal("the hand-off URL must carry exactly one profileRequest item")
        }
        state.withLock { $0.requests += 1 }
        let object = try Self.unarchive(text)
        guard let link = object.fields["appLink"]?.stringValue, let appLink = URL(string: link),
            appLink.scheme?.lowercased() == "https", appLink.host != nil
        else { throw Refusal("the request has no https app link to answer on") }
        let nonce = object.fields["requestNonce"]?.stringValue ?? ""
        var read = ReadRequest(appLink: appLink, nonce: nonce)
        let lines = text.components(separatedBy: "\r\n")
        let wellFormed =
            object.className == "TCTrueProfileRequest" && Set(object.fields.keys) == Self.requestKeys
            && !nonce.isEmpty && object.fields["apiVersion"]?.stringValue == "1.0"
            && object.fields["sdkVersion"]?.stringValue?.isEmpty == false
            && (0...6).contains(object.fields["titleType"]?.integerValue ?? -1)
            && object.fields["locale"]?.stringValue?.isEmpty == false
            && lines.dropLast().allSatisfy { $0.count == 64 } && (lines.last?.count ?? 0) <= 64
        let appKey = object.fields["appKey"]?.stringValue ?? ""
        if !wellFormed || appKey.isEmpty || object.fields["urlScheme"]?.stringValue != "truecallersdk-" + appKey {
            read.refusal = 14
        } else if let accepted = state.withLock({ $0.backend })?.acceptedAppKeys, !accepted.contains(appKey) {
            read.refusal = 12
        }
        return read
    }

    private static func unarchive(_ text: String) throws -> KeyedArchiveObject {
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=".utf8)
        let compact = String(decoding: text.utf8.filter { alphabet.contains($0) }, as: UTF8.self)
        do { return try KeyedArchive.decode(try Base64.decode(compact)) } catch {
            throw Refusal("the profileRequest item is not a readable archive")
        }
    }

    // MARK: Writing the answer

    private func returnLink(_ appLink: URL, response: TruecallerSignedProfile) throws -> URL {
        let object = KeyedArchiveObject(
            classes: ["TCTrueProfileResponse", "NSObject"],
            fields: [
                "payload": .string(response.payload.reveal()), "signature": .string(response.signature.reveal()),
                "signatureAlgorithm": .string(response.signatureAlgorithm),
                "requestNonce": .string(response.requestNonce.reveal()),
            ])
        return try link(appLink, item: "response", object: object)
    }

    private func errorLink(_ appLink: URL, code: Int) throws -> URL {
        let object = KeyedArchiveObject(
            classes: ["TCError", "NSError", "NSObject"],
            fields: [
                "NSCode": .inlineInteger(Int64(truncatingIfNeeded: code)), "NSDomain": .string("TrueSDKErrorDomain"),
                "NSUserInfo": .dictionary(["NSLocalizedDescription": .string("Truecaller error \(code)")]),
            ])
        return try link(appLink, item: "error", object: object)
    }

    private func link(_ appLink: URL, item: String, object: KeyedArchiveObject) throws -> URL {
        let encoded = Base64.encode(KeyedArchive.encode(object))
        var lines: [String] = []
        var rest = Substring(encoded)
        while !rest.isEmpty {
            lines.append(String(rest.prefix(64)))
            rest = rest.dropFirst(64)
        }
        guard var components = URLComponents(url: appLink, resolvingAgainstBaseURL: false) else {
            throw Refusal("the app link cannot carry an answer")
        }
        components.queryItems =
            (components.queryItems ?? []) + [
                URLQueryItem(name: item, value: lines.joined(separator: "\r\n"))
            ]
        guard let url = components.url else { throw Refusal("the answer link could not be built") }
        return url
    }
}
