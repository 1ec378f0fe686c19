import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthSandboxRuntime

extension DynamicBackend {
    private struct EmailBody: Decodable {
        var email: String?
        var verificationUUID: String?
        var captchaToken: String?
    }

    private struct SMSBody: Decodable {
        var phoneCountryCode: String?
        var phoneNumber: String?
        var isoCountryCode: String?
        var verificationUUID: String?
        var captchaToken: String?
    }

    private struct SignInBody: Decodable {
        var verificationUUID: String
        var verificationToken: String
        var captchaToken: String?
        var sessionPublicKey: String?
    }

    /// The fields of the SDK's request types (`EmailVerificationCreateRequest`, …).
    private static func allowedKeys(_ channel: DeliveryChannel, retry: Bool) -> Set<String> {
        var keys: Set<String> =
            channel == .sms
            ? ["phoneCountryCode", "phoneNumber", "isoCountryCode", "captchaToken"] : ["email", "captchaToken"]
        if retry { keys.insert("verificationUUID") }
        return keys
    }

    /// Whether a captcha-enabled environment refuses this request's token.
    private func refusesCaptcha(_ token: String?) -> Bool {
        state.withLock { $0.captchaRequired } && (token ?? "").trimmingCharacters(in: .whitespaces).isEmpty
    }

    private static func prefix(_ channel: DeliveryChannel) -> String { channel == .sms ? "sms" : "email" }

    /// `create` and `retry` of either channel.
    func create(_ request: HTTPRequest, channel: DeliveryChannel, retry: Bool, context: SandboxContext) throws
        -> HTTPResponse
    {
        if let refusal = try Self.unexpectedKeys(in: request, allowed: Self.allowedKeys(channel, retry: retry)) {
            return refusal
        }
        let destination: String
        var wire: [String: JSONValue]
        let previousUUID: String?
        let captcha: String?
        if channel == .email {
            let body: EmailBody = try request.decodeJSON()
            captcha = body.captchaToken
            guard let raw = body.email, let email = try? EmailAddress(raw) else {
                return try Self.error(422, "Invalid email address", code: "invalid_email_address")
            }
            destination = email.identityKey
            wire = ["email": .string(email.identityKey)]
            previousUUID = body.verificationUUID
        } else {
            let body: SMSBody = try request.decodeJSON()
            captcha = body.captchaToken
            guard let code = body.phoneCountryCode, let national = body.phoneNumber, let iso = body.isoCountryCode,
                !code.isEmpty, !national.isEmpty, code.count <= 255, national.count <= 255,
                let phone = try? PhoneNumber("+" + code.filter(\.isNumber) + national),
                PhoneNumber.callingCode(forRegion: iso) == phone.countryCallingCode, iso.count == 2
            else {
                return try Self.error(422, "Invalid phone number", code: "invalid_phone")
            }
            destination = phone.e164
            wire = [
                "phoneCountryCode": .string(code), "phoneNumber": .string(national),
                "isoCountryCode": .string(iso.uppercased()),
            ]
            previousUUID = body.verificationUUID
        }
        if retry && previousUUID == nil { return try Self.error(400, "verificationUUID is required") }
        if refusesCaptcha(captcha) { return try Self.captchaRefusal() }
        let now = context.time.now
        let uuid = Self.uuid(context)
        let code = context.oneTimeCode(digits: Self.codeLength, for: destination)
        let outcome: Result<Void, CreateFailure> = state.withLock { state in
            if let previousUUID {
                guard let old = state.verifications[previousUUID], old.channel == channel,
                    old.destination == destination
                else {
                    return .failure(.invalidVerification)
                }
            }
            let windowStart = now.addingTimeInterval(-Self.sendWindow.timeInterval)
            var recent = state.sends[destination, default: []].filter { $0 > windowStart }
            if recent.count >= Self.sendLimit {
                let wait = max(
                    1,
                    Int(recent[0].addingTimeInterval(Self.sendWindow.timeInterval).timeIntervalSince(now).rounded(.up)))
                return .failure(.rateLimited(wait))
            }
            recent.append(now)
            state.sends[destination] = recent
            if let previousUUID { state.verifications[previousUUID] = nil }
            state.verifications[uuid] = Verification(
                channel: channel, destination: destination, wire: wire, code: code,
                expiresAt: now.addingTimeInterval(Self.codeLifetime.timeInterval))
            return .success(())
        }
        switch outcome {
        case .failure(.invalidVerification):
            let prefix = Self.prefix(channel)
            return try Self.error(422, "Invalid verification", code: "invalid_\(prefix)_verification")
        case .failure(.rateLimited(let wait)):
            return try Self.error(429, "Too many requests", headers: ["Retry-After": String(wait)])
        case .success:
            break
        }
        context.deliver(code: code, to: destination, channel: channel)
        wire["verificationUUID"] = .string(uuid)
        return try .json(201, JSONValue.object(wire))
    }

    /// Why a create or retry was refused.
    enum CreateFailure: Error {
        case invalidVerification
        case rateLimited(Int)
    }

    private enum SignInOutcome {
        case error(String)
        case success(userKey: String, mfa: Bool)
    }

    /// `signin` of either channel.
    func signIn(_ request: HTTPRequest, channel: DeliveryChannel, context: SandboxContext) throws -> HTTPResponse {
        let allowed: Set<String> = ["verificationUUID", "verificationToken", "captchaToken", "sessionPublicKey"]
        if let refusal = try Self.unexpectedKeys(in: request, allowed: allowed) { return refusal }
        let body: SignInBody = try request.decodeJSON()
        if refusesCaptcha(body.captchaToken) { return try Self.captchaRefusal() }
        guard body.verificationToken.count == Self.codeLength, body.verificationToken.allSatisfy(\.isASCIIDigit) else {
            return try Self.error(400, "verificationToken must be 6 digits")
        }
        let now = context.time.now
        let prefix = Self.prefix(channel)
        let userID = Self.uuid(context)
        let credentialID = Self.uuid(context)
        let outcome: SignInOutcome = state.withLock { state in
            guard var verification = state.verifications[body.verificationUUID], verification.channel == channel,
                !verification.used
            else {
                return .error("invalid_\(prefix)_verification")
            }
            if now >= verification.expiresAt { return .error("\(prefix)_verification_expired") }
            if verification.wrongAttempts >= Self.maximumAttempts {
                return .error("too_many_\(prefix)_verification_attempts")
            }
            guard verification.code == body.verificationToken else {
                verification.wrongAttempts += 1
                state.verifications[body.verificationUUID] = verification
                return .error(
                    verification.wrongAttempts >= Self.maximumAttempts
                        ? "too_many_\(prefix)_verification_attempts" : "wrong_\(prefix)_verification_token")
            }
            verification.used = true
            state.verifications[body.verificationUUID] = verification
            let key = verification.destination
            if state.users[key] == nil {
                state.users[key] = User(
                    id: userID, credentialID: credentialID, destination: key, channel: channel, wire: verification.wire)
            }
            state.users[key]?.signIns += 1
            return .success(userKey: key, mfa: state.mfaSecrets[key] != nil)
        }
        switch outcome {
        case .error(let code):
            return try Self.error(
                422, code.hasPrefix("wrong_") ? "Wrong verification code" : "Verification failed", code: code)
        case .success(let key, let mfa):
            let sessionID = Self.uuid(context)
            state.withLock { $0.sessions[sessionID] = Session(id: sessionID, userKey: key, mfaPending: mfa) }
            return try .json(200, try issue(sessionID: sessionID, context: context))
        }
    }
}
