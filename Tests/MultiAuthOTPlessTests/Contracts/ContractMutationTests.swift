import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthOTPless
import MultiAuthSandbox
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
        for name in ContractFixture.names {
            let fixture = try ContractFixture.load(name)
            let request = try #require(golden[name], "the adapter never called \(name)")
            try #require(
                Contract.requestMismatches(fixture.request, request, hosts: ContractFixture.productionHosts) == [])
            let jsonStrings = Set(fixture.request.jsonStrings ?? [])
            let fields: JSONValue? =
                fixture.request.body ?? fixture.request.query.map { .object($0.mapValues(JSONValue.string)) }
            for path in fields.map({ Contract.keyPaths($0, jsonStrings: jsonStrings) }) ?? []
            where !Self.underFree(path, fixture.request.free) {
                var mutated = fixture.request
                let changed = Contract.renaming(fields!, at: path, to: Self.renamed(path), jsonStrings: jsonStrings)
                if fixture.request.body != nil {
                    mutated.body = changed
                } else {
                    mutated.query = changed.objectValue?.compactMapValues(\.stringValue)
                }
                let problems = Contract.requestMismatches(mutated, request, hosts: ContractFixture.productionHosts)
                #expect(!problems.isEmpty, "\(name): renaming the request key \(path) went unnoticed")
                renames += 1
            }
            for header in (fixture.request.headers ?? [:]).keys {
                var mutated = fixture.request
                mutated.headers![header + "-Renamed"] = mutated.headers!.removeValue(forKey: header)
                #expect(
                    !Contract.requestMismatches(mutated, request, hosts: ContractFixture.productionHosts).isEmpty,
                    "\(name): renaming the header \(header) went unnoticed")
                renames += 1
            }
        }
        #expect(renames > 200, "only \(renames) renames were tried")
    }

    @Test func renamingAnyResponseKeyOfAFixtureBreaksTheSandboxCheck() async throws {
        let answers = try await SandboxJourney.run()
        var renames = 0
        for name in ContractFixture.names {
            for response in try ContractFixture.load(name).responses {
                let key = "\(name)/\(response.name)"
                let answer = try #require(answers[key] ?? SandboxJourney.standIns[key].flatMap { answers[$0] })
                for path in Contract.keyPaths(response.body) where !Self.underFree(path, response.free) {
                    var mutated = response
                    mutated.body = Contract.renaming(response.body, at: path, to: Self.renamed(path))
                    #expect(
                        !Contract.responseMismatches(mutated, answer, checkStatus: false).isEmpty,
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
        let fixture = try ContractFixture.load("verify-otp-phone")
        var success = fixture.response("success")
        guard case .object(var body) = success.body, case .object(var oneTap)? = body["oneTap"],
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
        success.body = .object(body)
        let run = try AdapterRun()
        run.transport.script("intent-phone", try ContractFixture.load("intent-phone").response("otp-whatsapp").http)
        let challenge = try #require(
            try await run.provider.start(.phone(AdapterRun.phone), context: run.context).challenge)
        run.transport.script("verify-otp-phone", success.http)
        let outcome = await run.outcome {
            try await run.provider.respond(to: challenge, with: ChallengeAnswer(code: "123456"), context: run.context)
        }
        let problems = Expectation.mismatches(outcome, success.expect, now: run.now)
        #expect(problems.contains { $0.hasPrefix("sessionToken") })
        #expect(problems.contains { $0.hasPrefix("expiresAt") })
        run.provider.stopAllPolling()
    }
}
