// MultiAuthFleetRacer: one verifier process of the fleet tests (Tests/MultiAuthServerTests/
// RedisFleetTests.swift, Docs/Server.md "Tested against a real Redis"). Not a product;
// `swift build --build-tests` builds it next to the test bundle.
//
//   MultiAuthFleetRacer --redis redis://127.0.0.1:PORT
//
// Connects (PING), prints "ready", then reads one command per line from stdin and prints one
// "R <outcome>" line per command. Every verification goes through the real server-side
// verifier on a RedisReplayStore / RedisAttemptLimiter; inputs are built deterministically from
// the command's arguments, so every process verifies byte-identical codes, responses and tokens:
//
//   totp <account> <unixTime>       TOTPVerifier, the code of <unixTime> for a fixed secret
//   nonce <nonce> <unixTime>        TruecallerProfileVerifier, a signed profile with <nonce>
//   otpless <token>                 OTPlessTokenVerifier.validate (validate-token answered locally)
//   jti <jti> <unixTime>            DynamicTokenVerifier.verify(_:singleUse: true)
//   link <token>                    RedisReplayStore.consumeOnce (a one-time link)
//   hits <account> <n> <limit>      n attempts on RedisAttemptLimiter; prints "R <allowed count>"
//
// Outcomes: accepted, replay, unavailable, invalid, limited, error:<AuthError code>.
import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthDynamic
import MultiAuthLocking
import MultiAuthOTPless
import MultiAuthServer
import MultiAuthTestKeys
import MultiAuthTruecaller

/// The verifier's wall clock, set by each command (every process agrees on the time).
final class CommandTime: Sendable {
    private let seconds = Locked<Double>(1_700_000_000)
    func set(_ value: Double) { seconds.withLock { $0 = value } }
    var now: Date { seconds.withLock { Date(timeIntervalSince1970: $0) } }
}

/// Answers the three provider endpoints the verifiers call, in-process.
struct LocalEndpoints: HTTPTransport {
    let truecallerKeys: Data
    let dynamicJWKS: Data

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let json = ["Content-Type": "application/json"]
        switch request.url.path {
        case "/v1/key": return HTTPResponse(status: 200, headers: json, body: truecallerKeys)
        case _ where request.url.path.hasSuffix("/.well-known/jwks"):
            return HTTPResponse(status: 200, headers: json, body: dynamicJWKS)
        case "/auth/v1/validate/token":
            let body = request.body.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
            let token = body?["token"] as? String ?? ""
            let info: [String: Any] = [
                "token": token, "userId": "user-" + token, "status": "SUCCESS",
                "identities": [["identityType": "EMAIL", "identityValue": "racer@example.com", "verified": true]],
            ]
            return HTTPResponse(status: 200, headers: json, body: try JSONSerialization.data(withJSONObject: info))
        default:
            return HTTPResponse(status: 404, headers: json, body: Data("{}".utf8))
        }
    }
}

