/// A value kept out of every rendering, for the module's types that hold a secret in a private
/// field: it renders as `<redacted>` (`description`, `debugDescription`) and its mirror has no
/// children, so `dump` and a debugger show nothing of it either. A type whose secret fields are
/// boxes keeps Swift's default rendering (Docs/Security.md, "Redaction"); the module `MultiAuth`
/// has the public `Secret` for the same purpose, which this module cannot see.
package struct RedactedBox<Value: Sendable>: Sendable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The value; read it only where it is used (verified, signed, encoded).
    package let value: Value

    /// Boxes `value`.
    package init(_ value: Value) { self.value = value }

    /// `<redacted>`.
    package var description: String { "<redacted>" }

    /// `<redacted>`.
    package var debugDescription: String { "<redacted>" }

    /// A mirror with no children.
    package var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

extension RedactedBox: Equatable where Value: Equatable {}
extension RedactedBox: Hashable where Value: Hashable {}
