import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthSandboxRuntime

extension DynamicBackend {
    /// The `SdkUser` JSON of a user (the fields of the SDK's `SdkUser` type this backend knows).
    func userJSON(_ user: User, sessionID: String?) -> JSONValue {
        var credential = user.wire
        credential["id"] = .string(user.credentialID)
        credential["format"] = .string(
            user.oauthProvider != nil ? "oauth" : user.channel == .sms ? "phoneNumber" : "email")
        if let provider = user.oauthProvider { credential["oauthProvider"] = .string(provider) }
        credential["signInEnabled"] = .bool(true)
        var object: [String: JSONValue] = [
            "id": .string(user.id),
            "projectEnvironmentId": .string(environmentID),
            "verifiedCredentials": .array([.object(credential)]),
            "lastVerifiedCredentialId": .string(user.credentialID),
            "newUser": .bool(user.signIns <= 1),
        ]
        if let sessionID { object["sessionId"] = .string(sessionID) }
        if user.channel == .sms {
            object["phoneNumber"] = .string(user.destination)
        } else {
            object["email"] = .string(user.destination)
        }
        return .object(object)
    }

    /// Signs a token for `userID` with this backend's key (what the real service signs,
    /// Docs/Providers/Dynamic.md, server side): `kid`, `iss` `<host>/<env>`, `aud`, `sub`, `sid`, `iat`, `exp`,
    /// `environment_id`, `scope`, plus `extra` claims.
    ///
    /// Tests use it to mint tokens the sign-in flow would not produce: another scope, another
    /// lifetime, another `kid`.
    /// - Parameters:
    ///   - userID: The `sub`.
    ///   - sessionID: The `sid`.
    ///   - scopes: The `scope` values (default `["user:basic"]`).
    ///   - issuedAt: The `iat` (server time).
    ///   - lifetime: `exp − iat` (default ``tokenLifetime``).
    ///   - host: The host in `iss`.
    ///   - keyID: The header `kid` (default ``keyID``; another value names a key the JWKS lacks).
    ///   - extra: Further claims (e.g. `email`, `verified_credentials`).
    /// - Returns: The compact RS256 JWT.
    /// - Throws: `CryptoError` when signing fails.
    public func mintToken(
        userID: String, sessionID: String, scopes: [String] = [DynamicBackend.basicScope], issuedAt: Date,
        lifetime: Duration = DynamicBackend.tokenLifetime, host: String = DynamicBackend.defaultHost,
        keyID: String? = nil,
        extra: [String: JSONValue] = [:]
    ) throws -> String {
        var claims = extra
        let iat = issuedAt.timeIntervalSince1970.rounded(.down)
        claims["iss"] = .string("\(host)/\(environmentID)")
        claims["aud"] = .string(audience)
        claims["sub"] = .string(userID)
        claims["sid"] = .string(sessionID)
        claims["iat"] = .number(iat)
        claims["exp"] = .number(iat + lifetime.timeInterval)
        claims["environment_id"] = .string(environmentID)
        claims["scope"] = .string(scopes.joined(separator: " "))
        return try JWT.sign(claims: claims, with: signingKey, algorithm: .rs256, keyID: keyID ?? self.keyID)
    }

    /// Issues `jwt` and `minifiedJwt` for a live session and records both as bearer tokens; in
    /// a cookie-authentication environment the answer carries neither (the tokens still work
    /// as bearers, standing in for the cookie).
    func issue(sessionID: String, context: SandboxContext) throws -> JSONValue {
        let now = context.time.now
        guard
            let (session, user) = state.withLock({ state in
                state.sessions[sessionID].flatMap { s in state.users[s.userKey].map { (s, $0) } }
            })
        else {
            throw AuthError(.generic, "unknown session")
        }
        var minifiedExtra: [String: JSONValue] = [
            "last_verified_credential_id": .string(user.credentialID), "verified_credentials_hashes": .object([:]),
        ]
        if user.channel == .email { minifiedExtra["email"] = .string(user.destination) }
        // A session that still owes its MFA step gets tokens with that scope alone.
        let scopes = session.mfaPending ? [Self.requiresAdditionalAuthScope] : [Self.basicScope]
        let minified = try mintToken(
            userID: user.id, sessionID: session.id, scopes: scopes, issuedAt: now, host: context.host,
            extra: minifiedExtra)
        var fullExtra = minifiedExtra
        fullExtra["verified_credentials"] = .array(
            userJSON(user, sessionID: session.id)["verifiedCredentials"]?.arrayValue ?? [])
        if user.channel == .sms { fullExtra["phone_number"] = .string(user.destination) }
        let jwt = try mintToken(
            userID: user.id, sessionID: session.id, scopes: scopes, issuedAt: now, host: context.host,
            extra: fullExtra)
        state.withLock { state in
            state.tokens[minified] = sessionID
            state.tokens[jwt] = sessionID
        }
        var answer: [String: JSONValue] = [
            "jwt": .string(jwt), "minifiedJwt": .string(minified),
            "expiresAt": .number(now.timeIntervalSince1970.rounded(.down) + Self.tokenLifetime.timeInterval),
            "user": userJSON(user, sessionID: session.id),
        ]
        if state.withLock({ $0.cookieAuthentication }) {
            answer["jwt"] = nil
            answer["minifiedJwt"] = nil
        }
        return .object(answer)
    }

    /// The live session of the request's bearer token, or `nil` (unknown, expired, revoked).
    func bearerSession(_ request: HTTPRequest, context: SandboxContext) -> (token: String, sessionID: String)? {
        guard let header = request.header("Authorization"), header.lowercased().hasPrefix("bearer ") else { return nil }
        let token = String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces)
        guard let sessionID = state.withLock({ $0.tokens[token] }),
            state.withLock({ state in state.sessions[sessionID].map { !$0.revoked } ?? false }),
            let exp = (try? JWT(parsing: token))?.claims.expiresAt,
            context.time.now.timeIntervalSince1970 < exp.secondsSince1970
        else { return nil }
        return (token, sessionID)
    }

    /// `POST refresh`: a new VerifyResponse for the bearer's session; the presented token is retired.
    func refresh(_ request: HTTPRequest, context: SandboxContext) throws -> HTTPResponse {
        guard let (token, sessionID) = bearerSession(request, context: context) else {
            return try Self.error(401, "Unauthorized")
        }
        state.withLock { $0.tokens[token] = nil }
        return try .json(200, try issue(sessionID: sessionID, context: context))
    }

    /// `POST revoke`: ends the bearer's session (every token of it) → `204`.
    func revoke(_ request: HTTPRequest, context: SandboxContext) throws -> HTTPResponse {
        guard let (_, sessionID) = bearerSession(request, context: context) else {
            return try Self.error(401, "Unauthorized")
        }
        state.withLock { state in
            state.sessions[sessionID]?.revoked = true
            state.tokens = state.tokens.filter { $0.value != sessionID }
        }
        return HTTPResponse(status: 204)
    }

    /// `GET users`: the bearer's user.
    func currentUser(_ request: HTTPRequest, context: SandboxContext) throws -> HTTPResponse {
        guard let (_, sessionID) = bearerSession(request, context: context),
            let user = state.withLock({ state in state.sessions[sessionID].flatMap { state.users[$0.userKey] } })
        else { return try Self.error(401, "Unauthorized") }
        return try .json(200, userJSON(user, sessionID: sessionID))
    }

    /// The number of sessions not revoked (diagnostics and tests).
    public var liveSessionCount: Int {
        state.withLock { state in state.sessions.values.filter { !$0.revoked }.count }
    }
}
