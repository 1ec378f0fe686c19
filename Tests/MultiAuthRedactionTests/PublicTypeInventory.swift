import Foundation

/// Every public `struct`, `enum`, `class` and `actor` declared in the library modules under
/// `Sources/`, by fully qualified name (`MultiAuth.Challenge.Kind`), read from the source
/// text so a type added later cannot escape the rendering sweep unnoticed.
///
/// Nesting is read from indentation (the house style indents each nested declaration by four
/// spaces): a declaration belongs to the nearest less-indented type or extension above it.
enum PublicTypeInventory {
    /// The library modules the sweep covers (executables and test-only targets excluded).
    static let modules = [
        "MultiAuthCrypto", "MultiAuth", "MultiAuthHTTP", "MultiAuthOTPless", "MultiAuthDynamic", "MultiAuthTruecaller",
        "MultiAuthPortal", "MultiAuthQR", "MultiAuthSandboxRuntime", "MultiAuthSandbox", "MultiAuthConformance",
        "MultiAuthSandboxKit",
        "MultiAuthObservation", "MultiAuthServer",
    ]

    /// The repository root, found from this file's path.
    static var root: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    /// Every public type's qualified name, with the file it is declared in.
    static func publicTypes() throws -> [(name: String, file: String)] {
        let declaration = try NSRegularExpression(
            pattern:
                #"^( *)(?:@[\w()]+ +)*((?:public|open) +)?(?:final +)?(?:indirect +)?(struct|enum|class|actor|extension|protocol) +([A-Za-z_][A-Za-z0-9_.]*)"#
        )
        var result: [(String, String)] = []
        for module in modules {
            let directory = root.appendingPathComponent("Sources").appendingPathComponent(module)
            guard let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil) else {
                continue
            }
            for case let file as URL in files where file.pathExtension == "swift" {
                let text = try String(contentsOf: file, encoding: .utf8)
                var stack: [(indent: Int, name: String)] = []
                for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                    let line = String(line)
                    let range = NSRange(line.startIndex..., in: line)
                    guard let match = declaration.firstMatch(in: line, range: range) else { continue }
                    let indent = Range(match.range(at: 1), in: line).map { line[$0].count } ?? 0
                    let isPublic = match.range(at: 2).location != NSNotFound
                    let kind = Range(match.range(at: 3), in: line).map { String(line[$0]) } ?? ""
                    var name = Range(match.range(at: 4), in: line).map { String(line[$0]) } ?? ""
                    if kind == "extension", name.hasPrefix("MultiAuth") {
                        name = String(name.split(separator: ".").dropFirst().joined(separator: "."))
                    }
                    while let last = stack.last, last.indent >= indent { stack.removeLast() }
                    let qualified = stack.last.map { $0.name + "." + name } ?? name
                    stack.append((indent, qualified))
                    if isPublic, ["struct", "enum", "class", "actor"].contains(kind) {
                        result.append(("\(module).\(qualified)", file.lastPathComponent))
                    }
                }
            }
        }
        return result.sorted { $0.0 < $1.0 }
    }
}
