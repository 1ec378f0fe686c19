import Foundation
import MultiAuth

/// The five ways a value reaches a log, a crash report or a debugger, for checks that no
/// secret appears in any of them (conformance check C14, the repository's rendering sweep).
///
/// 1. `description` (`String(describing:)`, what `print` and interpolation show);
/// 2. `debugDescription` (its own when the value has one, else `String(reflecting:)`);
/// 3. `String(reflecting:)`;
/// 4. `dump`;
/// 5. a recursive `Mirror` walk, the way a debugger's variables view opens a value: every
///    child's label, `String(describing:)` and `String(reflecting:)`, at every depth;
///
/// and, for an error, a sixth: its **causes** — the chain of ``/MultiAuth/AuthError/underlying``
/// errors (each one's message, provider code and its own five renderings) and every `NSError`
/// `userInfo` value on the way (where a `URLError` keeps the request URL), since a crash
/// reporter or a log line may print them.
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
        var renderings = [
            ("description", String(describing: value)), ("debugDescription", debug),
            ("String(reflecting:)", String(reflecting: value)),
            ("dump", dumped), ("Mirror walk", mirrorWalk(of: value)),
        ]
        if let error = value as? any Error { renderings.append(("causes", causes(of: error))) }
        return renderings
    }

    /// The deepest cause ``causes(of:)`` follows.
    public static let maximumCauseDepth = 8

    /// Every cause of `error`, one block each: for `error` itself and every
    /// ``/MultiAuth/AuthError/underlying`` below it (up to ``maximumCauseDepth``), the
    /// `AuthError`'s message and provider code, the cause's five renderings, and its `NSError`
    /// `userInfo` values (described, and their own `userInfo` one level down).
    public static func causes(of error: any Error) -> String {
        var lines: [String] = []
        func userInfo(of error: any Error, depth: Int) {
            let info = (error as NSError).userInfo
            for key in info.keys.sorted() {
                let value = info[key]!
                lines.append("userInfo[\(key)] = \(String(describing: value)) | \(String(reflecting: value))")
                if depth == 0, let nested = value as? any Error { userInfo(of: nested, depth: 1) }
            }
        }
        var current: (any Error)? = error
        var depth = 0
        while let cause = current, depth <= maximumCauseDepth {
            if let auth = cause as? AuthError {
                lines.append("message = \(auth.message)")
                lines.append("providerCode = \(auth.providerCode ?? "")")
                current = auth.underlying
            } else {
                current = nil
            }
            if depth > 0 {
                var dumped = ""
                dump(cause, to: &dumped)
                lines += [String(describing: cause), String(reflecting: cause), dumped, mirrorWalk(of: cause)]
            }
            userInfo(of: cause, depth: 0)
            depth += 1
        }
        return lines.joined(separator: "\n")
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
