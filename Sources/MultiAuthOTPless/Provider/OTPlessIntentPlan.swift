import Foundation
import MultiAuth
import MultiAuthCrypto

/// One intent request worked out from a `SignInRequest`: the local checks (`7116`, the
/// expiry's form, `4003`), the wire fields of the intent body (Docs/Providers/OTPless.md, "Wire: intent") and
/// the provider state the challenge keeps.
struct OTPlessIntentPlan: Sendable {
    enum Target: Sendable {
        case phone(PhoneNumber)
        case email(EmailAddress)
        case oauth(OAuthProviderName)
    }

    let target: Target
    /// The channel the user picked; forced on the wire as `deliveryMethod` (Docs/Cases.md, B29).
    var forcedChannel: DeliveryChannel?
    /// The OTP length option (`nil` = merchant default), checked to be 4 or 6.
    let requestedOTPLength: Int?
    /// The OTP length used for the challenge.
    var otpLength: Int
    /// The expiry option in seconds, if given: any whole positive number, sent as given (the
    /// server decides which it accepts; Docs/Providers/OTPless.md, "Set-up").
    let requestedExpiry: Int?
    let smartAuthChannels: [DeliveryChannel]
    /// Whether the transport can send on the cellular bearer now (SNA is asked for only then).
    var cellularAvailable = false

    static let phoneChannels: Set<DeliveryChannel> = [.sms, .whatsapp, .voice, "viber"]
    /// The longest expiry option read, in seconds: 10 years, the bound every lifetime in the
    /// package has (Docs/Security.md, "Numbers from the wire"). Not a guess about the server.
    static let maximumExpirySeconds = 315_576_000

    /// The `expiry` option as whole seconds: ASCII digits (surrounding whitespace ignored),
    /// 1 to ``maximumExpirySeconds``; `nil` for anything else.
    static func expirySeconds(_ raw: String) -> Int? {
        let text = raw.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty, text.utf8.count <= 12, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            // wire-number: a String of at most 12 ASCII digits, parsed (nil on overflow), not converted.
            let seconds = Int(text), seconds >= 1, seconds <= maximumExpirySeconds
        else { return nil }
        return seconds
    }

    /// Runs the local checks.
    /// - Throws: `AuthError` `.invalidInput` (`7116`; an expiry that is not whole positive
    ///   seconds, without a providerCode), `.unsupported`, `.configuration` (`4003`).
    init(request: SignInRequest, configuration: OTPlessConfiguration, provider: AuthProviderID) throws {
        switch request.identity {
        case .phone(let number): target = .phone(number)
        case .email(let address): target = .email(address)
        case .oauth(let name): target = .oauth(name)
        case .passkey:
            throw AuthError(.unsupported, "OTPLESS's headless SDK offers no passkey sign-in", provider: provider)
        }
        if let raw = request.options["otpLength"] {
            guard raw == "4" || raw == "6" else {
                throw AuthError(.invalidInput, "OTP length must be 4 or 6", provider: provider, providerCode: "7116")
            }
            requestedOTPLength = Int(raw)
        } else {
            requestedOTPLength = nil
        }
        otpLength = requestedOTPLength ?? 6
        if let raw = request.options["expiry"] {
            // Only the form is ours to check: the range the server accepts is not published,
            // so any whole number of seconds is sent and the server's answer (`7113`) decides
            // (Docs/Providers/OTPless.md, "Set-up").
            guard let seconds = Self.expirySeconds(raw) else {
                throw AuthError(
                    .invalidInput,
                    "the expiry option must be a whole number of seconds from 1 to \(Self.maximumExpirySeconds)",
                    provider: provider)
            }
            requestedExpiry = seconds
        } else {
            requestedExpiry = nil
        }
        smartAuthChannels = configuration.preferredChannels
        switch target {
        case .phone:
            if let channel = request.channel, !Self.phoneChannels.contains(channel) {
                throw AuthError(
                    .unsupported, "OTPLESS cannot deliver to a phone number on '\(channel)'", provider: provider)
            }
            forcedChannel = request.channel
        case .email:
            if let channel = request.channel, channel != .email {
                throw AuthError(.unsupported, "OTPLESS delivers to e-mail addresses by e-mail only", provider: provider)
            }
            forcedChannel = request.channel
        case .oauth:
            forcedChannel = nil
        }
        if let enabled = configuration.enabledChannels { try check(enabled: enabled, provider: provider) }
    }

