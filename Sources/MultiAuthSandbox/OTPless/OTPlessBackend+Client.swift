import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthLocking
import MultiAuthSandboxRuntime

extension OTPlessBackend {
    /// The merchant config document (the SDK's `MerchantConfigResponse`). Channel names are a
    /// guess: `INPUT` channels `PHONE` / `EMAIL` with their `communicationMode`, `BUTTON`
    /// channels by OAuth name (`GMAIL`, `WHATSAPP`, …).
    func merchantConfig() -> [String: JSONValue] {
        var mobile: [JSONValue] = merchant.phoneChannels.map { channel in
            .object([
                "name": .string("PHONE"), "type": .string("INPUT"),
                "communicationMode": .string(Self.wireMode(channel)),
                "otpLength": .number(Double(merchant.otpLength)), "logo": .string(Self.logoURL(channel.rawValue)),
            ])
        }
        if merchant.silentAuthEnabled {
            // A guess at how the dashboard lists SNA: one more phone input channel.
            mobile.append(
                .object([
                    "name": .string("PHONE"), "type": .string("INPUT"), "communicationMode": .string("SILENT_AUTH"),
                    "otpLength": .number(Double(merchant.otpLength)), "logo": .string(Self.logoURL("sna")),
                ]))
        }
        var email: [JSONValue] =
            merchant.emailEnabled
            ? [
                .object([
                    "name": .string("EMAIL"), "type": .string("INPUT"), "communicationMode": .string("EMAIL"),
                    "otpLength": .number(Double(merchant.otpLength)), "logo": .string(Self.logoURL("email")),
                ])
            ] : []
        for name in merchant.oauthChannels {
            let wire: String
            switch name.rawValue {
            case "google": wire = "GMAIL"
            case "apple": wire = "APPLE_EMAIL"
            case "truecaller": wire = "TRUE_CALLER"
            default: wire = name.rawValue.uppercased()
            }
            let button = JSONValue.object([
                "name": .string(wire), "type": .string("BUTTON"), "logo": .string(Self.logoURL(name.rawValue)),
            ])
            if ["WHATSAPP", "TRUE_CALLER"].contains(wire) { mobile.append(button) } else { email.append(button) }
        }
        return [
            "authType": .string(merchant.phoneAuthType.rawValue),
            "isMFAEnabled": .bool(merchant.mfaEnabled),
            "channelConfig": .array([
                .object([
                    "identifierType": .string("MOBILE"), "mandatory": .bool(false), "verified": .bool(false),
                    "channel": .array(mobile),
                ]),
                .object([
                    "identifierType": .string("EMAIL"), "mandatory": .bool(false), "verified": .bool(false),
                    "channel": .array(email),
                ]),
            ]),
            "merchant": .object([
                "loginURI": .string("otpless.\(merchant.appID.lowercased())://otpless"),
                "otplessId": .string(merchant.appID),
                "config": .object([
                    "isSilentAuthEnabled": .bool(merchant.silentAuthEnabled), "isWebauthnEnabled": .bool(false),
                    "isWebauthnRegistered": .bool(false), "isSecureSdkEnabled": .bool(false),
                    "isPopUpDisabled": .bool(true),
                    "lang": .string("en"),
                ]),
            ]),
            "userDetails": .object(["mobile": .array([]), "email": .array([])]),
            "uiConfig": .object(["general": .object(["brandName": .string("MultiAuth Sandbox")])]),
        ]
    }

    /// A placeholder logo URL on the reserved `.test` domain.
    static func logoURL(_ name: String) -> String { "https://cdn.otpless.test/logo/\(name).png" }

