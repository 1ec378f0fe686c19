import Foundation

// A path segment's debug renderings: a secret segment shows as `<redacted>`.
// Docs/Security.md, "Redaction".

extension HTTPPathSegment: CustomDebugStringConvertible, CustomReflectable {
    /// Same as ``description``: `<redacted>` for a secret segment.
    public var debugDescription: String { description }

    /// A mirror with the printable text (``description``) and whether the segment is secret.
    public var customMirror: Mirror {
        Mirror(self, children: ["text": description, "isSecret": isSecret], displayStyle: .struct)
    }
}
