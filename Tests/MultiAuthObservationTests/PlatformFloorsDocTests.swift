import Foundation
import Testing

/// Docs/GettingStarted.md states each module's platform floor, and the floors it states are
/// the ones the code has: the package's `platforms` for every module, and the `@available` of
/// `AuthModel` (Observation) for `MultiAuthObservation`. A page that promised iOS 16 / macOS 13
/// for everything sent `AuthModel` users to a compile error.
@Suite(.timeLimit(.minutes(10)))
struct PlatformFloorsDocTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func text(_ path: String) throws -> String {
        try String(contentsOf: root.appending(path: path), encoding: .utf8)
    }

    /// "iOS 16, macOS 13, tvOS 16, watchOS 9" from `platforms: [.iOS(.v16), .macOS(.v13), …]`.
    static func packageFloors() throws -> String {
        let manifest = try text("Package.swift")
        let line = try #require(manifest.split(separator: "\n").first { $0.contains("platforms: [.iOS(") })
        let pairs = line.matches(of: /\.(iOS|macOS|tvOS|watchOS)\(\.v(\d+)\)/).map { "\($0.1) \($0.2)" }
        #expect(pairs.count == 4, "\(line)")
        return pairs.joined(separator: ", ")
    }

    /// "iOS 17, macOS 14, tvOS 17, watchOS 10" from the `@available` above `AuthModel`.
    static func authModelFloors() throws -> String {
        let directory = root.appending(path: "Sources/MultiAuthObservation")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
            $0.hasSuffix(".swift")
        }
        for file in files {
            let source = try String(contentsOf: directory.appending(path: file), encoding: .utf8)
            guard let declaration = source.range(of: "public final class AuthModel") else { continue }
            let before = source[..<declaration.lowerBound]
            let attribute = try #require(before.matches(of: /@available\(([^)*]+), \*\)/).last)
            return String(attribute.1)
        }
        Issue.record("AuthModel not found")
        return ""
    }

    @Test func gettingStartedStatesEachModulesFloorAsTheCodeHasIt() throws {
        let page = try Self.text("Docs/GettingStarted.md")
        let package = try Self.packageFloors()
        let model = try Self.authModelFloors()
        #expect(package == "iOS 16, macOS 13, tvOS 16, watchOS 9")
        #expect(model == "iOS 17, macOS 14, tvOS 17, watchOS 10")
        #expect(page.contains("| `MultiAuthObservation` (`AuthModel`) | \(model) |"), "the AuthModel row")
        #expect(page.contains("| every other library product | \(package) |"), "the other modules' row")
        // No sentence gives one floor for everything.
        #expect(!page.contains("Floors: \(package);"))
        let readme = try Self.text("README.md")
        #expect(readme.contains("`AuthModel` (module `MultiAuthObservation`): \(model)"))
    }
}