    /// The `4003` check against a known set of enabled channels; `oauth` lists the OAuth
    /// channels separately when known (else `enabled` holds both kinds).
    func check(enabled: Set<DeliveryChannel>, oauth: Set<DeliveryChannel>? = nil, provider: AuthProviderID) throws {
        let missing: DeliveryChannel?
        switch target {
        case .phone:
            if let forcedChannel {
                missing = enabled.contains(forcedChannel) ? nil : forcedChannel
            } else {
                missing = enabled.isDisjoint(with: Self.phoneChannels.union([.silentNetworkAuth])) ? .sms : nil
            }
        case .email:
            missing = enabled.contains(.email) ? nil : .email
        case .oauth(let name):
            let channel = DeliveryChannel(rawValue: name.rawValue)
            missing = (oauth ?? enabled).contains(channel) ? nil : channel
        }
        if let missing {
            throw AuthError(
                .configuration, "channel '\(missing)' is not enabled for this OTPLESS app", provider: provider,
                providerCode: "4003")
        }
    }

    /// The checks that need the merchant config: MFA (`4001`), channels
    /// (`4003`) when the configuration did not list them, the SmartAuth policy; sets the OTP length.
    mutating func check(
        against config: OTPlessWire.MerchantConfig, configuration: OTPlessConfiguration, provider: AuthProviderID
    ) throws {
        if config.isMFAEnabled == true {
            throw AuthError(
                .configuration, "the merchant has MFA enabled, which the headless flow does not support",
                provider: provider, providerCode: "4001")
        }
        if configuration.enabledChannels == nil {
            let enabled = config.deliveryChannels
            try check(enabled: enabled, oauth: config.oauthChannels, provider: provider)
            for channel in configuration.preferredChannels where !enabled.contains(channel) {
                throw AuthError(
                    .configuration, "the channel policy needs '\(channel)', which the merchant has not enabled",
                    provider: provider, providerCode: "4003")
            }
        }
        if requestedOTPLength == nil, let length = config.inputChannels(identifierType).compactMap(\.otpLength).first,
            length == 4 || length == 6
        {
            otpLength = length
        }
    }

    var identifierType: String {
        switch target {
        case .phone: "MOBILE"
        case .email: "EMAIL"
        case .oauth(let name): OTPlessChannel.oauth(name).identifierType
        }
    }

    /// The expiry of the challenge in seconds (default 300 s, a guess; Docs/Providers/OTPless.md).
    var expirySeconds: Int { requestedExpiry ?? OTPlessProvider.defaultExpirySeconds }

    /// A request that sets `deliveryMethod`, `expiry` or `otpLength` is "custom": no SNA.
    var isCustom: Bool { forcedChannel != nil || requestedExpiry != nil || requestedOTPLength != nil }

    /// The channel assumed when the server does not name one.
    var defaultChannel: DeliveryChannel {
        switch target {
        case .phone: forcedChannel ?? smartAuthChannels.first ?? .sms
        case .email: .email
        case .oauth: .silentNetworkAuth
        }
    }

    /// The masked destination for the challenge.
    var maskedDestination: String? {
        switch target {
        case .phone(let number): number.masked
        case .email(let address): address.masked
        case .oauth: nil
        }
    }

