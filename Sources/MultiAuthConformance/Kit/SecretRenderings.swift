import Foundation

/// The five ways a value reaches a log, a crash report or a debugger, for checks that no
/// secret appears in any of them (conformance check C14, the repository's rendering sweep).
///
/// 1. `description` (`String(describing:)`, what `print` and interpolation show);
/// 2. `debugDescription` (its own when the value has one, else `String(reflecting:)`);
/// 3. `String(reflecting:)`;
/// 4. `dump`;
/// 5. a recursive `Mirror` walk, the way a debugger's variables view opens a value: every
///    child's label, `String(describing:)` and `String(reflecting:)`, at every depth.
///
/// Concurrency: pure; call it from any context. Docs/Security.md, "Redaction".
public enum SecretRenderings {
    /// The deepest level the mirror walk opens.
    public static let maximumDepth = 16
    /// The most mirror children the walk renders, so a large object graph stays cheap.
    public static let maximumNodes = 20_000

    /// The five renderings of `value`, each with its name.
    public static func renderings(of value: Any) -> [(name: String, text: String)] {
        var dumped = ""
        dump(value, to: &dumped)
        let debug = (value as? any CustomDebugStringConvertible)?.debugDescription ?? String(reflecting: value)
        return [
            ("description", String(describing: value)), ("debugDescription", debug),
            ("String(reflecting:)", String(reflecting: value)),
            ("dump", dumped), ("Mirror walk", mirrorWalk(of: value)),
        ]
    }

    /// The first rendering of `value` that contains one of `secrets` (ignoring secrets
    /// shorter than 4 characters), as `(rendering name, secret)`, or `nil` when none does.
    public static func firstLeak(of value: Any, secrets: [String]) -> (rendering: String, secret: String)? {
        let candidates = secrets.filter { $0.count >= 4 }
        for (name, text) in renderings(of: value) {
            if let secret = candidates.first(where: { text.contains($0) }) { return (name, secret) }
        }
        return nil
    }

    /// Every node of `value`'s mirror tree, one line each: path, `String(describing:)` and
    /// `String(reflecting:)` of the child.
    public static func mirrorWalk(of value: Any) -> String {
        var lines: [String] = []
        var seen: Set<ObjectIdentifier> = []
        var budget = maximumNodes
        func walk(_ value: Any, path: String, depth: Int) {
            guard depth <= maximumDepth, budget > 0 else { return }
            let mirror = Mirror(reflecting: value)
            if mirror.displayStyle == .class, let object = value as AnyObject? {
                guard seen.insert(ObjectIdentifier(object)).inserted else { return }
            }
            var current: Mirror? = mirror
            var index = 0
            while let level = current {
                for child in level.children {
                    budget -= 1
                    guard budget > 0 else { return }
                    let childPath = path + "." + (child.label ?? "[\(index)]")
                    index += 1
                    lines.append(
                        "\(childPath) = \(String(describing: child.value)) | \(String(reflecting: child.value))")
                    walk(child.value, path: childPath, depth: depth + 1)
                }
                current = level.superclassMirror
            }
        }
        walk(value, path: "", depth: 0)
        return lines.joined(separator: "\n")
    }
}