/// Writes one line to stdout at once (unbuffered: the test reads line by line).
func emit(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func outcome(_ error: any Error) -> String {
    guard let error = error as? AuthError else { return "error:\(type(of: error))" }
    switch error.code {
    case .codeAlreadyUsed: return "replay"
    case .storageUnavailable: return error.isRetryable ? "unavailable" : "error:unretryable"
    case .invalidCode: return "invalid"
    case .rateLimited: return "limited"
    default: return "error:\(error.code.rawValue)"
    }
}

/// The verifiers and stores one racer process answers its commands with, on one Redis.
struct Racer {
    let clock = CommandTime()
    let time: TimeSource
    let key = TestKeys.rsaA
    let endpoints: LocalEndpoints
    let truecaller: TruecallerProfileVerifier
    let otpless: OTPlessTokenVerifier
    let dynamic: DynamicTokenVerifier
    let totp: TOTPVerifier
    let secret: TOTP
    let replay: RedisReplayStore
    let limiter: RedisAttemptLimiter

    /// Connects (PING) and builds every verifier.
    init(configuration: RedisConfiguration) async throws {
        let clock = self.clock
        time = TimeSource(clock: ContinuousClock(), now: { clock.now })
        let client = RedisClient(configuration: configuration)
        let fleet = FleetVerifiers(redis: client, time: time)
        try await client.ping()
        let truecallerKeys = try JSONSerialization.data(withJSONObject: [
            ["key": Base64.encode(try key.publicKey.derRepresentation()), "keyType": "RSA"]
        ])
        let jwks = try JWKSet(keys: [try key.publicKey.jwk(keyID: "racer", algorithm: .rs256)]).jsonData()
        endpoints = LocalEndpoints(truecallerKeys: truecallerKeys, dynamicJWKS: jwks)
        let truecallerConfiguration = TruecallerConfiguration(
            appKey: "racer-app-key", appLink: URL(string: "https://app.example.com/truecaller")!,
            baseURL: URL(string: "https://truecaller.racer.test")!, deviceID: "racer")
        truecaller = fleet.truecallerProfile(configuration: truecallerConfiguration)
        otpless = fleet.otplessToken(
            clientID: "racer", clientSecret: "racer-secret", baseURL: URL(string: "https://otpless.racer.test")!,
            transport: endpoints)
        let dynamicConfiguration = DynamicConfiguration(
            environmentID: "racer-env", baseURL: URL(string: "https://dynamic.racer.test")!)
        dynamic = fleet.dynamicToken(
            configuration: dynamicConfiguration, transport: endpoints, audience: "https://app.example.com")
        totp = try fleet.totp(attemptLimit: .init(attempts: 1_000, window: .seconds(900)))
        secret = try TOTP(secret: Array("12345678901234567890".utf8))
        replay = RedisReplayStore(client: client)
        limiter = RedisAttemptLimiter(client: client)
    }

    /// Runs one command (`parts[0]`, its arguments after it); returns its outcome.
    func execute(_ parts: [String]) async throws -> String {
        switch parts[0] {
        case "totp":
            let unixTime = Int64(parts[2])!
            clock.set(Double(unixTime))
            _ = try await totp.verify(try secret.code(at: unixTime), for: secret, account: parts[1])
        case "nonce":
            try await verifyProfile(nonce: parts[1], unixTime: parts[2])
        case "otpless":
            _ = try await otpless.validate(token: parts[1])
        case "jti":
            try await verifyToken(jti: parts[1], unixTime: parts[2])
        case "link":
            let first = try await replay.consumeOnce(
                key: try replay.keyspace.key("link", parts[1]), ttl: .seconds(600))
            return first ? "accepted" : "replay"
        case "hits":
            var allowed = 0
            let key = try limiter.keyspace.key("racer.attempts", parts[1])
            for _ in 0..<Int(parts[2])! {
                if try await limiter.hit(key: key, limit: Int(parts[3])!, window: .seconds(600)).allowed {
                    allowed += 1
                }
            }
            return String(allowed)
        default:
            return "error:unknown-command"
        }
        return "accepted"
    }

    /// `nonce`: a Truecaller profile signed for `nonce`, verified at `unixTime`.
    private func verifyProfile(nonce: String, unixTime: String) async throws {
        clock.set(Double(unixTime)!)
        let profile: [String: Any] = [
            "firstName": "Asha", "lastName": "Rao", "phoneNumber": "+919876543210", "countryCode": "IN",
            "requestNonce": nonce, "requestTime": Int(unixTime)!,
        ]
        let payload = Base64.encode(
            try JSONSerialization.data(withJSONObject: profile, options: [.sortedKeys]))
        let signature = try key.signature(for: Array(payload.utf8), algorithm: .rs512)
        let response = TruecallerProfileResponse(
            payload: payload, signature: Base64.encode(signature), signatureAlgorithm: "SHA512withRSA",
            requestNonce: nonce)
        let context = AuthContext(
            transport: endpoints, time: time, flowID: FlowID(rawValue: "racer"), events: { _ in })
        _ = try await truecaller.verify(response, expectedNonce: nonce, context: context)
    }

    /// `jti`: a Dynamic token with `jti`, issued and verified (single use) at `unixTime`.
    private func verifyToken(jti: String, unixTime: String) async throws {
        let now = Double(unixTime)!
        clock.set(now)
        let claims: [String: JSONValue] = [
            "sub": .string("user-1"), "aud": .string("https://app.example.com"),
            "environment_id": .string("racer-env"), "scope": .string("user:basic"),
            "iat": .number(now), "exp": .number(now + 600), "jti": .string(jti),
        ]
        let token = try JWT.sign(claims: claims, with: key, algorithm: .rs256, keyID: "racer")
        _ = try await dynamic.verify(token, singleUse: true)
    }
}

func run() async -> Int32 {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: "--redis"), index + 1 < arguments.count,
        let configuration = try? RedisConfiguration(url: arguments[index + 1])
    else {
        FileHandle.standardError.write(Data("usage: MultiAuthFleetRacer --redis redis://host:port\n".utf8))
        return 2
    }
    do {
        let racer = try await Racer(configuration: configuration)
        emit("ready")

        while let line = readLine() {
            let parts = line.split(separator: " ").map(String.init)
            guard !parts.isEmpty else { continue }
            let result: String
            do {
                result = try await racer.execute(parts)
            } catch is StoreUnavailableError {
                result = "unavailable"
            } catch {
                result = outcome(error)
            }
            emit("R \(result)")
        }
        return 0
    } catch {
        FileHandle.standardError.write(Data("MultiAuthFleetRacer: \(error)\n".utf8))
        return 1
    }
}

// The work runs in a task while the main thread waits (as the bench does).
/// The exit status, set by the task and read once it signalled.
let status = Locked<Int32>(0)
let finished = DispatchSemaphore(value: 0)
Task.detached {
    let code = await run()
    status.withLock { $0 = code }
    finished.signal()
}
finished.wait()
exit(status.withLock { $0 })
