import MultiAuth

/// Names OTPLESS uses on the wire for delivery channels and OAuth channels, and their
/// MultiAuth counterparts (Docs/Providers/OTPless.md, "Channels").
enum OTPlessChannel {
    /// `deliveryMethod` / `communicationMode` value for a delivery channel, or `nil` when OTPLESS
    /// has none. Voice is `VOICE_CALL` (OTPLESS send-OTP API documentation).
    static func deliveryMode(for channel: DeliveryChannel) -> String? {
        switch channel {
        case .sms: "SMS"
        case .whatsapp: "WHATSAPP"
        case .email: "EMAIL"
        case .voice: "VOICE_CALL"
        case "viber": "VIBER"
        default: nil
        }
    }

    /// The MultiAuth channel for a `communicationMode` such as `WHATSAPP`; `VOICE_CALL` (and the
    /// older spelling `VOICE`) is ``DeliveryChannel/voice``.
    static func deliveryChannel(forMode mode: String) -> DeliveryChannel {
        switch mode.uppercased() {
        case "SILENT_AUTH": .silentNetworkAuth
        case "VOICE_CALL", "VOICE": .voice
        default: DeliveryChannel(rawValue: mode)
        }
    }

    /// The intent `channel` and `identifierType` for an OAuth login (`OtplessChannelType`).
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
