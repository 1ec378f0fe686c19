import Foundation
import MultiAuth
import MultiAuthCrypto

/// The one-tap hand-off as TrueSDK builds and reads it (Docs/Providers/Truecaller.md,
/// "One-tap hand-off"): the profile request travels to the Truecaller app as an
/// `NSKeyedArchiver` archive of a `TCTrueProfileRequest`, base64 in 64-character lines, in the
/// query item `profileRequest` of `https://www.truecaller.com/userProfile`; the Truecaller app
/// answers through the app link (universal link) with an archived `TCTrueProfileResponse` in
/// `response`, or an archived `TCError` in `error` (also on `truecallersdk-<appKey>://`).
enum TruecallerOneTapEnvelope {
    /// The request's class chain (`TCTrueProfileRequest.h`).
    static let requestClasses = ["TCTrueProfileRequest", "NSObject"]
    /// The response's class name (`TCTrueProfileResponse.h`).
    static let responseClass = "TCTrueProfileResponse"
    /// `kTrueProfileRequestKey`.
    static let requestItem = "profileRequest"
    /// `kTrueProfileResponseKey`.
    static let responseItem = "response"
    /// `kErrorKey`.
    static let errorItem = "error"
    /// `TrueSDKApiVersion` (`TCVersion.m`).
    static let apiVersion = "1.0"
    /// `TrueSDKVersion` (`TCVersion.m`), the version whose wire the adapter speaks.
    static let sdkVersion = "0.1.8"
    /// The longest return link read, in UTF-8 bytes: a signed profile is about 3 KB; anything
    /// far longer is refused before it is parsed.
    static let maximumReturnLinkBytes = 32_768

    /// The fields of one profile request (`TCTrueProfileRequest.m` keys).
    struct Request: Sendable, Hashable {
        var appID: String?
        var appKey: String
        var appLink: String
        var appName: String?
        var requestNonce: String
        var titleType: Int
        var locale: String

        /// `truecallersdk-<appKey>`: the URL scheme the SDK requires in Info.plist (code 20).
        var urlScheme: String { "truecallersdk-" + appKey }

        /// The archived object.
        var archiveObject: KeyedArchiveObject {
            func text(_ value: String?) -> KeyedArchiveObject.Field { value.map { .string($0) } ?? .null }
            return KeyedArchiveObject(
                classes: TruecallerOneTapEnvelope.requestClasses,
                fields: [
                    "appId": text(appID), "appKey": .string(appKey), "appLink": .string(appLink),
                    "appName": text(appName), "requestNonce": .string(requestNonce),
                    "apiVersion": .string(TruecallerOneTapEnvelope.apiVersion),
                    "sdkVersion": .string(TruecallerOneTapEnvelope.sdkVersion),
                    "titleType": .integer(Int64(truncatingIfNeeded: titleType)),
                    "locale": .string(locale), "urlScheme": .string(urlScheme),
                ])
        }
    }

    /// The hand-off URL: `base?profileRequest=<base64 of the archive, 64-character lines>`
    /// (`buildTruecallerMessageWithItem:forKey:`).
    static func url(for request: Request, base: URL) throws -> URL {
        let text = lines(Base64.encode(KeyedArchive.encode(request.archiveObject)))
        guard var components = URLComponents(url: base, resolvingAgainstBaseURL: false) else {
            throw AuthError(.configuration, "the one-tap URL is not a valid URL", provider: .truecaller)
        }
        components.queryItems = [URLQueryItem(name: requestItem, value: text)]
        guard let url = components.url else {
            throw AuthError(.configuration, "the one-tap URL could not be built", provider: .truecaller)
        }
        return url
    }

    /// `NSDataBase64Encoding64CharacterLineLength`: lines of 64 characters joined by CR LF.
    static func lines(_ base64: String) -> String {
        var out: [String] = []
        var rest = Substring(base64)
        while !rest.isEmpty {
            out.append(String(rest.prefix(64)))
            rest = rest.dropFirst(64)
        }
        return out.joined(separator: "\r\n")
    }

    /// What a return link says.
    enum Return: Sendable, Hashable {
        /// A signed profile (`response`).
        case response(TruecallerProfileResponse)
        /// An error code (`error`): 3 when the user declined, for instance.
        case error(TruecallerErrorCode)
    }

    /// Reads a return link as `continueUserActivity:` and `continueWithUrlScheme:` do: the first
    /// `error` item wins, else the first `response` item; each is base64 (unknown characters
    /// ignored, `NSDataBase64DecodingIgnoreUnknownCharacters`) of a keyed archive.
    /// - Throws: `AuthError` `.malformedResponse` with provider code `"13"` when the link is
    ///   too long, carries neither item, or an item is not a readable archive of the right
    ///   shape (the SDK's `UserProfileContentNotValid`).
    static func parse(_ url: URL) throws -> Return {
        guard url.absoluteString.utf8.count <= maximumReturnLinkBytes else {
            throw TruecallerErrorCode.userProfileContentNotValid.authError("the Truecaller return link is too long")
        }
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        if let error = items.first(where: { $0.name == errorItem }) {
            let object = try archive(error.value, what: "error")
            guard let raw = object.fields["NSCode"]?.integerValue, let code = Int(exactly: raw) else {
                throw TruecallerErrorCode.userProfileContentNotValid.authError("the Truecaller error has no code")
            }
            return .error(TruecallerErrorCode(code))
        }
        guard let response = items.first(where: { $0.name == responseItem }) else {
            throw TruecallerErrorCode.userProfileContentNotValid.authError("the return link carries no response")
        }
        let object = try archive(response.value, what: "response")
        guard object.className == responseClass,
            let payload = object.fields["payload"]?.stringValue,
            let signature = object.fields["signature"]?.stringValue,
            let algorithm = object.fields["signatureAlgorithm"]?.stringValue,
            let nonce = object.fields["requestNonce"]?.stringValue
        else {
            throw TruecallerErrorCode.userProfileContentNotValid.authError(
                "the Truecaller response lacks a payload, signature, algorithm or nonce")
        }
        return .response(
            TruecallerProfileResponse(
                payload: payload, signature: signature, signatureAlgorithm: algorithm, requestNonce: nonce))
    }

    private static func archive(_ value: String?, what: String) throws -> KeyedArchiveObject {
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=".utf8)
        let compact = String(decoding: (value ?? "").utf8.filter { alphabet.contains($0) }, as: UTF8.self)
        do {
            return try KeyedArchive.decode(try Base64.decode(compact))
        } catch {
            throw TruecallerErrorCode.userProfileContentNotValid.authError(
                "the Truecaller \(what) is not a readable archive")
        }
    }
}
