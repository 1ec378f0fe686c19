/// The signed-in user as the provider described them.
///
/// Phone numbers and e-mail addresses print masked (`description` of ``PhoneNumber`` and
/// ``EmailAddress``).
public struct AuthUser: Sendable, Codable, Hashable, CustomStringConvertible, CustomReflectable {
    /// The provider's user id.
    public var id: String
    /// The verified phone number, if any.
    public var phone: PhoneNumber?
    /// The verified e-mail address, if any.
    public var email: EmailAddress?
    /// The person's name, if the provider shares it.
    public var name: PersonName?
    /// Linked identities (channels or social accounts) the provider reports.
    public var identities: [Identity]
    /// Further profile fields (non-secret), e.g. `"countryCode": "IN"`.
    public var attributes: [String: String]

    /// Creates a user.
    public init(
        id: String, phone: PhoneNumber? = nil, email: EmailAddress? = nil, name: PersonName? = nil,
        identities: [Identity] = [], attributes: [String: String] = [:]
    ) {
        self.id = id
        self.phone = phone
        self.email = email
        self.name = name
        self.identities = identities
        self.attributes = attributes
    }

    /// One linked identity: its kind (e.g. `"phone"`, `"email"`, `"google"`), an identifier
    /// and whether the provider verified it.
    public struct Identity: Sendable, Codable, Hashable {
        /// The identity kind, e.g. `"phone"`, `"email"`, `"google"`.
        public var kind: String
        /// The identifier (phone number, address, subject id).
        public var value: String
        /// Whether the provider verified it.
        public var verified: Bool
        /// Creates an identity.
        public init(kind: String, value: String, verified: Bool) {
            self.kind = kind
            self.value = value
            self.verified = verified
        }
    }

    /// A mirror with masked contact data: identities show their kind, verification and a
    /// masked value; attributes show their names only.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "id": id, "phone": phone?.masked as Any, "email": email?.masked as Any, "name": name as Any,
                "identities": identities.map {
                    "\($0.kind)\($0.verified ? " (verified)" : ""): \(Self.mask($0.value))"
                },
                "attributeKeys": attributes.keys.sorted(),
            ], displayStyle: .struct)
    }

    /// The first two characters and the last two of `value`, the rest as bullets.
    static func mask(_ value: String) -> String {
        guard value.count > 6 else { return String(repeating: "•", count: value.count) }
        return String(value.prefix(2)) + String(repeating: "•", count: value.count - 4) + String(value.suffix(2))
    }

    /// `AuthUser(id: …, phone: <masked>, email: <masked>)`.
    public var description: String {
        var parts = ["id: \(id)"]
        if let phone { parts.append("phone: \(phone.masked)") }
        if let email { parts.append("email: \(email.masked)") }
        return "AuthUser(" + parts.joined(separator: ", ") + ")"
    }
}