    /// The intent body (`PostIntentRequestBody` of the SDK; Docs/Providers/OTPless.md, "Wire:
    /// intent"): for a phone, `mobile` is country code + national number, `value` the
    /// national number only, `selectedCountryCode` `+cc`; `silentAuthEnabled` needs the
    /// merchant's SNA flag, a request the system routes (not custom) and a cellular path.
    func intentBody(
        config: OTPlessWire.MerchantConfig, configuration: OTPlessConfiguration, forcedChannel: DeliveryChannel?
    ) -> [String: JSONValue] {
        var body: [String: JSONValue] = [
            "hasWhatsapp": .string(configuration.hasWhatsApp ? "true" : "false"),
            // The SDK always sends `asId` (empty until a transaction gave one; resend sets it).
            "asId": .string(""),
            "triggerWebauthn": .bool(false),
            "isViSnaWhitelisted": .bool(true),
            "isAirtelSnaWhitelisted": .bool(true),
        ]
        switch target {
        case .phone(let number):
            let mobile = "\(number.countryCallingCode)\(number.nationalNumber)"
            body["channel"] = .string(config.inputChannels("MOBILE").compactMap(\.name).first ?? "PHONE")
            body["type"] = .string("INPUT")
            body["identifierType"] = .string("MOBILE")
            body["mobile"] = .string(mobile)
            body["selectedCountryCode"] = .string("+\(number.countryCallingCode)")
            body["value"] = .string(number.nationalNumber)
            body["fireIntent"] = .bool(false)
            body["silentAuthEnabled"] = .bool(
                config.merchant?.config?.isSilentAuthEnabled == true && !isCustom && cellularAvailable)
        case .email(let address):
            body["channel"] = .string(config.inputChannels("EMAIL").compactMap(\.name).first ?? "EMAIL")
            body["type"] = .string("INPUT")
            body["identifierType"] = .string("EMAIL")
            body["email"] = .string(address.identityKey)
            body["value"] = .string(address.identityKey)
            body["fireIntent"] = .bool(false)
            body["silentAuthEnabled"] = .bool(false)
        case .oauth(let name):
            let wire = OTPlessChannel.oauth(name)
            body["channel"] = .string(wire.channel)
            body["type"] = .string("BUTTON")
            body["identifierType"] = .string(wire.identifierType)
            body["value"] = .string("")
            body["fireIntent"] = .bool(true)
            body["silentAuthEnabled"] = .bool(false)
        }
        if let forcedChannel, let mode = OTPlessChannel.deliveryMode(for: forcedChannel) {
            body["deliveryMethod"] = .string(mode)
        }
        if let requestedExpiry { body["expiry"] = .string(String(requestedExpiry)) }
        if let requestedOTPLength { body["otpLength"] = .string(String(requestedOTPLength)) }
        var meta: [String: JSONValue] = [:]
        if let tid = configuration.smartAuthTemplateID { meta["tid"] = .string(tid) }
        // The real SDK sends no channel order (the dashboard's applies); only the sandbox reads
        // one, so only sandbox configurations send it (Docs/Providers/OTPless.md, "Channels").
        let order = smartAuthChannels.compactMap(OTPlessChannel.deliveryMode(for:))
        if configuration.sendsChannelOrderToSandbox, forcedChannel == nil, !order.isEmpty {
            meta["channels"] = .array(order.map(JSONValue.string))
        }
        // Always present, `{}` when empty, as the SDK sends it.
        let data = (try? JSONEncoder.multiAuth.encode(meta)) ?? Data("{}".utf8)
        body["clientMetaData"] = .string(String(decoding: data, as: UTF8.self))
        return body
    }

    /// The provider state a challenge keeps to continue (and to resume after a restart).
    func providerState(state: String) -> ProviderState {
        var values = ProviderState()
        values[otpless: "state"] = state
        values[otpless: "identifierType"] = identifierType
        switch target {
        case .phone(let number):
            values[otpless: "mobile"] = number.nationalNumber
            values[otpless: "countryCode"] = String(number.countryCallingCode)
            values[otpless: "e164"] = number.e164
        case .email(let address):
            values[otpless: "email"] = address.identityKey
        case .oauth(let name):
            values[otpless: "oauth"] = name.rawValue
        }
        values[otpless: "otpLength"] = String(otpLength)
        values[otpless: "expiry"] = requestedExpiry.map(String.init)
        values[otpless: "requestedOTPLength"] = requestedOTPLength.map(String.init)
        values[otpless: "forcedChannel"] = forcedChannel?.rawValue
        return values
    }

    /// Rebuilds a plan from a challenge's provider state (resend), forcing `channel`.
    static func resuming(_ state: ProviderState, channel: DeliveryChannel, configuration: OTPlessConfiguration)
        -> OTPlessIntentPlan?
    {
        let target: Target
        if let e164 = state[otpless: "e164"], let number = try? PhoneNumber(e164) {
            target = .phone(number)
        } else if let email = state[otpless: "email"], let address = try? EmailAddress(email) {
            target = .email(address)
        } else {
            return nil
        }
        return OTPlessIntentPlan(
            target: target, forcedChannel: channel,
            requestedOTPLength: state[otpless: "requestedOTPLength"].flatMap(Int.init),
            otpLength: state[otpless: "otpLength"].flatMap(Int.init) ?? 6,
            requestedExpiry: state[otpless: "expiry"].flatMap(Int.init),
            smartAuthChannels: configuration.preferredChannels)
    }

    private init(
        target: Target, forcedChannel: DeliveryChannel?, requestedOTPLength: Int?, otpLength: Int,
        requestedExpiry: Int?,
        smartAuthChannels: [DeliveryChannel]
    ) {
        self.target = target
        self.forcedChannel = forcedChannel
        self.requestedOTPLength = requestedOTPLength
        self.otpLength = otpLength
        self.requestedExpiry = requestedExpiry
        self.smartAuthChannels = smartAuthChannels
    }
}
