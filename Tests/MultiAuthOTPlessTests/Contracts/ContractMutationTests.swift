import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthOTPless
import MultiAuthSandbox
import MultiAuthSandboxKit
import Testing

/// The contract checks bite: renaming any key of any fixture (in memory) makes a check fail.
/// Keys inside objects a fixture declares `free` (their keys vary by device or merchant) are
/// not part of the contract and are skipped.
@Suite(.timeLimit(.minutes(10)))
struct ContractMutationTests {
    static func underFree(_ path: String, _ free: [String]?) -> Bool {
        (free ?? []).contains { path.hasPrefix($0 + ".") || path.hasPrefix($0 + "[]") }
    }

    static func renamed(_ path: String) -> String {
        String(path.split(separator: ".").last ?? "").replacingOccurrences(of: "[]", with: "") + "_renamed"
    }

    /// One adapter request per endpoint, from the adapter-direction scenarios.
    static func goldenRequests() async throws -> [String: HTTPRequest] {
        var golden: [String: HTTPRequest] = [:]
        for key in ContractAdapterTests.cases {
            let parts = key.split(separator: "/").map(String.init)
            let run = try AdapterRun()
            _ = try await ContractAdapterTests.drive(endpoint: parts[0], response: parts[1], run: run)
            run.provider.stopAllPolling()
            for exchange in run.transport.exchanges where golden[exchange.endpoint] == nil {
                golden[exchange.endpoint] = exchange.request
            }
        }
        return golden
    }

    @Test func renamingAnyRequestKeyOrHeaderOfAFixtureBreaksTheAdapterCheck() async throws {
        let golden = try await Self.goldenRequests()
        var renames = 0
        for name in OTPlessContracts.names {
            let fixture = try OTPlessContracts.fixture(name)
            let request = try #require(golden[name], "the adapter never called \(name)")
            try #require(
                Contract.requestMismatches(fixture, request) == [])
            let jsonStrings = fixture.requestRules.jsonStrings
            let fields: JSONValue? = fixture.body ?? fixture.query.map { .object($0) }
            for path in fields.map({ Contract.keyPaths($0, jsonStrings: jsonStrings) }) ?? []
            where !Self.underFree(path, fixture.requestFree) {
                let changed = Contract.renaming(fields!, at: path, to: Self.renamed(path), jsonStrings: jsonStrings)
                let mutated = fixture.settingRequest(fixture.body != nil ? "body" : "query", to: changed)
                let problems = Contract.requestMismatches(mutated, request)
                #expect(!problems.isEmpty, "\(name): renaming the request key \(path) went unnoticed")
                renames += 1
            }
            for header in fixture.headers.keys {
                var headers = fixture.headers
                headers[header + "-Renamed"] = headers.removeValue(forKey: header)
                let mutated = fixture.settingRequest("headers", to: .object(headers))
                #expect(
                    !Contract.requestMismatches(mutated, request).isEmpty,
                    "\(name): renaming the header \(header) went unnoticed")
                renames += 1
            }
        }
        #expect(renames > 200, "only \(renames) renames were tried")
    }

    @Test func renamingAnyResponseKeyOfAFixtureBreaksTheSandboxCheck() async throws {
        let answers = try await SandboxJourney.run()
        var renames = 0
        for name in OTPlessContracts.names {
            let fixture = try OTPlessContracts.fixture(name)
            for response in fixture.responses {
                let key = "\(name)/\(response.name)"
                let answer = try #require(answers[key] ?? SandboxJourney.standIns[key].flatMap { answers[$0] })
                let body = response.body ?? .null
                for path in Contract.keyPaths(body) where !Self.underFree(path, fixture.free(of: response)) {
                    let mutated = Contract.renaming(body, at: path, to: Self.renamed(path))
                    #expect(
                        !Contract.responseMismatches(fixture, response, answer, checkStatus: false, body: mutated)
                            .isEmpty,
                        "\(key): renaming the response key \(path) went unnoticed")
                    renames += 1
                }
            }
        }
        #expect(renames > 300, "only \(renames) renames were tried")
    }

    /// The decode direction bites too: with `oneTap.sessionInfo` renamed (or nested inside
    /// `merchantUserInfo`, the shape the sandbox used to answer) the adapter captures no session
    /// token, refresh token or expiry, and the verify expectation fails.
    @Test(arguments: ["renamed", "nested"])
    func aMisplacedSessionInfoFailsTheDecodeCheck(_ variant: String) async throws {
        let fixture = try OTPlessContracts.fixture("verify-otp-phone")
        let success = try fixture.response("success")
        guard case .object(var body)? = success.body, case .object(var oneTap)? = body["oneTap"],
            let sessionInfo = oneTap.removeValue(forKey: "sessionInfo"),
            case .object(var info)? = oneTap["merchantUserInfo"]
        else {
            Issue.record("the fixture has no oneTap.sessionInfo")
            return
        }
        if variant == "renamed" {
            oneTap["sessionInfoRenamed"] = sessionInfo
        } else {
            info["sessionInfo"] = sessionInfo
            oneTap["merchantUserInfo"] = .object(info)
        }
        body["oneTap"] = .object(oneTap)
        let run = try AdapterRun()
        run.transport.script("intent-phone", try OTPlessContracts.fixture("intent-phone").response("otp-whatsapp").http)
        let challenge = try #require(
            try await run.provider.start(.phone(AdapterRun.phone), context: run.context).challenge)
        run.transport.script("verify-otp-phone", success.http(body: .object(body)))
        let outcome = await run.outcome {
            try await run.provider.respond(to: challenge, with: ChallengeAnswer(code: "123456"), context: run.context)
        }
        let problems = Expectation.mismatches(outcome, success.expect, now: run.now)
        #expect(problems.contains { $0.hasPrefix("sessionToken") })
        #expect(problems.contains { $0.hasPrefix("expiresAt") })
        run.provider.stopAllPolling()
    }
}
