/// The signed-in user as the provider described them.
///
/// Its renderings are Swift's default ones and show no personal data: phone numbers and e-mail
/// addresses print masked (``PhoneNumber``, ``EmailAddress``), a ``PersonName``'s parts, an
/// identity's value and the attributes' values are kept as ``Secret``s (`<redacted>`);
/// Docs/Security.md, "Redaction". `Codable` as before: the JSON keys and values are unchanged.
public struct AuthUser: Sendable, Codable, Hashable {
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
    /// Further profile fields, e.g. `"countryCode": "IN"` (read and written as plain strings,
    /// kept as ``Secret``s so that no rendering shows them).
    public var attributes: [String: String] {
        get { storedAttributes.mapValues { $0.reveal() } }
        set { storedAttributes = newValue.mapValues { Secret($0) } }
    }
    /// The attributes as stored (encoded under `attributes`).
    private var storedAttributes: [String: Secret]

    /// The JSON keys, as before the attributes were stored as secrets.
    private enum CodingKeys: String, CodingKey {
        case id, phone, email, name, identities
        case storedAttributes = "attributes"
    }

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
        self.storedAttributes = attributes.mapValues { Secret($0) }
    }

    /// One linked identity: its kind (e.g. `"phone"`, `"email"`, `"google"`), an identifier
    /// and whether the provider verified it.
    public struct Identity: Sendable, Codable, Hashable {
        /// The identity kind, e.g. `"phone"`, `"email"`, `"google"`.
        public var kind: String
        /// The identifier (phone number, address, subject id); kept as a ``Secret`` so that no
        /// rendering shows it.
        public var value: String {
            get { storedValue.reveal() }
            set { storedValue = Secret(newValue) }
        }
        /// The identifier as stored (encoded under `value`).
        private var storedValue: Secret
        /// Whether the provider verified it.
        public var verified: Bool
        /// Creates an identity.
        public init(kind: String, value: String, verified: Bool) {
            self.kind = kind
            self.storedValue = Secret(value)
            self.verified = verified
        }

        /// The JSON keys, as before the value was stored as a secret.
        private enum CodingKeys: String, CodingKey {
            case kind
            case storedValue = "value"
            case verified
        }
    }
}
