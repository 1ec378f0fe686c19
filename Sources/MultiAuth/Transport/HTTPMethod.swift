import Foundation

/// An HTTP request method, e.g. `GET`, `POST`.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral {
    /// The method token, upper case.
    public let rawValue: String
    /// Creates a method from its token.
    public init(rawValue: String) { self.rawValue = rawValue.uppercased() }
    /// Creates a method from a literal.
    public init(stringLiteral value: String) { self.init(rawValue: value) }
    /// `GET`
    public static let get: HTTPMethod = "GET"
    /// `POST`
    public static let post: HTTPMethod = "POST"
    /// `PUT`
    public static let put: HTTPMethod = "PUT"
    /// `DELETE`
    public static let delete: HTTPMethod = "DELETE"
}
