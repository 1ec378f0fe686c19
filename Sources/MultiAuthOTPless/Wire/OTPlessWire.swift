import Foundation
import MultiAuth
import MultiAuthCrypto

/// The JSON shapes of the OTPLESS headless API (Docs/Providers/OTPless.md, "Wire"), decoded
/// leniently: every field is optional so an added or missing field never breaks a flow. The
/// contract fixtures in `Tests/Fixtures/Contracts/OTPless` pin the real shapes.
enum OTPlessWire {
    /// `GET /v2/state` → `{state}`.
    struct StateResponse: Decodable { var state: String? }

    /// `GET /v2/lp/merchant/config/{state}`.
    struct MerchantConfig: Decodable, Sendable {
        var authType: String?
        var isMFAEnabled: Bool?
        var channelConfig: [ChannelGroup]?
        var merchant: Merchant?

        struct ChannelGroup: Decodable, Sendable {
            var identifierType: String?
            var channel: [Channel]?
        }
        struct Channel: Decodable, Sendable {
            var name: String?
            var type: String?
            var communicationMode: String?
            var otpLength: Int?
        }
        struct Merchant: Decodable, Sendable {
            var loginURI: String?
            var config: Flags?
        }
        struct Flags: Decodable, Sendable {
            var isSilentAuthEnabled: Bool?
        }

        /// The `INPUT` channels for `identifierType` (`MOBILE` or `EMAIL`).
        func inputChannels(_ identifierType: String) -> [Channel] {
            (channelConfig ?? []).filter { $0.identifierType == identifierType }.flatMap { $0.channel ?? [] }
                .filter { ($0.type ?? "INPUT") == "INPUT" }
        }

        /// The delivery modes of `INPUT` channels, as MultiAuth channels (`sms`, `whatsapp`, `email`).
        var deliveryChannels: Set<DeliveryChannel> {
            Set(
                (channelConfig ?? []).flatMap { $0.channel ?? [] }.filter { ($0.type ?? "INPUT") == "INPUT" }
                    .compactMap(\.communicationMode).map(OTPlessChannel.deliveryChannel(forMode:)))
        }

        /// The lower-cased names of `BUTTON` (OAuth) channels (`google`, `whatsapp`, …).
        var oauthChannels: Set<DeliveryChannel> {
            Set(
                (channelConfig ?? []).flatMap { $0.channel ?? [] }.filter { $0.type == "BUTTON" }
                    .compactMap(\.name).map { DeliveryChannel(rawValue: Self.oauthName(forWire: $0)) })
        }

        /// `GMAIL` → `google`, `APPLE_EMAIL` → `apple`, `TRUE_CALLER` → `truecaller`, else lower case.
        static func oauthName(forWire name: String) -> String {
            switch name.uppercased() {
            case "GMAIL": "google"
            case "APPLE_EMAIL": "apple"
            case "TRUE_CALLER": "truecaller"
            default: name.lowercased()
            }
        }
    }

    /// `timerSettings{interval, timeout}`: seconds for status polling, milliseconds for SNA.
    struct TimerSettings: Codable, Sendable, Hashable {
        var interval: Double?
        var timeout: Double?
    }

    /// `quantumLeap` of an intent (or SNA fallback) response.
    struct QuantumLeap: Decodable, Sendable {
        var asId: String?
        var state: String?
        var channels: [String]?
        var channel: String?
        var channelAuthToken: Secret?
        var intent: String?
        var pollingRequired: Bool?
        var status: String?
        var timerSettings: TimerSettings?
        var uid: String?
        var communicationMode: String?
    }

    /// `POST …/transaction/intent/{state}` → `{quantumLeap, oneTap?}`.
    struct IntentResponse: Decodable, Sendable {
        var quantumLeap: QuantumLeap?
        var oneTap: OneTap?
    }

    /// The transaction status of verify, code exchange and polls.
    struct TransactionStatus: Decodable, Sendable {
        var authDetail: AuthDetail?
        var oneTap: OneTap?
        var quantumLeap: QuantumLeap?

        struct AuthDetail: Decodable, Sendable {
            var asId: String?
            var channel: String?
            var communicationDelivered: Bool?
            var status: String?
            var token: Secret?
            var communicationMode: String?
        }
    }

    /// `oneTap`: the ONETAP payload `{status, token, merchantUserInfo, sessionInfo,
    /// firebaseInfo}`. `sessionInfo` is a **sibling** of `merchantUserInfo` (the SDK's
    /// `OneTap` model). Also accepts `data` (the callback envelope's name for the user info) or
    /// the user fields at the top level (documentation samples).
    struct OneTap: Decodable, Sendable {
        var status: String?
        var token: Secret?
        var merchantUserInfo: UserInfo?
        var data: UserInfo?
        var userId: String?
        var idToken: Secret?
        var identities: [Identity]?
        var sessionInfo: SessionInfo?

        init(merchantUserInfo: UserInfo) { self.merchantUserInfo = merchantUserInfo }

        /// The user info in whichever shape it came.
        var userInfo: UserInfo {
            if let merchantUserInfo { return merchantUserInfo }
            if let data { return data }
            return UserInfo(token: token, userId: userId, idToken: idToken, identities: identities)
        }
    }

    /// `merchantUserInfo` (also the validate-token answer).
    struct UserInfo: Decodable, Sendable {
        var token: Secret?
        var userId: String?
        var idToken: Secret?
        var identities: [Identity]?
        var timestamp: String?
        var status: String?

        init(token: Secret?, userId: String?, idToken: Secret?, identities: [Identity]?) {
            self.token = token
            self.userId = userId
            self.idToken = idToken
            self.identities = identities
        }
    }

    /// One identity of a user.
    struct Identity: Decodable, Sendable {
        var channel: String?
        var identityType: String?
        var identityValue: String?
        var verified: Bool?
        var name: String?
    }

    /// `oneTap.sessionInfo`, and the answer of `POST v4/session/refresh`.
    struct SessionInfo: Decodable, Sendable {
        var sessionId: String?
        var sessionToken: Secret?
        var sessionTokenJWT: Secret?
        var refreshToken: Secret?
    }

    /// An error body `{errorCode, message, description}`; `errorCode` may be a string or a number.
    struct ErrorBody: Decodable {
        var errorCode: JSONValue?
        var message: String?
        var description: String?

        /// The code as a string, a number kept exactly (`1e19` stays `1e+19`): never a trap
        /// (Docs/Security.md, "Numbers from the wire").
        var code: String? { WireNumber.code(errorCode?.doubleValue, text: errorCode?.stringValue) }
    }
}
