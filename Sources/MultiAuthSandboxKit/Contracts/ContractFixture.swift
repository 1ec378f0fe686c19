import Foundation
import MultiAuth
import MultiAuthCrypto

/// One contract fixture: a request an adapter must send to one endpoint and the responses the
/// real server answers it with, reconstructed from the provider's own SDK (each provider's
/// `Tests/Fixtures/Contracts/<Provider>/README.md` names the source of every fixture).
///
/// The document is a JSON object:
/// ```json
/// { "endpoint": "email-create", "method": "POST", "host": "app.dynamicauth.com",
///   "path": "/api/v0/sdk/{{env}}/emailVerifications/create",
///   "request": { "headers": {"Content-Type": "application/json"}, "query": {…}, "body": {"email": "ada@example.com"} },
///   "responses": [ { "name": "created", "status": 201, "body": {…}, "expect": "challenge",
///                    "sandbox": "as-is", "optional": ["user.sessionId"], "unread": ["error"] } ] }
/// ```
/// - Values are literals, or placeholders `{{name}}` (any non-empty string, the same wherever
///   the name recurs) and `{{name:uuid}}` (a lower-case UUID).
/// - `request.headers` lists the headers that must be present (names compared
///   case-insensitively); `request.body` and `request.query` must match **key for key**: a
///   missing or an extra key fails.
/// - A response's `sandbox` names how the emulated backend is made to produce it (a recipe the
///   provider's contract test knows) or is `null` when it cannot; `optional` lists dotted paths
///   (`[]` for array elements) the backend may leave out; `unread` lists fields of a response
///   the backend cannot produce that the adapter does not read (a test proves the adapter's
///   result does not change when they are renamed).
///
/// Test support for the contract tests: `package`, not public API.
package struct ContractFixture: Sendable, CustomStringConvertible {
    /// The file name without extension, e.g. `"email-create"`.
    package let name: String
    /// The whole document (mutable, for the rename check).
    package var document: JSONValue

    /// Creates a fixture from its document.
    package init(name: String, document: JSONValue) {
        self.name = name
        self.document = document
    }

    /// Every `*.json` fixture in `directory`, sorted by name.
    /// - Throws: when the directory or a file cannot be read or parsed.
    package static func load(directory: URL) throws -> [ContractFixture] {
        let files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "json" }.sorted { $0.lastPathComponent < $1.lastPathComponent }
        return try files.map { url in
            ContractFixture(
                name: url.deletingPathExtension().lastPathComponent,
                document: try JSONDecoder().decode(JSONValue.self, from: Data(contentsOf: url)))
        }
    }

    /// The fixture named `name` in `fixtures`.
    /// - Throws: `ContractError` when there is none.
    package static func named(_ name: String, in fixtures: [ContractFixture]) throws -> ContractFixture {
        guard let fixture = fixtures.first(where: { $0.name == name }) else {
            throw ContractError("no fixture \(name)")
        }
        return fixture
    }

    private var root: [String: JSONValue] { document.objectValue ?? [:] }
    private var request: [String: JSONValue] { root["request"]?.objectValue ?? [:] }

    /// The HTTP method, e.g. `POST`.
    package var method: String { root["method"]?.stringValue ?? "" }
    /// The production host the request goes to.
    package var host: String { root["host"]?.stringValue ?? "" }
    /// The path template.
    package var path: String { root["path"]?.stringValue ?? "" }
    /// The required headers.
    package var headers: [String: JSONValue] { request["headers"]?.objectValue ?? [:] }
    /// The query (key for key), or `nil` when the request has none.
    package var query: [String: JSONValue]? { request["query"]?.objectValue }
    /// The body (key for key), or `nil` when the request has none.
    package var body: JSONValue? { request["body"] }
    /// The responses.
    package var responses: [ContractResponse] {
        (root["responses"]?.arrayValue ?? []).enumerated().map {
            ContractResponse(index: $0.offset, object: $0.element.objectValue ?? [:])
        }
    }
    /// The response named `name`.
    /// - Throws: `ContractError` when there is none.
    package func response(_ name: String) throws -> ContractResponse {
        guard let response = responses.first(where: { $0.name == name }) else {
            throw ContractError("\(self.name): no response \(name)")
        }
        return response
    }

    /// `name`.
    package var description: String { name }

    // MARK: The rename check

    /// Where a renameable field lives.
    package enum FieldLocation: Sendable, Hashable {
        /// A request header name.
        case header
        /// A query parameter.
        case query
        /// A key of the request body (dotted path).
        case body
        /// A key of response `index`'s body (dotted path).
        case response(Int)
    }

    /// One renameable field.
    package struct Field: Sendable, Hashable, CustomStringConvertible {
        /// Where it lives.
        package let location: FieldLocation
        /// Its dotted path (`[]` for array elements).
        package let path: String
        /// e.g. `response[1] user.email`.
        package var description: String {
            switch location {
            case .header: "header \(path)"
            case .query: "query \(path)"
            case .body: "request \(path)"
            case .response(let index): "response[\(index)] \(path)"
            }
        }
    }

    /// Every field of the fixture: header names, query keys, request body keys and response
    /// body keys, nested ones included.
    package var fields: [Field] {
        var fields = headers.keys.sorted().map { Field(location: .header, path: $0) }
        fields += (query ?? [:]).keys.sorted().map { Field(location: .query, path: $0) }
        fields += Self.paths(in: body).map { Field(location: .body, path: $0) }
        for response in responses {
            fields += Self.paths(in: response.body).map { Field(location: .response(response.index), path: $0) }
        }
        return fields
    }

    /// This fixture with `field`'s key renamed (`<key>_renamed`).
    package func renaming(_ field: Field) -> ContractFixture {
        var copy = self
        var root = self.root
        switch field.location {
        case .header, .query, .body:
            var request = self.request
            let key = field.location == .header ? "headers" : field.location == .query ? "query" : "body"
            if let value = request[key] { request[key] = Self.rename(field.path, in: value) }
            root["request"] = .object(request)
        case .response(let index):
            var list = root["responses"]?.arrayValue ?? []
            if var response = list[index].objectValue, let value = response["body"] {
                response["body"] = Self.rename(field.path, in: value)
                list[index] = .object(response)
            }
            root["responses"] = .array(list)
        }
        copy.document = .object(root)
        return copy
    }

    /// The dotted paths of every key in `value`; an array's elements contribute their keys
    /// under `<key>[]` (`[]` alone for a top-level array).
    static func paths(in value: JSONValue?, prefix: String = "") -> [String] {
        switch value {
        case .object(let members)?:
            return members.keys.sorted().flatMap { key -> [String] in
                let path = join(prefix, key)
                return [path] + paths(in: members[key], prefix: path)
            }
        case .array(let items)?:
            return Array(Set(items.flatMap { paths(in: $0, prefix: prefix + "[]") })).sorted()
        default:
            return []
        }
    }

    /// `prefix.key`, or `key` at the top.
    static func join(_ prefix: String, _ key: String) -> String { prefix.isEmpty ? key : prefix + "." + key }

    /// `value` with the key at `path` renamed to `<key>_renamed` (in every array element).
    static func rename(_ path: String, in value: JSONValue) -> JSONValue {
        var tokens: [String] = []
        for part in path.components(separatedBy: ".") {
            if part == "[]" || part.hasPrefix("[]") {
                tokens.append("[]")
                if part.count > 2 { tokens.append(String(part.dropFirst(2))) }
            } else if part.hasSuffix("[]") {
                tokens += [String(part.dropLast(2)), "[]"]
            } else {
                tokens.append(part)
            }
        }
        return rename(tokens[...], in: value)
    }

    private static func rename(_ tokens: ArraySlice<String>, in value: JSONValue) -> JSONValue {
        guard let token = tokens.first else { return value }
        if token == "[]" {
            guard case .array(let items) = value else { return value }
            return .array(items.map { rename(tokens.dropFirst(), in: $0) })
        }
        guard case .object(var members) = value else { return value }
        if tokens.count == 1 {
            if let moved = members.removeValue(forKey: token) { members[token + "_renamed"] = moved }
            return .object(members)
        }
        guard let child = members[token] else { return value }
        members[token] = rename(tokens.dropFirst(), in: child)
        return .object(members)
    }
}

