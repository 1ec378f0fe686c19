import Foundation

// A path segment's debug renderings: a secret segment shows as `<redacted>`.
// Docs/Security.md, "Redaction".

extension HTTPPathSegment: CustomReflectable {

    /// A mirror with the printable text (``description``) and whether the segment is secret.
    public var customMirror: Mirror {
        Mirror(self, children: ["text": description, "isSecret": isSecret], displayStyle: .struct)
    }
}