    /// `POST /v3/lp/user/transaction/intent/{state}` (the SDK's `PostIntentRequestBody`): for a
    /// phone, `mobile` must be the country code digits followed by `value` (the national
    /// number), else `400 7102`.
    func intent(_ request: HTTPRequest, environment: Environment) -> HTTPResponse {
        guard let body = Self.body(request) else {
            return Self.error(400, "7101", "Invalid Request", "body is not JSON")
        }
        let text = { (key: String) in body[key]?.stringValue ?? "" }
        guard text("appId") == merchant.appID else { return Self.error(401, "401", "Unauthorized", "unknown appId") }
        if merchant.mfaEnabled { return Self.error(400, "4001", "Invalid Request", "MFA is not supported headless") }
        let otpLengthText = text("otpLength")
        if !otpLengthText.isEmpty, otpLengthText != "4", otpLengthText != "6" {
            return Self.error(400, "7116", "Invalid Request", "OTP length must be 4 or 6")
        }
        do throws(IntentRefusal) {
            let expiry = try Self.intentExpiry(text("expiry"))
            let now = environment.now
            let type = text("type")
            let identifierType = text("identifierType")
            let token = environment.hex(16)
            let asId = environment.hex(12)
            let expiresAt = now.addingTimeInterval(TimeInterval(expiry))
            if type == "BUTTON" {
                return try oauthIntent(
                    channel: text("channel"), token: token, asId: asId, identifierType: identifierType, now: now,
                    expiresAt: expiresAt, environment: environment)
            }
            let (destination, available, authType) = try intentDestination(identifierType, text)
            try checkResendCooldown(previous: text("asId"), now: now)
            let uid = userID(for: destination, environment: environment)
            // Silent network auth: only when the client asked for it (it has a cellular path).
            if identifierType == "MOBILE", merchant.silentAuthEnabled, body["silentAuthEnabled"]?.boolValue == true {
                return silentAuthIntent(
                    token: token, asId: asId, destination: destination, uid: uid, now: now, expiresAt: expiresAt)
            }
            // An SNA-only merchant cannot serve a client without a cellular path (a guess: 7160,
            // "SNA could not be initiated").
            if identifierType == "MOBILE", merchant.silentAuthEnabled, merchant.phoneChannels.isEmpty {
                return Self.error(400, "7160", "Invalid Request", "silent network auth could not be initiated")
            }
            let forcedMode = text("deliveryMethod")
            let order = try Self.channelOrder(
                forcedMode: forcedMode, available: available, identifierType: identifierType,
                clientMetaData: body["clientMetaData"]?.stringValue)
            let length = otpLengthText.isEmpty ? merchant.otpLength : Int(otpLengthText)!
            var transaction = OTPlessTransaction(
                token: token, asId: asId, identifierType: identifierType, destination: destination,
                authType: authType.rawValue,
                remainingChannels: order, primaryChannel: order.first, currentChannel: nil, delivered: false,
                forced: !forcedMode.isEmpty, otp: authType == .magicLink ? nil : environment.code(length, destination),
                linkCode: authType == .otp ? nil : environment.hex(16),
                expiresAt: expiresAt,
                sentAt: now)
            deliverNext(&transaction, environment: environment)
            guard transaction.delivered else {
                return Self.error(
                    400, identifierType == "MOBILE" ? "7103" : "7105", "Invalid Request",
                    "no channel could deliver to this recipient")
            }
            store(transaction)
            return Self.json(
                200,
                [
                    "quantumLeap": quantumLeap(
                        token: token, asId: asId, channel: authType.rawValue,
                        mode: transaction.primaryChannel.map(Self.wireMode),
                        intent: nil, timer: (3, 60), uid: uid)
                ])
        } catch {
            return error.response
        }
    }

    // MARK: - Steps of intent(_:environment:)

    /// An error answer of one of ``intent(_:environment:)``'s steps.
    struct IntentRefusal: Error {
        /// The response to send.
        let response: HTTPResponse
        /// ``OTPlessBackend/error(_:_:_:_:headers:)`` as a refusal.
        init(_ status: Int, _ code: String, _ title: String, _ message: String, headers: [String: String] = [:]) {
            response = OTPlessBackend.error(status, code, title, message, headers: headers)
        }
    }

    /// The `expiry` field in seconds (30...900), or the default.
    private static func intentExpiry(_ expiryText: String) throws(IntentRefusal) -> Int {
        guard !expiryText.isEmpty else { return defaultExpiry }
        guard let seconds = Int(expiryText), (30...900).contains(seconds) else {
            throw IntentRefusal(400, "7113", "Invalid Request", "invalid expiry")
        }
        return seconds
    }

