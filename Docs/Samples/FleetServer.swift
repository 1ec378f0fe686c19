// Sample: server-side verification across a fleet: one shared store for every verifier, HTTP
// statuses from the errors, and the store conformance kit on a store. Compiled and run by
// `swift test` (target MultiAuthSamples); quoted in Docs/Server.md.
import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthDynamic
import MultiAuthOTPless
import MultiAuthSandbox
import MultiAuthServer
import MultiAuthTruecaller
import Testing

/// Docs/Server.md, "A fleet in one value": every server of the fleet runs this with the same
/// Redis URL and the same secret.
func makeFleetVerifiers(redisURL: String, keySecret: [UInt8]) throws -> FleetVerifiers {
    let redis = RedisClient(configuration: try RedisConfiguration(url: redisURL))   // one client per process
    let keyspace = try StoreKeyspace(prefix: "myapp", secret: keySecret)             // the same on every server
    return FleetVerifiers(redis: redis, keyspace: keyspace, time: .system)
}

/// Docs/Server.md, "Verify each provider's tokens": the verifiers a backend needs, all on the
/// fleet's store.
struct Backend {
    let totp: TOTPVerifier
    let truecaller: TruecallerProfileVerifier
    let otpless: OTPlessTokenVerifier
    let dynamic: DynamicTokenVerifier

    init(fleet: FleetVerifiers, transport: any HTTPTransport, truecallerConfiguration: TruecallerConfiguration) throws {
        totp = try fleet.totp()                                    // 5 attempts per account per 15 minutes
        truecaller = fleet.truecallerProfile(configuration: truecallerConfiguration)
        otpless = fleet.otplessToken(clientID: "client-id", clientSecret: "client-secret", transport: transport)
        dynamic = fleet.dynamicToken(
            configuration: DynamicConfiguration(environmentID: "env-id"), transport: transport,
            audience: "https://app.example.com")
    }
}

/// Docs/Server.md, "What fails closed": the HTTP status a backend answers a TOTP submission with.
func status(verifying code: String, for secret: TOTP, user: String, backend: Backend) async -> Int {
    do {
        _ = try await backend.totp.verify(code, for: secret, account: user)
        return 200
    } catch let error as AuthError {
        switch error.code {
        case .storageUnavailable: return 503   // the shared store is down: nothing was accepted; retry later
        case .rateLimited: return 429          // over the attempt limit; error.retryAfter says when
        case .invalidInput: return 400         // not a 6-digit code; no attempt spent
        default: return 401                    // invalidCode, codeAlreadyUsed
        }
    } catch {
        return 500
    }
}

/// Docs/Server.md, "The store conformance kit": run it on any store before trusting it.
func checkStore(_ store: RedisReplayStore, limiter: RedisAttemptLimiter) async -> StoreConformanceReport {
    let report = await StoreConformance.run(
        StoreConformanceSubject(
            name: "redis", replayStore: store, attemptLimiter: limiter,
            time: .server(remainingTTL: { try await store.remainingTTL(of: $0) })))
    print(report.renderTable())            // S01 … S11, passed / failed / skipped, and why
    return report
}

@Suite(.timeLimit(.minutes(10)))
struct FleetServerSample {
    @Test func theBackendAnswersWithTheRightStatuses() async throws {
        let clock = ManualClock()
        let fleet = FleetVerifiers.inProcess(time: clock.timeSource)   // one process; Redis for a fleet
        let backend = try Backend(
            fleet: fleet, transport: Sandbox(seed: 1).transport,
            truecallerConfiguration: TruecallerConfiguration(
                appKey: "k", appLink: URL(string: "https://app.example.com/tc")!))
        let secret = try TOTP(secret: Array("12345678901234567890".utf8))
        let code = try secret.code(at: clock.wallNow)
        #expect(await status(verifying: "12", for: secret, user: "ada", backend: backend) == 400)
        #expect(await status(verifying: code, for: secret, user: "ada", backend: backend) == 200)
        #expect(await status(verifying: code, for: secret, user: "ada", backend: backend) == 401)   // a replay
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["MULTIAUTH_REDIS_URL"] != nil,
                   "set MULTIAUTH_REDIS_URL to run the Redis half of the sample"))
    func theRedisFleetSetUpPassesTheKit() async throws {
        let url = ProcessInfo.processInfo.environment["MULTIAUTH_REDIS_URL"]!
        let fleet = try makeFleetVerifiers(redisURL: url, keySecret: Array(repeating: 42, count: 32))
        let store = try #require(fleet.replayStore as? RedisReplayStore)
        let limiter = try #require(fleet.attemptLimiter as? RedisAttemptLimiter)
        #expect(await checkStore(store, limiter: limiter).isConforming)
    }
}
