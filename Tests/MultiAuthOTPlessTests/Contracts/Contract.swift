import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthSandboxKit

/// The comparisons the contract tests run; each returns human-readable mismatches (empty: the
/// contract holds).
enum Contract {
    /// Rules of one comparison, by dotted key path (`a.b`, `list[].c`).
    struct Rules: Sendable {
        var optional: Set<String> = []
        var free: Set<String> = []
        var jsonStrings: Set<String> = []
        var constants: Set<String> = []
    }

    /// `actual` against `expected`: the same keys (optional ones may be missing, none extra),
    /// nesting and JSON types (an integral number stays integral); strings listed as JSON
    /// strings are parsed and compared the same way; `free` objects only need the same type;
    /// `constants` must be equal.
    static func shapeMismatches(expected: JSONValue, actual: JSONValue, rules: Rules, path: String = "") -> [String] {
        let here = path.isEmpty ? "(root)" : path
        if rules.jsonStrings.contains(path) {
            guard case .string(let expectedText) = expected, case .string(let actualText) = actual else {
                return ["\(here): expected a JSON string, got \(kind(actual))"]
            }
            guard let parsedExpected = parse(expectedText) else {
                return ["\(here): the fixture's JSON string does not parse"]
            }
            guard let parsedActual = parse(actualText) else { return ["\(here): not a JSON string: \(actualText)"] }
            return shapeMismatches(
                expected: parsedExpected, actual: parsedActual, rules: rules.droppingJSONString(path), path: path)
        }
        if rules.constants.contains(path), expected != actual {
            return ["\(here): expected the value \(render(expected)), got \(render(actual))"]
        }
        if rules.free.contains(path) {
            return kind(expected) == kind(actual) ? [] : ["\(here): expected \(kind(expected)), got \(kind(actual))"]
        }
        switch (expected, actual) {
        case (.object(let want), .object(let got)):
            var problems: [String] = []
            for key in want.keys.sorted() {
                let child = path.isEmpty ? key : path + "." + key
                if let value = got[key] {
                    problems += shapeMismatches(expected: want[key]!, actual: value, rules: rules, path: child)
                } else if !rules.optional.contains(child) {
                    problems.append("\(child): missing")
                }
            }
            // A key the example leaves out is allowed only when the fixture lists it as optional.
            for key in got.keys.sorted() where want[key] == nil {
                let child = path.isEmpty ? key : path + "." + key
                if !rules.optional.contains(child) { problems.append("\(child): unexpected key") }
            }
            return problems
        case (.array(let want), .array(let got)):
            guard let first = want.first else { return [] }
            return got.flatMap { shapeMismatches(expected: first, actual: $0, rules: rules, path: path + "[]") }
        case (.number(let want), .number(let got)):
            return want.rounded() == want && got.rounded() != got ? ["\(here): expected an integer, got \(got)"] : []
        default:
            return kind(expected) == kind(actual) ? [] : ["\(here): expected \(kind(expected)), got \(kind(actual))"]
        }
    }

    /// `request` against the fixture: method, host (any host for `*`), path template, header
    /// names (and values that are not `{placeholders}`; only `Accept` may be extra), then body or
    /// query by ``shapeMismatches(expected:actual:rules:path:)``.
    static func requestMismatches(_ fixture: ContractFixture, _ request: HTTPRequest) -> [String] {
        var problems: [String] = []
        if request.method.rawValue != fixture.method {
            problems.append("method: expected \(fixture.method), got \(request.method.rawValue)")
        }
        if fixture.host != "*", request.url.host != fixture.host {
            problems.append("host: expected \(fixture.host), got \(request.url.host ?? "-")")
        }
        if !pathMatches(template: fixture.path, path: request.url.path) {
            problems.append("path: expected \(fixture.path), got \(request.url.path)")
        }
        let wanted = fixture.headers.compactMapValues(\.stringValue)
        for (name, value) in wanted {
            guard let got = request.header(name) else {
                problems.append("header \(name): missing")
                continue
            }
            if !isPlaceholder(value), got != value { problems.append("header \(name): expected \(value), got \(got)") }
            if isPlaceholder(value), got.isEmpty { problems.append("header \(name): empty") }
        }
        for name in request.headers.keys
        where !wanted.keys.contains(where: { $0.caseInsensitiveCompare(name) == .orderedSame }) {
            if name.caseInsensitiveCompare("Accept") != .orderedSame { problems.append("header \(name): unexpected") }
        }
        let rules = fixture.requestRules
        if let body = fixture.body {
            guard let data = request.body, let actual = try? JSONDecoder().decode(JSONValue.self, from: data) else {
                return problems + ["body: missing or not JSON"]
            }
            problems += shapeMismatches(expected: body, actual: actual, rules: rules).map { "body " + $0 }
        } else if let body = request.body, !body.isEmpty {
            problems.append("body: unexpected")
        }
        if let query = fixture.query {
            var actual: [String: JSONValue] = [:]
            for item in URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? [] {
                actual[item.name] = .string(item.value ?? "")
            }
            problems += shapeMismatches(expected: .object(query), actual: .object(actual), rules: rules)
                .map { "query " + $0 }
        }
        return problems
    }

