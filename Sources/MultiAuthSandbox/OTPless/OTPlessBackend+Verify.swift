import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthLocking
import MultiAuthSandboxRuntime

extension OTPlessBackend {
    /// `POST /v3/lp/user/transaction/otp/{state}`: the typed code.
    func verifyOTP(_ request: HTTPRequest, environment: Environment) -> HTTPResponse {
        guard let body = Self.body(request), let token = body["token"]?.stringValue else {
            return Self.error(400, "7101", "Invalid Request", "missing token")
        }
        let otp = body["otp"]?.stringValue ?? ""
        if otp.isEmpty { return Self.error(400, "7112", "Invalid Request", "empty OTP") }
        let now = environment.now
        enum Outcome {
            case unknown, used, expired, wrong, burned
            case ok(OTPlessTransaction)
        }
        let outcome: Outcome =
            mutate(token: token) { transaction in
                if transaction.consumed { return .used }
                if transaction.wrongAttempts >= Self.maximumWrongAttempts {
                    return transaction.otp == otp ? .expired : .burned
                }
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
        case .ok(let transaction):
            return success(transaction, state: Self.stateSegment(request), environment: environment)
        }
    }

    /// `POST /v3/lp/user/transaction/code/{state}`: a deep-link `code`.
    func exchangeCode(_ request: HTTPRequest, environment: Environment) -> HTTPResponse {
        guard let body = Self.body(request), let code = body["code"]?.stringValue, !code.isEmpty else {
            return Self.error(400, "7101", "Invalid Request", "missing code")
        }
        let token = state.withLock { $0.linkCodes[code] }
        // A guess: an unknown code is "request values invalid" (4000); only the expired answer
        // is documented.
        guard let token else { return Self.error(400, "4000", "Invalid Request", "unknown code") }
        // The code must belong to the transaction the client is completing (the `token` it sends
        // with it): a link from another sign-in, or from a flow the app abandoned, never signs
        // in. A guess that the real service binds codes to transactions the same way; the
        // answer is "request values invalid" (4000).
        if let claimed = body["token"]?.stringValue, claimed != token {
            return Self.error(400, "4000", "Invalid Request", "the code belongs to another transaction")
        }
        let now = environment.now
        enum Outcome {
            case used, expired
            case ok(OTPlessTransaction)
        }
        let outcome: Outcome? = mutate(token: token) { transaction in
            if transaction.consumed { return .used }
            if now >= transaction.expiresAt { return .expired }
            transaction.consumed = true
            transaction.status = "SUCCESS"
            return .ok(transaction)
        }
        switch outcome {
        case .used?: return Self.error(400, "7115", "Invalid Request", "code already used")
        case .ok(let transaction)?:
            return success(transaction, state: Self.stateSegment(request), environment: environment)
        default: return Self.error(400, "7303", "Expired", "Token is expired")
        }
    }

    /// `GET /v3/lp/user/transaction/status/{state}`: the SmartAuth timer falls back to the next
    /// channel after ``OTPlessMerchant/fallbackDelay``.
    func status(_ request: HTTPRequest, environment: Environment) -> HTTPResponse {
        let token = Self.query(request)["token"] ?? ""
        let now = environment.now
        let delay = merchant.fallbackDelay.timeInterval
        guard
            let transaction = mutate(
                token: token,
                { transaction -> OTPlessTransaction in
                    if transaction.status == "PENDING", !transaction.forced, !transaction.remainingChannels.isEmpty,
                        now.timeIntervalSince(transaction.sentAt) >= delay
                    {
                        deliverNext(&transaction, environment: environment)
                    }
                    if transaction.status == "PENDING", now >= transaction.expiresAt { transaction.status = "FAILED" }
                    return transaction
                })
        else {
            return Self.error(400, "7101", "Invalid Request", "unknown transaction")
        }
        return Self.json(200, ["authDetail": authDetail(transaction)])
    }

