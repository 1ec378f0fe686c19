/// A version number in the form of Semantic Versioning 2.0.0 (`major.minor.patch[-label]`), and
/// the version of this package, ``multiAuth``.
///
/// ``multiAuth`` is the one place the package's version is written; `multiauth --version`
/// prints it and CHANGELOG.md names the same version (a test compares them: a release has its
/// own `## [x.y.z]` section, a pre-release such as `0.2.0-dev` means the changes are listed
/// under `## [Unreleased]`).
///
/// ```swift
/// print("MultiAuth \(SemanticVersion.multiAuth)")   // "MultiAuth 0.2.0-dev"
/// ```
///
/// (The type is not named after the module: the Swift symbol-graph extractor hides public
/// names that start with the module name followed by `Version`, the pattern of Apple's
/// generated framework version constants, so such a type would be missing from the DocC
/// reference.)
///
/// Concurrency: an immutable `Sendable` value.
public struct SemanticVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The version of this build of the MultiAuth package.
    public static let multiAuth = SemanticVersion(major: 0, minor: 2, patch: 0, prerelease: "dev")

    /// The major version: incompatible API changes (SemVer §8; before 1.0.0 a minor version may
    /// also break, SemVer §4).
    public let major: Int
    /// The minor version: additions that keep compatibility.
    public let minor: Int
    /// The patch version: fixes that keep compatibility.
    public let patch: Int
    /// The pre-release label without its hyphen (`"dev"`), or `nil` for a release.
    public let prerelease: String?

    /// Creates a version value.
    /// - Parameters:
    ///   - major: The major version (0 or more).
    ///   - minor: The minor version (0 or more).
    ///   - patch: The patch version (0 or more).
    ///   - prerelease: A pre-release label without the hyphen, or `nil` for a release.
    public init(major: Int, minor: Int, patch: Int, prerelease: String? = nil) {
        self.major = major
        self.minor = minor
        self.patch = patch
        self.prerelease = prerelease
    }

    /// `major.minor.patch`, plus `-prerelease` when there is one (`"0.2.0-dev"`).
    public var description: String {
        "\(major).\(minor).\(patch)" + (prerelease.map { "-\($0)" } ?? "")
    }

    /// Whether this is a release (no pre-release label).
    public var isRelease: Bool { prerelease == nil }

    /// SemVer precedence (§11): numbers first; a pre-release sorts before its release; two
    /// pre-release labels compare as strings (enough for the single labels this package uses).
    public static func < (lhs: SemanticVersion, rhs: SemanticVersion) -> Bool {
        if (lhs.major, lhs.minor, lhs.patch) != (rhs.major, rhs.minor, rhs.patch) {
            return (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
        }
        switch (lhs.prerelease, rhs.prerelease) {
        case (nil, _): return false
        case (_, nil): return true
        case (let left?, let right?): return left < right
        }
    }
}
