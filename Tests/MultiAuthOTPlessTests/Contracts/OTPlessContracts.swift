import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthSandboxKit

/// The OTPLESS contract fixtures of `Tests/Fixtures/Contracts/OTPless` (see the README there),
/// read as the shared `ContractFixture`: the request an endpoint must receive and the responses
/// the real server gives, reconstructed from the real SDK. Beside the shared keys, an OTPLESS
/// request lists `jsonStrings`, `free`, `constants` and `optional` key paths, and a response
/// `free` ones (``Contract/Rules``); a `host` of `*` (the carrier) is any host.
enum OTPlessContracts {
    /// The fixture directory.
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appending(path: "Fixtures/Contracts/OTPless")

    /// Every fixture, sorted by name.
    static let fixtures: [ContractFixture] = (try? ContractFixture.load(directory: directory)) ?? []

    /// The names of every fixture (file names without `.json`), sorted.
    static let names: [String] = fixtures.map(\.name)

    /// Fixture `name`.
    static func fixture(_ name: String) throws -> ContractFixture { try ContractFixture.named(name, in: fixtures) }
}

extension ContractFixture {
    /// The `endpoint` the document names (its file name).
    var endpoint: String { document["endpoint"]?.stringValue ?? "" }

    /// The comparison rules of the request.
    var requestRules: Contract.Rules {
        let request = document["request"]
        return Contract.Rules(
            optional: Self.strings(request?["optional"]), free: Self.strings(request?["free"]),
            jsonStrings: Self.strings(request?["jsonStrings"]), constants: Self.strings(request?["constants"]))
    }

    /// The request's `free` key paths (objects whose keys vary by device or merchant).
    var requestFree: [String] { Self.strings(document["request"]?["free"]).sorted() }

    /// The `free` key paths of `response`.
    func free(of response: ContractResponse) -> [String] {
        Self.strings(document["responses"]?.arrayValue?[response.index]["free"]).sorted()
    }

    /// This fixture with the request's `key` (`headers`, `query` or `body`) replaced by `value`.
    func settingRequest(_ key: String, to value: JSONValue) -> ContractFixture {
        guard case .object(var root) = document, case .object(var request)? = root["request"] else { return self }
        request[key] = value
        root["request"] = .object(request)
        var copy = self
        copy.document = .object(root)
        return copy
    }

    private static func strings(_ value: JSONValue?) -> Set<String> {
        Set((value?.arrayValue ?? []).compactMap(\.stringValue))
    }
}

extension ContractResponse {
    /// The response as the transport would return it.
    var http: HTTPResponse { http(body: body ?? .object([:])) }

    /// The response with `body` in place of the fixture's (a test's variant).
    func http(body: JSONValue) -> HTTPResponse {
        var all = headers
        all["Content-Type"] = "application/json"
        return HTTPResponse(status: status, headers: all, body: (try? JSONEncoder().encode(body)) ?? Data())
    }
}
