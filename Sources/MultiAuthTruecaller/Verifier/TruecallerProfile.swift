import Foundation
import MultiAuth
import MultiAuthCrypto

/// A Truecaller profile (`TCTrueProfile`, Docs/Providers/Truecaller.md): what `GET /v1/profile` returns
/// and what a one-tap `payload` decodes to.
///
/// Personal data: every rendering (the mirror, and Swift's default `description` built from it)
/// shows the masked phone number, the country, the flags and field names only.
public struct TruecallerProfile: Sendable, Hashable {
    /// The first name.
    public var firstName: String
    /// The last name; may be empty.
    public var lastName: String
    /// The phone number, E.164 with `+` (a leading `+` is added when the wire value has none).
    public var phoneNumber: String
    /// The lower-case ISO 3166-1 alpha-2 country code, e.g. `"in"`.
    public var countryCode: String?
    /// `M`, `F`, or another value (e.g. `N`) meaning not specified.
    public var gender: String?
    /// The e-mail address, if shared.
    public var email: String?
    /// `isTrueName` (the SDK's `isVerified`): Truecaller considers the name genuine.
    public var isTrueName: Bool
    /// `isAmbassador`.
    public var isAmbassador: Bool
    /// `requestTime`: when Truecaller built the profile, Unix seconds.
    public var requestTime: Date?
    /// `requestNonce`: the nonce of the request this profile answers (one-tap only).
    public var requestNonce: String?
    /// `verifier`: HMAC-SHA256 of the app's bundle id keyed with the app key, if present.
    public var verifier: String?
    /// The remaining string fields (`city`, `street`, `zipcode`, `jobTitle`, `companyName`,
    /// `avatarUrl`, `url`, `facebookID`, `twitterID`), as sent.
    public var otherFields: [String: String]

    /// Creates a profile.
    public init(
        firstName: String, lastName: String = "", phoneNumber: String, countryCode: String? = nil,
        gender: String? = nil,
        email: String? = nil, isTrueName: Bool = false, isAmbassador: Bool = false, requestTime: Date? = nil,
        requestNonce: String? = nil, verifier: String? = nil, otherFields: [String: String] = [:]
    ) {
        self.firstName = firstName
        self.lastName = lastName
        self.phoneNumber = phoneNumber
        self.countryCode = countryCode
        self.gender = gender
        self.email = email
        self.isTrueName = isTrueName
        self.isAmbassador = isAmbassador
        self.requestTime = requestTime
        self.requestNonce = requestNonce
        self.verifier = verifier
        self.otherFields = otherFields
    }

    static let otherFieldNames = [
        "street", "city", "zipcode", "facebookID", "twitterID", "url", "avatarUrl", "jobTitle", "companyName",
    ]

    /// Decodes a profile from its JSON object; `phoneNumber` may be a string or a number.
    /// - Throws: `AuthError` `.malformedResponse` with provider code `"13"`
    ///   (`UserProfileContentNotValid`) when the JSON is not an object or lacks a phone number.
    public init(json data: Data) throws {
        guard let object = (try? JSONDecoder().decode(JSONValue.self, from: data))?.objectValue else {
            throw TruecallerErrorCode.userProfileContentNotValid.authError("the profile is not a JSON object")
        }
        try self.init(object: object)
    }

    init(object: [String: JSONValue]) throws {
        func string(_ key: String) -> String? {
            if let text = object[key]?.stringValue { return text }
            return object[key]?.int64Value.map(String.init)
        }
        func bool(_ key: String) -> Bool {
            object[key]?.boolValue ?? (object[key]?.int64Value).map { $0 != 0 } ?? (object[key]?.stringValue == "true")
        }
        guard let phone = string("phoneNumber"), !phone.isEmpty else {
            throw TruecallerErrorCode.userProfileContentNotValid.authError("the profile has no phone number")
        }
        self.init(
            firstName: string("firstName") ?? "", lastName: string("lastName") ?? "",
            phoneNumber: phone.hasPrefix("+") ? phone : "+" + phone, countryCode: string("countryCode"),
            gender: string("gender"), email: string("email"), isTrueName: bool("isTrueName"),
            isAmbassador: bool("isAmbassador"),
            requestTime: object["requestTime"]?.doubleValue.map { Date(timeIntervalSince1970: $0) },
            requestNonce: string("requestNonce"), verifier: string("verifier"),
            otherFields: Dictionary(
                uniqueKeysWithValues: Self.otherFieldNames.compactMap { key in string(key).map { (key, $0) } }))
    }

    /// The profile as an ``/MultiAuth/AuthUser``: id = ``userID(forE164:)`` (Truecaller has no
    /// user id; a raw number would show in descriptions and logs), the parsed phone, the name
    /// when it passes ``/MultiAuth/PersonName``'s rules, the e-mail when valid, and attributes
    /// `countryCode`, `gender`, `isTrueName`, `isAmbassador` plus the other non-empty string
    /// fields.
    public var authUser: AuthUser {
        let phone = try? PhoneNumber(phoneNumber)
        var attributes = otherFields.filter { !$0.value.isEmpty }
        if let countryCode { attributes["countryCode"] = countryCode }
        if let gender { attributes["gender"] = gender }
        attributes["isTrueName"] = String(isTrueName)
        attributes["isAmbassador"] = String(isAmbassador)
        return AuthUser(
            id: Self.userID(forE164: phone?.e164 ?? phoneNumber), phone: phone,
            email: email.flatMap { try? EmailAddress($0) },
            name: try? PersonName(firstName: firstName, lastName: lastName), attributes: attributes)
    }

    /// The stable, pseudonymous user id of a number: `"tc-"` followed by the first 16 bytes of
    /// SHA-256 of the E.164 string, as 32 lower-case hex digits. The same number always gives
    /// the same id; the id does not show the number.
    public static func userID(forE164 e164: String) -> String {
        "tc-" + MessageDigest.sha256(Array(e164.utf8)).prefix(16).map { String(format: "%02x", $0) }.joined()
    }
}