/// One response of a ``ContractFixture``.
package struct ContractResponse: Sendable {
    /// Its position in the fixture.
    package let index: Int
    /// A short name, e.g. `"wrong code"`.
    package let name: String
    /// The HTTP status.
    package let status: Int
    /// Response headers (e.g. `Retry-After`).
    package let headers: [String: String]
    /// The JSON body, or `nil` for none.
    package let body: JSONValue?
    /// What the adapter must make of it: `"challenge"`, `"session"`, `"success"`, or
    /// `{"error": "<AuthError.Code>", "providerCode": "<raw>"}`.
    package let expect: JSONValue
    /// The sandbox recipe, or `nil` when the backend cannot produce this response.
    package let sandboxRecipe: String?
    /// Dotted paths the backend may leave out.
    package let optional: Set<String>
    /// Fields the adapter does not read, in a response the backend cannot produce.
    package let unread: Set<String>

    init(index: Int, object: [String: JSONValue]) {
        self.index = index
        name = object["name"]?.stringValue ?? "response \(index)"
        status = object["status"]?.int64Value.map(Int.init) ?? 0
        headers = (object["headers"]?.objectValue ?? [:]).compactMapValues(\.stringValue)
        body = object["body"]
        expect = object["expect"] ?? .null
        sandboxRecipe = object["sandbox"]?.stringValue
        optional = Set((object["optional"]?.arrayValue ?? []).compactMap(\.stringValue))
        unread = Set((object["unread"]?.arrayValue ?? []).compactMap(\.stringValue))
    }

    /// The expected `AuthError.Code`, when the response is an error.
    package var expectedError: AuthError.Code? {
        expect.objectValue?["error"]?.stringValue.map(AuthError.Code.init(rawValue:))
    }
    /// The expected raw provider code, when given.
    package var expectedProviderCode: String? { expect.objectValue?["providerCode"]?.stringValue }
    /// The expected success kind (`"challenge"`, `"session"`, `"success"`), when not an error.
    package var expectedStep: String? { expect.stringValue }

    /// The response as the real server would send it (the body with placeholders filled from
    /// `bindings`, unbound ones left as their names).
    package func httpResponse(bindings: [String: String] = [:]) -> HTTPResponse {
        var headers = self.headers
        var data = Data()
        if let body {
            data = (try? JSONEncoder.multiAuth.encode(ContractMatch.substitute(body, bindings: bindings))) ?? Data()
            headers["Content-Type"] = "application/json"
        }
        return HTTPResponse(status: status, headers: headers, body: data)
    }
}

/// A contract check failure that is not a mismatch (a missing fixture, an unknown recipe).
package struct ContractError: Error, CustomStringConvertible {
    /// What went wrong.
    package let description: String
    /// Creates an error.
    package init(_ description: String) { self.description = description }
}
