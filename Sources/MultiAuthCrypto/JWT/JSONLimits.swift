/// The size limits the JSON front door enforces before and while it parses, so a hostile
/// token or key set can neither exhaust the stack nor make parsing cost more than linear time.
///
/// ``JWT/init(parsing:limits:)``, ``JSONValue/init(parsing:limits:)`` and
/// ``JWKSet/init(jsonData:limits:)`` check `maximumBytes` before decoding anything, and the
/// depth and value count while they scan (the parser is iterative: it keeps its own stack, so
/// nesting never recurses). Input past a limit is refused with
/// ``CryptoError/limitExceeded(_:maximum:)`` naming the limit. Docs/Security.md gives the
/// numbers and why they were chosen.
///
/// Concurrency: a plain value.
public struct JSONLimits: Sendable, Hashable, CustomStringConvertible {
    /// The largest input accepted, in bytes: for a JWT the length of the compact token (its
    /// UTF-8 bytes, reported as `"token length"`), for JSON and JWKS documents the document
    /// (reported as `"document size"`).
    public var maximumBytes: Int
    /// The deepest nesting accepted: the top-level object or array is depth 1, a container
    /// inside it depth 2, and so on (reported as `"nesting depth"`).
    public var maximumDepth: Int
    /// The most JSON values one document may hold, counting the top-level value, every
    /// object member's value and every array element at any depth (reported as
    /// `"value count"`). It also bounds the members of any one object and the elements of any
    /// one array.
    public var maximumValues: Int

    /// Creates limits; every value is clamped to at least 1.
    ///
    /// - Parameters:
    ///   - maximumBytes: the largest input, in bytes.
    ///   - maximumDepth: the deepest nesting, in levels.
    ///   - maximumValues: the most values in one document.
    public init(maximumBytes: Int, maximumDepth: Int, maximumValues: Int) {
        self.maximumBytes = max(1, maximumBytes)
        self.maximumDepth = max(1, maximumDepth)
        self.maximumValues = max(1, maximumValues)
    }

    /// The limits for a JWT and its header and claims: 64 KiB (65,536 bytes) of token,
    /// 32 levels, 4,096 values per segment.
    public static let jwt = JSONLimits(maximumBytes: 65_536, maximumDepth: 32, maximumValues: 4_096)

    /// The limits for a JWKS document: 1 MiB (1,048,576 bytes), 32 levels, 65,536 values.
    public static let jwks = JSONLimits(maximumBytes: 1_048_576, maximumDepth: 32, maximumValues: 65_536)

    /// The three numbers, e.g. `JSONLimits(bytes: 65536, depth: 32, values: 4096)`.
    public var description: String {
        "JSONLimits(bytes: \(maximumBytes), depth: \(maximumDepth), values: \(maximumValues))"
    }
}