    /// `authDetail` (the SDK's `AuthDetail`: `communicationDelivered` and `status` always present;
    /// `user` once the server knows the user).
    func authDetail(_ transaction: OTPlessTransaction) -> JSONValue {
        var detail: [String: JSONValue] = [
            "asId": .string(transaction.asId), "channel": .string(transaction.authType),
            "communicationDelivered": .bool(transaction.delivered), "isCrossDevice": .bool(false),
            "status": .string(transaction.status), "token": .string(transaction.token),
            "uiId": .string("ui-" + transaction.asId),
            "webauthnRegistered": .bool(false),
            "errorDetails": .string(transaction.status == "FAILED" ? "verification failed" : ""),
        ]
        if let mode = transaction.currentChannel { detail["communicationMode"] = .string(Self.wireMode(mode)) }
        let known = state.withLock { $0.userIDs[transaction.destination] }
        if let known {
            var user: [String: JSONValue] = ["uid": .string(known), "name": .string("Sandbox User")]
            if transaction.identifierType == "MOBILE" {
                user["mobile"] = .string(String(transaction.destination.dropFirst()))
            } else if !transaction.destination.hasPrefix("oauth:") {
                user["email"] = .string(transaction.destination)
            }
            detail["user"] = .object(user)
        }
        return .object(detail)
    }

    /// The emulated carrier of SNA: `{status: "ok"}`, or `{status, error, error_description}`
    /// when SNA is set to fail for the number or the request did not arrive on the cellular
    /// bearer (an operator recognises only its own data connection).
    func carrier(_ request: HTTPRequest, path: String) -> HTTPResponse {
        guard request.method == .get else { return Self.error(405, "405", "Method Not Allowed", "GET only") }
        let token = String(path.dropFirst(Self.carrierPath.count))
        let cellular = Sandbox.arrivedOverCellular(request)
        let failing = state.withLock { state in
            let failing =
                !cellular || (state.transactions[token].map { state.snaFailing.contains($0.destination) } ?? true)
            if !failing {
                state.transactions[token]?.snaVerified = true
            } else {
                state.transactions[token]?.snaFailed = true
            }
            return failing
        }
        if !cellular {
            return Self.json(
                200,
                [
                    "status": .string("error"), "error": .string("not_cellular"),
                    "error_description": .string("the request did not arrive on the mobile network"),
                ])
        }
        if failing {
            return Self.json(
                200,
                [
                    "status": .string("error"), "error": .string("carrier_ip_mismatch"),
                    "error_description": .string("7122"),
                ])
        }
        return Self.json(200, ["status": .string("ok")])
    }