    /// A `BUTTON` intent: an OAuth channel, answered with its sign-in link at once.
    private func oauthIntent(
        channel wire: String, token: String, asId: String, identifierType: String, now: Date, expiresAt: Date,
        environment: Environment
    ) throws(IntentRefusal) -> HTTPResponse {
        let name = OAuthProviderName(rawValue: Self.oauthName(wire))
        guard merchant.oauthChannels.contains(name) else {
            throw IntentRefusal(400, "4003", "Invalid Request", "channel not enabled")
        }
        let linkCode = environment.hex(16)
        let link = URL(string: "otpless.\(merchant.appID.lowercased())://otpless?code=\(linkCode)")!
        _ = environment.deliver(nil, link, "oauth:\(name.rawValue)", DeliveryChannel(rawValue: name.rawValue))
        store(
            OTPlessTransaction(
                token: token, asId: asId, identifierType: identifierType, destination: "oauth:\(name.rawValue)",
                authType: wire,
                remainingChannels: [], primaryChannel: nil, currentChannel: nil, delivered: true, forced: false,
                otp: nil,
                linkCode: linkCode, expiresAt: expiresAt, sentAt: now))
        return Self.json(
            200,
            [
                "quantumLeap": quantumLeap(
                    token: token, asId: asId, channel: wire, mode: nil,
                    intent: "https://\(Self.issuerHost)/sandbox/oauth/\(name.rawValue)?request=\(asId)",
                    timer: (3, 60), uid: "")
            ])
    }

    /// A silent network auth intent: the transaction waits for the carrier check at the
    /// returned URL.
    private func silentAuthIntent(
        token: String, asId: String, destination: String, uid: String, now: Date, expiresAt: Date
    ) -> HTTPResponse {
        store(
            OTPlessTransaction(
                token: token, asId: asId, identifierType: "MOBILE", destination: destination,
                authType: "SILENT_AUTH",
                remainingChannels: merchant.phoneChannels, primaryChannel: nil, currentChannel: nil,
                delivered: false,
                forced: false, otp: nil, linkCode: nil, expiresAt: expiresAt,
                sentAt: now))
        return Self.json(
            200,
            [
                "quantumLeap": quantumLeap(
                    token: token, asId: asId, channel: "SILENT_AUTH", mode: nil,
                    intent: "http://\(Self.carrierHost)\(Self.carrierPath)\(token)", timer: (200, 7000), uid: uid)
            ])
    }

    /// The destination (`+` and digits, or a lower-cased e-mail), the channels the merchant
    /// enabled for it and its auth type.
    private func intentDestination(
        _ identifierType: String, _ text: (String) -> String
    ) throws(IntentRefusal) -> (String, [DeliveryChannel], OTPlessMerchant.AuthType) {
        if identifierType == "MOBILE" {
            let digits = text("mobile")
            let countryCode = text("selectedCountryCode").filter(\.isASCIIDigit)
            guard digits.count >= 8, digits.count <= 15, digits.allSatisfy(\.isASCIIDigit), !countryCode.isEmpty,
                digits == countryCode + text("value")
            else {
                throw IntentRefusal(400, "7102", "Invalid Request", "invalid phone number")
            }
            return ("+" + digits, merchant.phoneChannels, merchant.phoneAuthType)
        } else if identifierType == "EMAIL" {
            let email = text("email")
            guard email.contains("@"), !email.hasPrefix("@"), !email.hasSuffix("@") else {
                throw IntentRefusal(400, "7104", "Invalid Request", "invalid email")
            }
            return (email.lowercased(), merchant.emailEnabled ? [.email] : [], merchant.emailAuthType)
        } else {
            throw IntentRefusal(400, "7101", "Invalid Request", "missing identifierType")
        }
    }

    /// Resend cooldown for a repeated transaction (a guess): `429` while it lasts.
    private func checkResendCooldown(previous: String, now: Date) throws(IntentRefusal) {
        if !previous.isEmpty, let earlier = transaction(asId: previous),
            now.timeIntervalSince(earlier.sentAt) < Self.resendCooldown
        {
            let wait = Int((Self.resendCooldown - now.timeIntervalSince(earlier.sentAt)).rounded(.up))
            throw IntentRefusal(
                429, "7022", "Too Many Requests", "resend too early", headers: ["Retry-After": String(max(1, wait))])
        }
    }

