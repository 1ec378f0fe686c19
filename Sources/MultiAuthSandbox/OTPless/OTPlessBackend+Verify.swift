import Foundation
import MultiAuth
import MultiAuthCrypto

extension OTPlessBackend {
    /// `POST /v3/lp/user/transaction/otp/{state}` (providers.md §1.2 #4).
    func verifyOTP(_ request: HTTPRequest, environment: Environment) -> HTTPResponse {
        guard let body = Self.body(request), let token = body["token"]?.stringValue else {
            return Self.error(400, "7101", "Invalid Request", "missing token")
        }
        let otp = body["otp"]?.stringValue ?? ""
        if otp.isEmpty { return Self.error(400, "7112", "Invalid Request", "empty OTP") }
        let now = environment.now
        enum Outcome { case unknown, used, expired, wrong, burned, ok(OTPlessTransaction) }
        let outcome: Outcome = mutate(token: token) { transaction in
            if transaction.consumed { return .used }
            if transaction.wrongAttempts >= Self.maximumWrongAttempts { return transaction.otp == otp ? .expired : .burned }
            if now >= transaction.expiresAt { return .expired }
            guard let expected = transaction.otp, expected == otp else {
                transaction.wrongAttempts += 1
                return .wrong
            }
            transaction.consumed = true
            transaction.status = "SUCCESS"
            return .ok(transaction)
        } ?? .unknown
        switch outcome {
        case .unknown: return Self.error(400, "7101", "Invalid Request", "unknown transaction")
        case .used: return Self.error(400, "7115", "Invalid Request", "OTP already verified")
        case .expired: return Self.error(400, "7303", "Invalid Request", "OTP expired")
        case .wrong, .burned: return Self.error(400, "7118", "Invalid Request", "Incorrect OTP!")
        case .ok(let transaction): return success(transaction, environment: environment)
        }
    }

    /// `POST /v3/lp/user/transaction/code/{state}` (providers.md §1.2 #5, §1.9).
    func exchangeCode(_ request: HTTPRequest, environment: Environment) -> HTTPResponse {
        guard let body = Self.body(request), let code = body["code"]?.stringValue, !code.isEmpty else {
            return Self.error(400, "7101", "Invalid Request", "missing code")
        }
        lock.lock()
        let token = linkCodes[code]
        lock.unlock()
        // [ASSUMPTION] an unknown code is "request values invalid" (4000); providers.md documents
        // only the expired answer.
        guard let token else { return Self.error(400, "4000", "Invalid Request", "unknown code") }
        // The code must belong to the transaction the client is completing (the `token` it sends
        // with it): a link from another sign-in, or from a flow the app abandoned, never signs
        // in. [ASSUMPTION] the real service binds codes to transactions the same way; the
        // answer is "request values invalid" (4000).
        if let claimed = body["token"]?.stringValue, claimed != token {
            return Self.error(400, "4000", "Invalid Request", "the code belongs to another transaction")
        }
        let now = environment.now
        enum Outcome { case used, expired, ok(OTPlessTransaction) }
        let outcome: Outcome? = mutate(token: token) { transaction in
            if transaction.consumed { return .used }
            if now >= transaction.expiresAt { return .expired }
            transaction.consumed = true
            transaction.status = "SUCCESS"
            return .ok(transaction)
        }
        switch outcome {
        case .used?: return Self.error(400, "7115", "Invalid Request", "code already used")
        case .ok(let transaction)?: return success(transaction, environment: environment)
        default: return Self.error(400, "7303", "Expired", "Token is expired")
        }
    }

    /// `GET /v3/lp/user/transaction/status/{state}` (providers.md §1.2 #6, §1.8): the SmartAuth
    /// timer falls back to the next channel after ``OTPlessMerchant/fallbackDelay``.
    func status(_ request: HTTPRequest, environment: Environment) -> HTTPResponse {
        let token = Self.query(request)["token"] ?? ""
        let now = environment.now
        let delay = merchant.fallbackDelay.timeInterval
        guard let transaction = mutate(token: token, { transaction -> OTPlessTransaction in
            if transaction.status == "PENDING", !transaction.forced, !transaction.remainingChannels.isEmpty,
                now.timeIntervalSince(transaction.sentAt) >= delay
            {
                deliverNext(&transaction, environment: environment)
            }
            if transaction.status == "PENDING", now >= transaction.expiresAt { transaction.status = "FAILED" }
            return transaction
        }) else {
            return Self.error(400, "7101", "Invalid Request", "unknown transaction")
        }
        return Self.json(200, ["authDetail": authDetail(transaction)])
    }