    /// `GET /v3/lp/user/transaction/silent-auth-status/{state}`: `SUCCESS` after a verified
    /// carrier hit; with `lapseMeta` (the SDK's report of a failed carrier hit or a polling
    /// timeout) the SmartAuth fallback to the OTP channels, or `FAILED` without one.
    func silentAuthStatus(_ request: HTTPRequest, environment: Environment) -> HTTPResponse {
        let query = Self.query(request)
        let token = query["token"] ?? ""
        guard let transaction = transaction(token: token) else {
            return Self.error(400, "7101", "Invalid Request", "unknown transaction")
        }
        if transaction.snaVerified, !transaction.consumed {
            _ = mutate(token: token) {
                $0.consumed = true
                $0.status = "SUCCESS"
            }
            return success(transaction, state: Self.stateSegment(request), environment: environment)
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
            transaction.otp = environment.code(length, transaction.destination)
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
        let leap = quantumLeap(
            token: fallback.token, asId: fallback.asId, channel: "OTP",
            mode: fallback.currentChannel.map(Self.wireMode) ?? "SMS", intent: nil, timer: (3, 60),
            uid: userID(for: fallback.destination, environment: environment))
        return Self.json(200, ["authDetail": authDetail(failed), "quantumLeap": leap])
    }

    /// The user id of `destination`, made on first use.
    func userID(for destination: String, environment: Environment) -> String {
        state.withLock { state in
            if let known = state.userIDs[destination] { return known }
            let made = "OT_\(environment.hex(8))"
            state.userIDs[destination] = made
            return made
        }
    }

    /// The `SUCCESS` status with the `ONETAP` payload (the SDK's `OneTap`): `status`, `token`,
    /// `merchantUserInfo` (app token, user id, RS256 id token, identities) and, as its
    /// **sibling**, `sessionInfo` (session token, refresh token, session JWT).
    func success(_ transaction: OTPlessTransaction, state: String, environment: Environment) -> HTTPResponse {
        let now = environment.now
        let userID = userID(for: transaction.destination, environment: environment)
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
        let channel = transaction.currentChannel.map(Self.wireMode) ?? transaction.authType
        let appToken = environment.hex(20)
        let sessionToken = environment.hex(16)
        let refreshToken = environment.hex(16)
        self.state.withLock { tables in
            tables.issuedTokens[appToken] = OTPlessIssuedToken(
                userID: userID, identityType: identityType, identityValue: identityValue, channel: channel,
                issuedAt: now)
            tables.sessions[sessionToken] = OTPlessSessionRecord(
                userID: userID, sessionToken: sessionToken, refreshToken: refreshToken, state: state)
        }
        let seconds = now.timeIntervalSince1970.rounded(.down)
        var idClaims: [String: JSONValue] = [
            "iss": .string(Self.issuer), "sub": .string(userID), "aud": .string(merchant.clientID),
            "iat": .number(seconds), "exp": .number(seconds + 3600), "auth_time": .number(seconds),
        ]
        if identityType == "MOBILE" {
            idClaims["phone_number"] = .string("+" + identityValue)
        } else {
            idClaims["email"] = .string(identityValue)
        }
        let idToken = (try? sign(claims: idClaims)) ?? ""
        let stamp = ISO8601DateFormatter().string(from: now)
        let identity: JSONValue = .object([
            "channel": .string(channel), "identityType": .string(identityType), "identityValue": .string(identityValue),
            "methods": .array([.string(transaction.authType)]), "verified": .bool(true), "verifiedAt": .string(stamp),
            "type": .string("PRIMARY"), "picture": .string(Self.logoURL("user")), "isCompanyEmail": .bool(false),
            "providerMetadata": .object([:]),
        ])
        let info: JSONValue = .object([
            "token": .string(appToken), "userId": .string(userID), "idToken": .string(idToken),
            "timestamp": .string(stamp), "status": .string("SUCCESS"), "identities": .array([identity]),
            "network": Self.network, "deviceInfo": Self.deviceInfo,
        ])
        let sessionInfo: JSONValue = .object([
            "sessionId": .string("ses_" + environment.hex(6)), "sessionToken": .string(sessionToken),
            "sessionTokenJWT": .string(sessionJWT(userID: userID, now: now)), "refreshToken": .string(refreshToken),
        ])
        var detail = transaction
        detail.status = "SUCCESS"
        return Self.json(
            200,
            [
                "authDetail": authDetail(detail),
                "oneTap": .object([
                    "status": .string("SUCCESS"), "token": .string(appToken), "merchantUserInfo": info,
                    "sessionInfo": sessionInfo,
                    "firebaseInfo": .object(["firebaseToken": .string("firebase-" + environment.hex(8))]),
                ]),
                // A guess: the SDK's model has `code` (a string) and `isOTPVerified`; the value of
                // `code` is not documented.
                "otpVerificationDetail": .object(["code": .string("OTP_VERIFIED"), "isOTPVerified": .bool(true)]),
            ])
    }

    /// A session JWT: `aud` the app id, `sub` the user, `iat`/`exp` in seconds
    /// (``OTPlessMerchant/sessionLifetime``).
    func sessionJWT(userID: String, now: Date) -> String {
        let seconds = now.timeIntervalSince1970.rounded(.down)
        return
            (try? sign(claims: [
                "aud": .string(merchant.appID), "sub": .string(userID), "iat": .number(seconds),
                "exp": .number(seconds + merchant.sessionLifetime.timeInterval.rounded(.down)),
            ])) ?? ""
    }

    /// `POST /auth/v1/validate/token` (OTPLESS "Verify token" API documentation).
    func validateToken(_ request: HTTPRequest, environment: Environment) -> HTTPResponse {
        guard request.header("clientId") == merchant.clientID,
            request.header("clientSecret").map({ Secret($0) }) == merchant.clientSecret
        else {
            return Self.error(401, "7002", "Unauthorized", "invalid clientId or clientSecret")
        }
        guard let body = Self.body(request), let token = body["token"]?.stringValue else {
            return Self.error(400, "7101", "Invalid Request", "missing token")
        }
        let issued = state.withLock { $0.issuedTokens[token] }
        guard let issued else {
            return Self.json(
                401, ["message": .string("Unauthorized"), "description": .string("Request error: invalid token")])
        }
        let stamp = ISO8601DateFormatter().string(from: issued.issuedAt)
        return Self.json(
            200,
            [
                "token": .string(token), "status": .string("SUCCESS"), "userId": .string(issued.userID),
                "timestamp": .string(stamp),
                "identities": .array([
                    .object([
                        "identityType": .string(issued.identityType), "identityValue": .string(issued.identityValue),
                        "channel": .string(issued.channel), "methods": .array([.string("OTP")]),
                        "verified": .bool(true),
                        "verifiedAt": .string(stamp),
                    ])
                ]),
                "network": Self.network,
                "deviceInfo": .object(["platform": .string("iOS"), "vendor": .string("Apple")]),
                "secureInfo": .object(["incognito": .bool(false)]),
            ])
    }

    /// The `network` object of a sign-in (documentation addresses, `TEST-NET-3`).
    static let network: JSONValue = .object([
        "ip": .string("203.0.113.7"), "timezone": .string("UTC"),
        "ipLocation": .object([
            "city": .object(["name": .string("Sandbox City")]), "continent": .object(["code": .string("AS")]),
            "country": .object(["code": .string("IN"), "name": .string("India")]), "latitude": .number(0.5),
            "longitude": .number(0.5), "postalCode": .string("000000"),
            "subdivisions": .object(["code": .string("SB"), "name": .string("Sandbox")]),
        ]),
    ])

    /// The `deviceInfo` object of a sign-in (the SDK's `DeviceInfo` keys).
    static let deviceInfo: JSONValue = .object([
        "browser": .string("Safari"), "connection": .string("wifi"), "cookieEnabled": .bool(true),
        "cpuArchitecture": .string("arm64"), "devicePixelRatio": .number(3), "fontFamily": .string("system-ui"),
        "language": .string("en"), "platform": .string("iOS"), "screenColorDepth": .number(24),
        "screenHeight": .number(844),
        "screenWidth": .number(390), "timezoneOffset": .number(0), "userAgent": .string("MultiAuth sandbox otplesssdk"),
        "vendor": .string("Apple"),
    ])

    /// The session API on ``sessionHost`` (the SDK's `SessionServiceImpl`): headers `appId` (the
    /// merchant's) and `state`, a JSON body with `appId`, `origin` and `loginUri`.
    /// - `POST /v4/session/refresh` `{…, refreshToken}` → `{sessionToken, refreshToken,
    ///   sessionTokenJWT}` (a new JWT); an unknown or revoked refresh token → `401` (a guess).
    /// - `DELETE /v4/session/{sessionToken}` → `{message, success}`; unknown → `404` (a guess).
    func session(_ request: HTTPRequest, path: String, environment: Environment) -> HTTPResponse {
        let parts = path.split(separator: "/").map(String.init)
        guard parts.count == 3, parts[0] == "v4", parts[1] == "session" else {
            return Self.error(404, "404", "Not Found", "no such endpoint")
        }
        guard request.header("appId") == merchant.appID else {
            return Self.error(401, "401", "Unauthorized", "unknown appId header")
        }
        guard let state = request.header("state"), !state.isEmpty else {
            return Self.error(400, "7101", "Invalid Request", "missing state header")
        }
        guard let body = Self.body(request), body["appId"]?.stringValue == merchant.appID,
            body["origin"]?.stringValue == "https://otpless.com",
            body["loginUri"]?.stringValue == "https://otpless.com/rc5/appid/\(merchant.appID)"
        else {
            return Self.error(400, "7101", "Invalid Request", "the body needs appId, origin and loginUri")
        }
        switch (request.method, parts[2]) {
        case (.post, "refresh"):
            let refreshToken = body["refreshToken"]?.stringValue ?? ""
            let record = self.state.withLock { tables in
                tables.sessions.values.first { $0.refreshToken == refreshToken && !refreshToken.isEmpty }
            }
            guard let record else {
                return Self.json(
                    401,
                    [
                        "message": .string("Unauthorized"),
                        "description": .string("Request error: invalid refresh token"),
                    ])
            }
            return Self.json(
                200,
                [
                    "sessionToken": .string(record.sessionToken), "refreshToken": .string(record.refreshToken),
                    "sessionTokenJWT": .string(sessionJWT(userID: record.userID, now: environment.now)),
                ])
        case (.delete, let token):
            let known = self.state.withLock { $0.sessions.removeValue(forKey: token) != nil }
            return known
                ? Self.json(200, ["message": .string("session deleted"), "success": .bool(true)])
                : Self.error(404, "404", "Not Found", "unknown session")
        default:
            return Self.error(404, "404", "Not Found", "no such endpoint")
        }
    }

    /// The OIDC discovery document and the JWKS.
    func issuerDocument(path: String) -> HTTPResponse {
        switch path {
        case "/.well-known/openid-configuration":
            return Self.json(
                200,
                [
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

    /// The `{state}` path segment of a client API request.
    static func stateSegment(_ request: HTTPRequest) -> String {
        String(request.url.path.split(separator: "/").last ?? "")
    }
}