    /// `response` (of `fixture`) against an actual one: the status (when `checkStatus`; an
    /// error status exactly, a success status by class) and the body shape (of `body` in place
    /// of the fixture's, when given).
    static func responseMismatches(
        _ fixture: ContractFixture, _ expected: ContractResponse, _ response: HTTPResponse, checkStatus: Bool = true,
        body: JSONValue? = nil
    ) -> [String] {
        var problems: [String] = []
        if checkStatus,
            (expected.status / 100) != (response.status / 100)
                || (expected.status >= 400 && expected.status != response.status)
        {
            problems.append("status: expected \(expected.status), got \(response.status)")
        }
        guard let actual = try? JSONDecoder().decode(JSONValue.self, from: response.body) else {
            return problems + ["body: not JSON"]
        }
        let rules = Contract.Rules(optional: expected.optional, free: Set(fixture.free(of: expected)))
        return problems
            + shapeMismatches(expected: body ?? expected.body ?? .null, actual: actual, rules: rules).map {
                "body " + $0
            }
    }

    static func pathMatches(template: String, path: String) -> Bool {
        if template == "*" { return true }
        let want = template.split(separator: "/", omittingEmptySubsequences: true)
        let got = path.split(separator: "/", omittingEmptySubsequences: true)
        guard want.count == got.count else { return false }
        return zip(want, got).allSatisfy { isPlaceholder(String($0)) ? !$1.isEmpty : $0 == $1 }
    }

    static func isPlaceholder(_ text: String) -> Bool { text.hasPrefix("{") && text.hasSuffix("}") && text.count > 2 }

    static func parse(_ text: String) -> JSONValue? { try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) }

    /// `value` as compact JSON text (for messages).
    static func render(_ value: JSONValue) -> String {
        (try? JSONEncoder.multiAuth.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? kind(value)
    }

    static func kind(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "bool"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// Every key path of `value` (objects' keys, array elements as `[]`), descending into the
    /// JSON strings `jsonStrings` names.
    static func keyPaths(_ value: JSONValue, jsonStrings: Set<String> = [], path: String = "") -> [String] {
        switch value {
        case .object(let members):
            return members.keys.sorted().flatMap { key -> [String] in
                let child = path.isEmpty ? key : path + "." + key
                return [child] + keyPaths(members[key]!, jsonStrings: jsonStrings, path: child)
            }
        case .array(let items):
            return items.first.map { keyPaths($0, jsonStrings: jsonStrings, path: path + "[]") } ?? []
        case .string(let text) where jsonStrings.contains(path):
            return parse(text).map { keyPaths($0, jsonStrings: jsonStrings, path: path) } ?? []
        default:
            return []
        }
    }

    /// `value` with the key at `path` renamed to `newName` (inside JSON strings too).
    static func renaming(
        _ value: JSONValue, at path: String, to newName: String, jsonStrings: Set<String> = [], current: String = ""
    ) -> JSONValue {
        switch value {
        case .object(let members):
            var result: [String: JSONValue] = [:]
            for (key, member) in members {
                let child = current.isEmpty ? key : current + "." + key
                let renamed = renaming(member, at: path, to: newName, jsonStrings: jsonStrings, current: child)
                result[child == path ? newName : key] = renamed
            }
            return .object(result)
        case .array(let items):
            return .array(
                items.map { renaming($0, at: path, to: newName, jsonStrings: jsonStrings, current: current + "[]") })
        case .string(let text) where jsonStrings.contains(current):
            guard let parsed = parse(text) else { return value }
            let renamed = renaming(parsed, at: path, to: newName, jsonStrings: jsonStrings, current: current)
            let data = (try? JSONEncoder.multiAuth.encode(renamed)) ?? Data()
            return .string(String(decoding: data, as: UTF8.self))
        default:
            return value
        }
    }
}

extension Contract.Rules {
    /// The rules inside a parsed JSON string (the string path itself is no longer a string).
    func droppingJSONString(_ path: String) -> Contract.Rules {
        var copy = self
        copy.jsonStrings.remove(path)
        copy.constants.remove(path)
        return copy
    }
}
