import Foundation
import MultiAuth
import MultiAuthCrypto

/// The comparisons of the contract tests: a request against a fixture's request (field for
/// field), and a response body against a fixture's response body (shape: the same keys with
/// the same JSON types). Every check returns its mismatches as sentences; an empty list is a
/// match. Test support: `package`, not public API.
package enum ContractMatch {
    /// Placeholder values bound while matching (`{{name}}` → the value seen).
    package typealias Bindings = [String: String]

    /// The mismatches between `request` and `fixture`'s request: method, host (when `host` is
    /// given), path, every listed header, and the query and body key for key.
    /// - Parameters:
    ///   - request: What the adapter sent.
    ///   - fixture: The fixture.
    ///   - host: The host the request must go to, or `nil` to skip the check.
    ///   - bindings: Placeholder values; new ones are added, known ones must match.
    package static func request(
        _ request: HTTPRequest, matches fixture: ContractFixture, host: String?, bindings: inout Bindings
    ) -> [String] {
        var failures: [String] = []
        if request.method.rawValue != fixture.method {
            failures.append("method \(request.method.rawValue), expected \(fixture.method)")
        }
        if let host, request.url.host != host { failures.append("host \(request.url.host ?? "-"), expected \(host)") }
        failures += matchPath(request.url.path, fixture.path, bindings: &bindings)
        for (name, expected) in fixture.headers {
            guard let sent = request.header(name) else {
                failures.append("header \(name) is missing")
                continue
            }
            failures += value(.string(sent), matches: expected, at: "header \(name)", bindings: &bindings)
        }
        let items = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.percentEncodedQueryItems ?? []
        let actualQuery = JSONValue.object(
            Dictionary(items.map { ($0.name, JSONValue.string($0.value ?? "")) }, uniquingKeysWith: { $1 }))
        failures += value(actualQuery, matches: .object(fixture.query ?? [:]), at: "query", bindings: &bindings)
        switch (fixture.body, request.body.flatMap { $0.isEmpty ? nil : $0 }) {
        case (nil, nil), (.null?, nil):
            break
        case (nil, _?), (.null?, _?):
            failures.append("the request has a body; the contract has none")
        case (let expected?, nil):
            failures.append("the request has no body; expected \(expected)")
        case (let expected?, let data?):
            guard let actual = try? JSONDecoder().decode(JSONValue.self, from: data) else {
                failures.append("the body is not JSON")
                break
            }
            failures += value(actual, matches: expected, at: "body", bindings: &bindings)
        }
        return failures
    }

    /// The mismatches between a path and a template with `{{name}}` segments.
    static func matchPath(_ path: String, _ template: String, bindings: inout Bindings) -> [String] {
        let actual = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let expected = template.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard actual.count == expected.count else { return ["path \(path), expected \(template)"] }
        var failures: [String] = []
        for (segment, pattern) in zip(actual, expected) {
            failures += value(.string(segment), matches: .string(pattern), at: "path", bindings: &bindings)
        }
        return failures.isEmpty ? [] : ["path \(path), expected \(template)"]
    }

    /// The mismatches between `actual` and `expected` (literals equal, placeholders bound,
    /// objects key for key, arrays element by element).
    package static func value(
        _ actual: JSONValue, matches expected: JSONValue, at path: String, bindings: inout Bindings
    ) -> [String] {
        switch (actual, expected) {
        case (_, .string(let pattern)) where pattern.contains("{{"):
            guard let text = actual.stringValue else {
                return ["\(path): expected a string for \(pattern), got \(actual)"]
            }
            guard let captures = capture(text, pattern) else { return ["\(path): '\(text)', expected '\(pattern)'"] }
            var failures: [String] = []
            for (name, kind, value) in captures {
                if kind == "uuid", !(UUID(uuidString: value) != nil && value == value.lowercased()) {
                    failures.append("\(path): '\(value)' is not a lower-case UUID")
                }
                if let bound = bindings[name], bound != value {
                    failures.append("\(path): \(name) is '\(value)', earlier '\(bound)'")
                }
                bindings[name] = value
            }
            return failures
        case (.object(let members), .object(let wanted)):
            var failures: [String] = []
            for key in Set(members.keys).union(wanted.keys).sorted() {
                let child = path + "." + key
                switch (members[key], wanted[key]) {
                case (nil, _?): failures.append("\(child) is missing")
                case (_?, nil): failures.append("\(child) is not in the contract")
                case (let got?, let want?): failures += value(got, matches: want, at: child, bindings: &bindings)
                default: break
                }
            }
            return failures
        case (.array(let items), .array(let wanted)):
            guard items.count == wanted.count else {
                return ["\(path): \(items.count) elements, expected \(wanted.count)"]
            }
            return zip(items, wanted).enumerated().flatMap {
                value($0.element.0, matches: $0.element.1, at: "\(path)[\($0.offset)]", bindings: &bindings)
            }
        case (.number(let a), .number(let b)):
            return a == b ? [] : ["\(path): \(a), expected \(b)"]
        case (.string(let a), .string(let b)):
            return a == b ? [] : ["\(path): '\(a)', expected '\(b)'"]
        case (.bool(let a), .bool(let b)):
            return a == b ? [] : ["\(path): \(a), expected \(b)"]
        case (.null, .null):
            return []
        default:
            return ["\(path): \(actual), expected \(expected)"]
        }
    }

    /// The parts of a pattern: literals and `{{name}}` / `{{name:kind}}` placeholders.
    enum Part: Equatable {
        case literal(String)
        case placeholder(name: String, kind: String?)
    }

    static func parts(_ pattern: String) -> [Part] {
        var parts: [Part] = []
        var rest = Substring(pattern)
        while let open = rest.range(of: "{{"), let close = rest.range(of: "}}", range: open.upperBound..<rest.endIndex)
        {
            if open.lowerBound > rest.startIndex { parts.append(.literal(String(rest[..<open.lowerBound]))) }
            let inner = rest[open.upperBound..<close.lowerBound].split(separator: ":", maxSplits: 1).map(String.init)
            parts.append(.placeholder(name: inner.first ?? "", kind: inner.count > 1 ? inner[1] : nil))
            rest = rest[close.upperBound...]
        }
        if !rest.isEmpty { parts.append(.literal(String(rest))) }
        return parts
    }

    /// The `(name, kind, value)` of every placeholder when `text` matches `pattern` (each
    /// placeholder takes a non-empty run up to the next literal), else `nil`.
    static func capture(_ text: String, _ pattern: String) -> [(String, String?, String)]? {
        var captures: [(String, String?, String)] = []
        var rest = Substring(text)
        let list = parts(pattern)
        for (index, part) in list.enumerated() {
            switch part {
            case .literal(let literal):
                guard rest.hasPrefix(literal) else { return nil }
                rest = rest.dropFirst(literal.count)
            case .placeholder(let name, let kind):
                var end = rest.endIndex
                if index + 1 < list.count, case .literal(let next) = list[index + 1] {
                    guard let range = rest.range(of: next) else { return nil }
                    end = range.lowerBound
                }
                let value = String(rest[..<end])
                guard !value.isEmpty else { return nil }
                captures.append((name, kind, value))
                rest = rest[end...]
            }
        }
        return rest.isEmpty ? captures : nil
    }

    /// The mismatches between the shape of `actual` and of `expected`: the same JSON type at
    /// every node, objects with the same keys (those under `optional` may be missing from
    /// `actual`), every array element of `actual` shaped like `expected`'s first one. Values
    /// are not compared.
    package static func shape(
        _ actual: JSONValue?, matches expected: JSONValue?, optional: Set<String> = [], at path: String = ""
    ) -> [String] {
        let label = path.isEmpty ? "body" : path
        switch (actual, expected) {
        case (nil, nil), (nil, .null?):
            return []
        case (nil, _?):
            return ["\(label): no body, expected \(expected!)"]
        case (_?, nil):
            return ["\(label): a body, expected none"]
        case (.object(let members)?, .object(let wanted)?):
            var failures: [String] = []
            for key in Set(members.keys).union(wanted.keys).sorted() {
                let child = ContractFixture.join(path, key)
                switch (members[key], wanted[key]) {
                case (nil, _?) where !optional.contains(child): failures.append("\(child) is missing")
                case (_?, nil): failures.append("\(child) is not in the contract")
                case (let got?, let want?): failures += shape(got, matches: want, optional: optional, at: child)
                default: break
                }
            }
            return failures
        case (.array(let items)?, .array(let wanted)?):
            guard let first = wanted.first else { return items.isEmpty ? [] : ["\(label): elements, expected none"] }
            return items.flatMap { shape($0, matches: first, optional: optional, at: path + "[]") }
        case (.number?, .number?), (.string?, .string?), (.bool?, .bool?), (.null?, .null?):
            return []
        default:
            return ["\(label): \(actual!), expected \(expected!)"]
        }
    }

    /// `template` with every `{{name}}` placeholder replaced by `bindings[name]` (unbound ones
    /// stay as they are).
    package static func substitute(_ template: JSONValue, bindings: Bindings) -> JSONValue {
        switch template {
        case .string(let text) where text.contains("{{"):
            return .string(
                parts(text).map { part in
                    switch part {
                    case .literal(let literal): literal
                    case .placeholder(let name, let kind): bindings[name] ?? "{{\(name)\(kind.map { ":" + $0 } ?? "")}}"
                    }
                }.joined())
        case .array(let items): return .array(items.map { substitute($0, bindings: bindings) })
        case .object(let members): return .object(members.mapValues { substitute($0, bindings: bindings) })
        default: return template
        }
    }

    /// The fixture's request as an `HTTPRequest` to `base` (scheme and host), with placeholders
    /// filled from `bindings`: what the sandbox direction sends to the emulated backend.
    /// - Parameters:
    ///   - fixture: The fixture.
    ///   - base: e.g. `https://app.dynamic.test`.
    ///   - bindings: Values for the placeholders.
    ///   - body: A replacement body (a recipe's variant), or `nil` for the fixture's.
    ///   - headers: Extra or replacement headers.
    package static func httpRequest(
        _ fixture: ContractFixture, base: URL, bindings: Bindings, body: JSONValue? = nil,
        headers: [String: String] = [:]
    ) -> HTTPRequest {
        let path = substitute(.string(fixture.path), bindings: bindings).stringValue ?? fixture.path
        var text = base.absoluteString + path
        if let query = fixture.query, !query.isEmpty {
            text +=
                "?"
                + query.keys.sorted().map { key in
                    "\(key)=\(substitute(query[key]!, bindings: bindings).stringValue ?? "")"
                }.joined(separator: "&")
        }
        var allHeaders: [String: String] = [:]
        for (name, value) in fixture.headers { allHeaders[name] = substitute(value, bindings: bindings).stringValue }
        for (name, value) in headers { allHeaders[name] = value }
        let payload = (body ?? fixture.body).map { substitute($0, bindings: bindings) }
        let data = payload.flatMap { $0 == .null ? nil : try? JSONEncoder.multiAuth.encode($0) }
        return HTTPRequest(
            method: HTTPMethod(rawValue: fixture.method), url: URL(string: text)!, headers: allHeaders, body: data)
    }
}
