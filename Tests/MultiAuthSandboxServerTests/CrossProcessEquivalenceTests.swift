import Foundation
import MultiAuth
import MultiAuthHTTP
import MultiAuthOTPless
import MultiAuthPortal
import MultiAuthSandboxKit
import MultiAuthSandboxServer
import MultiAuthSpawn
import MultiAuthTestKeys
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `multiauth serve` as a separate process: the built-in conformance checks pass through
/// URLSessionTransport against it with the same results as in-process, and every answer it gave
/// replays byte for byte in-process; SIGTERM stops it with exit 0; a taken port is exit 69 with
/// a sentence. Here for Portal (magic link, redirect, TOTP step) and OTPLESS (status poller,
/// SmartAuth): `.ci/run` runs all four providers through `multiauth conformance --server`.
@Suite(.timeLimit(.minutes(20)), .serialized)
struct CrossProcessEquivalenceTests {
    /// The `multiauth` binary next to the test bundle (the test target depends on it).
    static func executable() -> URL? {
        var directories: [URL] = []
        if let executable = Bundle.main.executableURL { directories.append(executable.deletingLastPathComponent()) }
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            directories.append(bundle.bundleURL.deletingLastPathComponent())
        }
        directories.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        return directories.map { $0.appendingPathComponent("multiauth") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// A `multiauth serve` child process and the URL its first line printed.
    final class ServeProcess: @unchecked Sendable {
        let process: SpawnedProcess
        let url: URL
        let keyFile: URL

        init(extraArguments: [String] = []) throws {
            let binary = try #require(
                CrossProcessEquivalenceTests.executable(), "multiauth is not next to the test bundle")
            keyFile = FileManager.default.temporaryDirectory.appendingPathComponent(
                "multiauth-serve-\(UUID().uuidString).pem")
            try TestKeys.rsaAPEM.write(to: keyFile, atomically: true, encoding: .utf8)
            process = try SpawnedProcess(
                executable: binary.path, arguments: ["serve", "--signing-key", keyFile.path] + extraArguments,
                standardOutput: .pipe)
            let output = try #require(process.standardOutput)
            var line: [UInt8] = []
            while true {
                let byte = output.readData(ofLength: 1)
                guard let first = byte.first else { break }
                if first == 10 { break }
                line.append(first)
            }
            url = try #require(URL(string: String(decoding: line, as: UTF8.self)), "no URL on the first line")
            // The rest of stdout is for people: drain it so the child never blocks on a full pipe.
            Thread {
                while !output.availableData.isEmpty {}
            }.start()
        }

        func terminate() -> Int32 {
            process.send(SIGTERM)
            let ended = process.wait()
            try? FileManager.default.removeItem(at: keyFile)
            return ended.status
        }
    }

    @Test func theConformanceRunAgainstAServerProcessEqualsTheInProcessRun() async throws {
        let serve = try await onThread { try ServeProcess() }
        let transport = URLSessionTransport(defaultTimeout: .seconds(120))
        for provider in [AuthProviderID.portal, .otpless] {
            let comparison = await EquivalenceRun.compare(
                provider, server: serve.url, transport: transport, signingKey: TestKeys.rsaA, harnessRun: false)
            let equivalent = comparison.isEquivalent
            let (passed, failed, _) = comparison.counts
            let checks = comparison.server.count
            let replayed = comparison.replayedExchanges
            let sameSequence = comparison.identicalChecks.count
            #expect(equivalent, "\(provider): \(comparison.differences.prefix(5).joined(separator: "\n"))")
            #expect(failed == 0, "\(provider)")
            #expect(passed > 12, "\(provider)")
            #expect(checks == 24, "\(provider)")
            #expect(replayed > 100, "\(provider): \(replayed) exchanges replayed")
            // Timing across processes decides only a few checks' exchange sequences (the OTPLESS
            // status poller, 200 concurrent starts); most repeat the in-process run exactly.
            #expect(sameSequence >= 20, "\(provider): \(sameSequence) checks with the in-process sequence")
        }
        #expect(try await onThread { serve.terminate() } == 0)
    }

    @Test func aTakenPortIsExit69WithASentence() async throws {
        let serve = try await onThread { try ServeProcess() }
        let port = String(serve.url.port ?? 0)
        let (status, message) = try await onThread { () -> (Int32, String) in
            let second = try SpawnedProcess.run(
                try #require(CrossProcessEquivalenceTests.executable()).path, arguments: ["serve", "--port", port])
            return (second.termination.status, second.errors)
        }
        #expect(status == 69)
        #expect(message.contains("127.0.0.1:\(port) is already in use"))
        #expect(try await onThread { serve.terminate() } == 0)
    }
}