    func authDetail(_ transaction: OTPlessTransaction) -> JSONValue {
        var detail: [String: JSONValue] = [
            "asId": .string(transaction.asId), "channel": .string(transaction.authType),
            "communicationDelivered": .bool(transaction.delivered), "isCrossDevice": .bool(false),
            "status": .string(transaction.status),
        ]
        if let mode = transaction.currentChannel { detail["communicationMode"] = .string(mode.rawValue.uppercased()) }
        return .object(detail)
    }

    /// The carrier hit of SNA (providers.md §1.7 step 2): `{status: "ok"}` or an error.
    func carrier(path: String) -> HTTPResponse {
        let token = String(path.split(separator: "/").last ?? "")
        lock.lock()
        let failing = transactions[token].map { snaFailing.contains($0.destination) } ?? true
        if !failing { transactions[token]?.snaVerified = true } else { transactions[token]?.snaFailed = true }
        lock.unlock()
        if failing {
            return Self.json(200, ["status": .string("error"), "error": .string("carrier_ip_mismatch"), "error_description": .string("7122")])
        }
        return Self.json(200, ["status": .string("ok")])
    }

    /// `GET /v3/lp/user/transaction/silent-auth-status/{state}` (providers.md §1.7 steps 3–5).
    func silentAuthStatus(_ request: HTTPRequest, environment: Environment) -> HTTPResponse {
        let query = Self.query(request)
        let token = query["token"] ?? ""
        guard let transaction = transaction(token: token) else {
            return Self.error(400, "7101", "Invalid Request", "unknown transaction")
        }
        if transaction.snaVerified, !transaction.consumed {
            _ = mutate(token: token) { $0.consumed = true; $0.status = "SUCCESS" }
            return success(transaction, environment: environment)
        }
        guard query["lapseMeta"] != nil else {
            return Self.json(200, ["authDetail": authDetail(transaction)])
        }
        // SNA failed: SmartAuth falls back to the OTP channels, or ends.
        guard !transaction.remainingChannels.isEmpty else {
            _ = mutate(token: token) { $0.status = "FAILED" }
            var failed = transaction
            failed.status = "FAILED"
            return Self.json(200, ["authDetail": authDetail(failed)])
        }
        let length = merchant.otpLength
        let outcome: OTPlessTransaction? = mutate(token: token) { transaction in
            transaction.authType = "OTP"
            transaction.otp = environment.digits(length)
            transaction.primaryChannel = transaction.remainingChannels.first
            deliverNext(&transaction, environment: environment)
            if !transaction.delivered { transaction.status = "FAILED" }
            return transaction
        }
        guard let fallback = outcome, fallback.delivered else {
            return Self.error(400, "9106", "Transaction timeout", "silent auth and every fallback failed")
        }
        var failed = fallback
        failed.status = "FAILED"
        let leap: [String: JSONValue] = [
            "asId": .string(fallback.asId), "channel": .string("OTP"), "channelAuthToken": .string(fallback.token),
            "communicationMode": .string(fallback.currentChannel?.rawValue.uppercased() ?? "SMS"),
            "pollingRequired": .bool(true), "status": .string("PENDING"),
            "timerSettings": .object(["interval": .number(3), "timeout": .number(60)]),
        ]
        return Self.json(200, ["authDetail": authDetail(failed), "quantumLeap": .object(leap)])
    }