    /// Channel order: forced, the dashboard order, or (this sandbox only) the order a sandbox
    /// configuration sends in `clientMetaData.channels`.
    private static func channelOrder(
        forcedMode: String, available: [DeliveryChannel], identifierType: String, clientMetaData: String?
    ) throws(IntentRefusal) -> [DeliveryChannel] {
        var order: [DeliveryChannel]
        if !forcedMode.isEmpty {
            let forced = channel(forWire: forcedMode)
            guard available.contains(forced) else {
                throw IntentRefusal(
                    400, identifierType == "MOBILE" ? "7103" : "7105", "Invalid Request", "delivery channel not enabled"
                )
            }
            order = [forced]
        } else {
            order = available
            if let meta = clientMetaData,
                case .object(let members)? = try? JSONDecoder().decode(JSONValue.self, from: Data(meta.utf8)),
                let preferred = members["channels"]?.arrayValue?.compactMap(\.stringValue).map(channel(forWire:))
            {
                let chosen = preferred.filter(available.contains)
                if !chosen.isEmpty { order = chosen }
            }
        }
        guard !order.isEmpty else { throw IntentRefusal(400, "4003", "Invalid Request", "channel not enabled") }
        return order
    }

    /// Delivers on the next channel of the order, falling back at once past failing channels
    /// (unless the channel was forced: then one try only).
    func deliverNext(_ transaction: inout OTPlessTransaction, environment: Environment) {
        transaction.delivered = false
        while !transaction.remainingChannels.isEmpty {
            let channel = transaction.remainingChannels.removeFirst()
            let link = transaction.linkCode.map {
                URL(string: "otpless.\(merchant.appID.lowercased())://otpless?code=\($0)")!
            }
            transaction.currentChannel = channel
            transaction.sentAt = environment.now
            if environment.deliver(transaction.otp, link, transaction.destination, channel) {
                transaction.delivered = true
                return
            }
            if transaction.forced { return }
        }
    }

    /// A `quantumLeap` object (the SDK's `QuantumLeap`: `asId`, `channel`, `channelAuthToken`,
    /// `channels`, `pollingRequired`, `state`, `status` and integer `timerSettings` always
    /// present).
    func quantumLeap(
        token: String, asId: String, channel: String, mode: String?, intent: String?, timer: (Int, Int), uid: String
    ) -> JSONValue {
        var leap: [String: JSONValue] = [
            "asId": .string(asId), "channel": .string(channel), "channelAuthToken": .string(token),
            "channels": .array(mode.map { [.string($0)] } ?? []), "pollingRequired": .bool(true),
            "state": .string("PENDING"), "status": .string("PENDING"),
            "timerSettings": .object(["interval": .number(Double(timer.0)), "timeout": .number(Double(timer.1))]),
        ]
        if !uid.isEmpty { leap["uid"] = .string(uid) }
        if let mode { leap["communicationMode"] = .string(mode) }
        if let intent { leap["intent"] = .string(intent) }
        return .object(leap)
    }

    /// The wire name of a delivery channel (`communicationMode`, `deliveryMethod`): upper
    /// case, voice as `VOICE_CALL`.
    static func wireMode(_ channel: DeliveryChannel) -> String {
        channel == .voice ? "VOICE_CALL" : channel.rawValue.uppercased()
    }

    /// The delivery channel of a wire name (`VOICE_CALL` → voice).
    static func channel(forWire name: String) -> DeliveryChannel {
        name.uppercased() == "VOICE_CALL" ? .voice : DeliveryChannel(rawValue: name)
    }

    static func oauthName(_ wire: String) -> String {
        switch wire.uppercased() {
        case "GMAIL": "google"
        case "APPLE_EMAIL": "apple"
        case "TRUE_CALLER": "truecaller"
        default: wire.lowercased()
        }
    }

    // MARK: Tables

    func store(_ transaction: OTPlessTransaction) {
        state.withLock { state in
            state.transactions[transaction.token] = transaction
            state.asIds[transaction.asId] = transaction.token
            if let code = transaction.linkCode { state.linkCodes[code] = transaction.token }
        }
    }

    func transaction(asId: String) -> OTPlessTransaction? {
        state.withLock { state in state.asIds[asId].flatMap { state.transactions[$0] } }
    }

    func transaction(token: String) -> OTPlessTransaction? {
        state.withLock { $0.transactions[token] }
    }

    func mutate<T>(token: String, _ change: (inout OTPlessTransaction) -> T) -> T? {
        state.withLock { state in
            guard state.transactions[token] != nil else { return nil }
            return change(&state.transactions[token]!)
        }
    }
}
