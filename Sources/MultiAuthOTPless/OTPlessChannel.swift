import MultiAuth

/// Names OTPLESS uses on the wire for delivery channels and OAuth channels (providers.md §1.2,
/// §1.4), and their MultiAuth counterparts.
enum OTPlessChannel {
    /// `deliveryMethod` / `communicationMode` value for a delivery channel, or `nil` when OTPLESS
    /// has none.
    static func deliveryMode(for channel: DeliveryChannel) -> String? {
        switch channel {
        case .sms: "SMS"
        case .whatsapp: "WHATSAPP"
        case .email: "EMAIL"
        case .voice: "VOICE"
        case "viber": "VIBER"
        default: nil
        }
    }

    /// The MultiAuth channel for a `communicationMode` such as `WHATSAPP`.
    static func deliveryChannel(forMode mode: String) -> DeliveryChannel {
        switch mode.uppercased() {
        case "SILENT_AUTH": .silentNetworkAuth
        default: DeliveryChannel(rawValue: mode)
        }
    }

    /// The intent `channel` and `identifierType` for an OAuth login (providers.md §1.2).
    static func oauth(_ name: OAuthProviderName) -> (channel: String, identifierType: String) {
        switch name.rawValue {
        case "whatsapp": ("WHATSAPP", "MOBILE")
        case "truecaller": ("TRUE_CALLER", "MOBILE")
        case "google", "gmail": ("GMAIL", "EMAIL")
        case "apple": ("APPLE_EMAIL", "EMAIL")
        case "facebook": ("FACEBOOK", "EMAIL")
        default: (name.rawValue.uppercased(), "EMAIL")
        }
    }
}
