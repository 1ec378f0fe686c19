import Foundation
import MultiAuth
import Testing

/// `SemanticVersion.multiAuth` and CHANGELOG.md name the same version.
@Suite struct VersionTests {
    static var changelog: String {
        get throws {
            let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent()
            return try String(contentsOf: root.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        }
    }

    @Test func theChangelogHasTheCurrentVersion() throws {
        let version = SemanticVersion.multiAuth
        let headings = try Self.changelog.split(separator: "\n").filter { $0.hasPrefix("## [") }.map(String.init)
        if version.isRelease {
            // A release: its section is the first one (nothing unreleased above it).
            #expect(headings.first?.hasPrefix("## [\(version)] - ") == true, "\(headings)")
        } else {
            // A pre-release: the changes are under Unreleased, above the last release, which is
            // older than this version.
            #expect(headings.first == "## [Unreleased]", "\(headings)")
            let released = headings.dropFirst().first.flatMap { heading -> SemanticVersion? in
                let numbers = heading.dropFirst(4).prefix { $0 != "]" }.split(separator: ".").compactMap { Int($0) }
                return numbers.count == 3
                    ? SemanticVersion(major: numbers[0], minor: numbers[1], patch: numbers[2]) : nil
            }
            let last = try #require(released, "no released version below Unreleased: \(headings)")
            #expect(last < version)
        }
    }

    @Test func semanticVersionOrderAndText() {
        let dev = SemanticVersion(major: 0, minor: 2, patch: 0, prerelease: "dev")
        let release = SemanticVersion(major: 0, minor: 2, patch: 0)
        #expect(dev.description == "0.2.0-dev")
        #expect(release.description == "0.2.0")
        #expect(dev < release)  // SemVer §11: a pre-release sorts first
        #expect(SemanticVersion(major: 0, minor: 1, patch: 9) < dev)
        #expect(!(release < dev))
        #expect(!dev.isRelease && release.isRelease)
    }
}