    /// The `SUCCESS` status with the `ONETAP` payload: app token, RS256 id token, session info.
    func success(_ transaction: OTPlessTransaction, environment: Environment) -> HTTPResponse {
        let now = environment.now
        lock.lock()
        let userID = userIDs[transaction.destination] ?? "OT_\(environment.hex(8))"
        userIDs[transaction.destination] = userID
        lock.unlock()
        let identityType: String
        let identityValue: String
        if transaction.destination.hasPrefix("oauth:") {
            identityType = "EMAIL"
            identityValue = "\(transaction.destination.dropFirst(6))-user@example.com"
        } else if transaction.identifierType == "MOBILE" {
            identityType = "MOBILE"
            identityValue = String(transaction.destination.dropFirst())
        } else {
            identityType = "EMAIL"
            identityValue = transaction.destination
        }
        let channel = transaction.currentChannel?.rawValue.uppercased() ?? transaction.authType
        let appToken = environment.hex(20)
        let sessionToken = environment.hex(16)
        lock.lock()
        issuedTokens[appToken] = OTPlessIssuedToken(
            userID: userID, identityType: identityType, identityValue: identityValue, channel: channel, issuedAt: now)
        sessionTokens.insert(sessionToken)
        lock.unlock()
        let seconds = now.timeIntervalSince1970.rounded(.down)
        var idClaims: [String: JSONValue] = [
            "iss": .string(Self.issuer), "sub": .string(userID), "aud": .string(merchant.clientID),
            "iat": .number(seconds), "exp": .number(seconds + 3600), "auth_time": .number(seconds),
        ]
        if identityType == "MOBILE" { idClaims["phone_number"] = .string("+" + identityValue) } else { idClaims["email"] = .string(identityValue) }
        let idToken = (try? sign(claims: idClaims)) ?? ""
        let sessionJWT = (try? sign(claims: [
            "aud": .string(merchant.appID), "sub": .string(userID), "iat": .number(seconds), "exp": .number(seconds + 86_400),
        ])) ?? ""
        let identity: JSONValue = .object([
            "channel": .string(channel), "identityType": .string(identityType), "identityValue": .string(identityValue),
            "methods": .array([.string(transaction.authType)]), "verified": .bool(true),
            "verifiedAt": .string(ISO8601DateFormatter().string(from: now)),
        ])
        let info: JSONValue = .object([
            "token": .string(appToken), "userId": .string(userID), "idToken": .string(idToken),
            "timestamp": .string(ISO8601DateFormatter().string(from: now)), "status": .string("SUCCESS"),
            "identities": .array([identity]),
            "network": .object(["ip": .string("203.0.113.7"), "timezone": .string("UTC")]),
            "deviceInfo": .object(["platform": .string("iOS")]),
            "sessionInfo": .object([
                "sessionId": .string("ses_" + environment.hex(6)), "sessionToken": .string(sessionToken),
                "sessionTokenJWT": .string(sessionJWT), "refreshToken": .string(environment.hex(16)),
            ]),
        ])
        var detail = transaction
        detail.status = "SUCCESS"
        return Self.json(200, [
            "authDetail": authDetail(detail),
            "oneTap": .object(["status": .string("SUCCESS"), "token": .string(appToken), "merchantUserInfo": info]),
            "otpVerificationDetail": .object(["isOTPVerified": .bool(true)]),
        ])
    }

    /// `POST /auth/v1/validate/token` (providers.md §1.11).
    func validateToken(_ request: HTTPRequest, environment: Environment) -> HTTPResponse {
        guard request.header("clientId") == merchant.clientID, request.header("clientSecret") == merchant.clientSecret else {
            return Self.error(401, "7002", "Unauthorized", "invalid clientId or clientSecret")
        }
        guard let body = Self.body(request), let token = body["token"]?.stringValue else {
            return Self.error(400, "7101", "Invalid Request", "missing token")
        }
        lock.lock()
        let issued = issuedTokens[token]
        lock.unlock()
        guard let issued else {
            return Self.json(401, ["message": .string("Unauthorized"), "description": .string("Request error: invalid token")])
        }
        return Self.json(200, [
            "token": .string(token), "status": .string("SUCCESS"), "userId": .string(issued.userID),
            "timestamp": .string(ISO8601DateFormatter().string(from: issued.issuedAt)),
            "identities": .array([.object([
                "identityType": .string(issued.identityType), "identityValue": .string(issued.identityValue),
                "channel": .string(issued.channel), "methods": .array([]), "verified": .bool(true),
            ])]),
            "network": .object(["ip": .string("203.0.113.7")]), "deviceInfo": .object([:]),
        ])
    }

    /// `DELETE https://api.otpless.com/v4/session/{sessionToken}` (providers.md §1.2 #10).
    func session(_ request: HTTPRequest, path: String) -> HTTPResponse {
        let parts = path.split(separator: "/").map(String.init)
        guard request.method == .delete, parts.count == 3, parts[0] == "v4", parts[1] == "session" else {
            return Self.error(404, "404", "Not Found", "no such endpoint")
        }
        lock.lock()
        let known = sessionTokens.remove(parts[2]) != nil
        lock.unlock()
        return known ? Self.json(200, ["message": .string("logged out"), "success": .bool(true)])
            : Self.error(404, "404", "Not Found", "unknown session")
    }

    /// The OIDC discovery document and the JWKS (providers.md §1.11).
    func issuerDocument(path: String) -> HTTPResponse {
        switch path {
        case "/.well-known/openid-configuration":
            return Self.json(200, [
                "issuer": .string(Self.issuer), "jwks_uri": .string("https://\(Self.issuerHost)\(Self.jwksPath)"),
                "token_endpoint": .string("https://\(Self.issuerHost)/oauth/token"),
            ])
        case Self.jwksPath:
            guard let set = try? jwks(), let data = try? set.jsonData() else {
                return Self.error(500, "500", "Server Error", "no key")
            }
            return HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: data)
        default:
            return Self.error(404, "404", "Not Found", "no such document")
        }
    }
}
