import Foundation
import MultiAuth
import MultiAuthBuiltInConformance
import MultiAuthHTTP
import MultiAuthSandboxServer
import MultiAuthTestKeys
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `multiauth serve` as a separate process: the built-in conformance checks of all four
/// providers pass through URLSessionTransport against it with the same results as in-process
/// and byte for byte the same exchanges; SIGTERM stops it with exit 0; a taken port is exit 69
/// with a sentence.
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
        let process = Process()
        let url: URL
        let keyFile: URL
        let errors = Pipe()

        init(extraArguments: [String] = []) throws {
            let binary = try #require(
                CrossProcessEquivalenceTests.executable(), "multiauth is not next to the test bundle")
            keyFile = FileManager.default.temporaryDirectory.appendingPathComponent(
                "multiauth-serve-\(UUID().uuidString).pem")
            try TestKeys.rsaAPEM.write(to: keyFile, atomically: true, encoding: .utf8)
            let output = Pipe()
            process.executableURL = binary
            process.arguments = ["serve", "--signing-key", keyFile.path] + extraArguments
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            var line: [UInt8] = []
            while true {
                let byte = output.fileHandleForReading.readData(ofLength: 1)
                guard let first = byte.first else { break }
                if first == 10 { break }
                line.append(first)
            }
            url = try #require(URL(string: String(decoding: line, as: UTF8.self)), "no URL on the first line")
            // The rest of stdout is for people: drain it so the child never blocks on a full pipe.
            output.fileHandleForReading.readabilityHandler = { _ = $0.availableData }
        }

        func terminate() -> Int32 {
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
            try? FileManager.default.removeItem(at: keyFile)
            return process.terminationStatus
        }
    }

    @Test func theConformanceRunAgainstAServerProcessEqualsTheInProcessRun() async throws {
        let serve = try await onThread { try ServeProcess() }
        let transport = URLSessionTransport(defaultTimeout: .seconds(120))
        for provider in EquivalenceRun.providers {
            let comparison = await EquivalenceRun.compare(
                provider, server: serve.url, transport: transport, signingKey: TestKeys.rsaA)
            #expect(comparison.isEquivalent, "\(provider): \(comparison.differences.joined(separator: "\n"))")
            #expect(comparison.counts.failed == 0, "\(provider)")
            #expect(comparison.server.count == 24)
            // Most checks are compared byte for byte; the others (concurrent or timing-dependent
            // flows) by the set of request lines and statuses.
            #expect(comparison.identicalChecks.count >= 20, "\(provider): \(comparison.identicalChecks)")
            #expect(comparison.identicalExchanges > 40, "\(provider)")
        }
        #expect(try await onThread { serve.terminate() } == 0)
    }

    @Test func aTakenPortIsExit69WithASentence() async throws {
        let serve = try await onThread { try ServeProcess() }
        let port = String(serve.url.port ?? 0)
        let (status, message) = try await onThread { () -> (Int32, String) in
            let second = Process()
            second.executableURL = CrossProcessEquivalenceTests.executable()
            second.arguments = ["serve", "--port", port]
            let errors = Pipe()
            second.standardError = errors
            second.standardOutput = FileHandle.nullDevice
            try second.run()
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            second.waitUntilExit()
            return (second.terminationStatus, text)
        }
        #expect(status == 69)
        #expect(message.contains("127.0.0.1:\(port) is already in use"))
        #expect(try await onThread { serve.terminate() } == 0)
    }
}
