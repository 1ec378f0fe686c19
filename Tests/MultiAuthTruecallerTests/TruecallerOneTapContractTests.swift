import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthSandbox
import MultiAuthTestKeys
import Testing

@testable import MultiAuthTruecaller

/// The one-tap envelope contract (`Tests/Fixtures/Contracts/Truecaller/OneTap`: TrueSDK 0.1.8's
/// `TCTrueProfileRequest`, `TCTrueProfileResponse`, `TCError` and hand-off URL; archives written
/// by Python's plistlib, an independent writer) holds in both directions: the adapter's request
/// is the fixture's field for field and it reads the fixture's returns; the emulated Truecaller
/// app accepts the fixture's request and answers in the fixture's shape. Renaming any fixture
/// field breaks a check.
@Suite(.timeLimit(.minutes(10)))
struct TruecallerOneTapContractTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Contracts/Truecaller/OneTap")
    static let contract: JSONValue = try! load("handoff.json")
    static let archives: JSONValue = try! load("archives.json")

    static func load(_ name: String) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(contentsOf: directory.appendingPathComponent(name)))
    }

    @Test func theContractHoldsInBothDirections() async {
        let failures = await Self.check(Self.contract)
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }

    @Test func renamingAnyFixtureFieldBreaksACheck() async {
        var renamings = 0
        var unnoticed: [String] = []
        for (path, rename) in Self.renamings(Self.contract) {
            renamings += 1
            if await Self.check(rename).isEmpty { unnoticed.append(path) }
        }
        #expect(renamings >= 20)
        #expect(unnoticed.isEmpty, "renamed without a failing check: \(unnoticed)")
    }

    /// Every fixture with one field key renamed (request fields, each return's fields, the
    /// configuration and the archive header).
    static func renamings(_ contract: JSONValue) -> [(String, JSONValue)] {
        guard let root = contract.objectValue else { return [] }
        var out: [(String, JSONValue)] = []
        func renamed(_ object: [String: JSONValue], _ key: String) -> [String: JSONValue] {
            var copy = object
            copy[key + "_renamed"] = copy.removeValue(forKey: key)
            return copy
        }
        let request = root["request"]?.objectValue ?? [:]
        for key in (request["fields"]?.objectValue ?? [:]).keys.sorted() {
            var changed = request
            changed["fields"] = .object(renamed(request["fields"]?.objectValue ?? [:], key))
            var copy = root
            copy["request"] = .object(changed)
            out.append(("request.fields.\(key)", .object(copy)))
        }
        for key in ["$archiver", "$version"] {
            var changed = request
            changed["archive"] = .object(renamed(request["archive"]?.objectValue ?? [:], key))
            var copy = root
            copy["request"] = .object(changed)
            out.append(("request.archive.\(key)", .object(copy)))
        }
        for key in ["url", "queryItem"] {
            var copy = root
            copy["request"] = .object(renamed(request, key))
            out.append(("request.\(key)", .object(copy)))
        }
        let returns = root["returns"]?.arrayValue ?? []
        for (index, item) in returns.enumerated() {
            let object = item.objectValue ?? [:]
            for key in (object["fields"]?.objectValue ?? [:]).keys.sorted() {
                var changed = object
                changed["fields"] = .object(renamed(object["fields"]?.objectValue ?? [:], key))
                var list = returns
                list[index] = .object(changed)
                var copy = root
                copy["returns"] = .array(list)
                out.append(("returns[\(index)].fields.\(key)", .object(copy)))
            }
            for key in ["queryItem"] {
                var list = returns
                list[index] = .object(renamed(object, key))
                var copy = root
                copy["returns"] = .array(list)
                out.append(("returns[\(index)].\(key)", .object(copy)))
            }
        }
        return out
    }

    // MARK: The checks

    static func check(_ contract: JSONValue) async -> [String] {
        var failures: [String] = []
        do {
            failures += try await adapterRequest(contract)
            failures += try await adapterReturns(contract)
            failures += try sandboxRequest(contract)
            failures += try sandboxReturns(contract)
        } catch {
            failures.append("the check threw \(error)")
        }
        return failures
    }

    static func configuration(_ contract: JSONValue) throws -> (TruecallerConfiguration, nonce: String) {
        let values = contract["configuration"]?.objectValue ?? [:]
        var configuration = try TruecallerConfiguration.sandbox(
            appKey: values["appKey"]?.stringValue ?? "", appLink: URL(string: values["appLink"]?.stringValue ?? "")!)
        configuration.bundleID = values["bundleID"]?.stringValue
        configuration.appName = values["appName"]?.stringValue
        configuration.oneTapTitleType = values["titleType"]?.int64Value.map(Int.init) ?? 0
        configuration.oneTapLocale = values["locale"]?.stringValue ?? ""
        return (configuration, values["requestNonce"]?.stringValue ?? "")
    }

    /// The adapter's hand-off URL, read back: URL, item, base64 lines, archive header, class
    /// chain and every field, equal to the fixture's.
    static func adapterRequest(_ contract: JSONValue) async throws -> [String] {
        var failures: [String] = []
        let (configuration, nonce) = try configuration(contract)
        let provider = TruecallerProvider(configuration: configuration, app: .installed)
        let sandbox = Sandbox(seed: 1)
        let step = try await provider.start(
            .truecallerOneTap(options: [TruecallerProvider.requestNonceOption: nonce]),
            context: AuthContext(transport: sandbox.transport, time: sandbox.time))
        guard case .oauthRedirect(let url)? = step.challenge?.kind else { return ["adapter: no hand-off challenge"] }
        let request = contract["request"]?.objectValue ?? [:]
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let items = components?.queryItems ?? []
        components?.queryItems = nil
        if components?.url?.absoluteString != request["url"]?.stringValue {
            failures.append("adapter: the hand-off goes to \(components?.url?.absoluteString ?? "-")")
        }
        guard items.count == 1, let item = items.first, item.name == request["queryItem"]?.stringValue,
            let text = item.value
        else { return failures + ["adapter: the hand-off URL's item is \(items.map(\.name))"] }
        let base64 = request["base64"]?.objectValue ?? [:]
        let separator = base64["lineSeparator"]?.stringValue ?? "?"
        let length = base64["lineLength"]?.int64Value.map(Int.init) ?? 0
        let lines = text.components(separatedBy: separator)
        if lines.count < 2 || lines.dropLast().contains(where: { $0.count != length }) || lines.last!.count > length {
            failures.append("adapter: the base64 is not in \(length)-character lines")
        }
        let bytes = try Base64.decode(lines.joined())
        guard case .dictionary(let top) = try BinaryPropertyList.decode(bytes) else {
            return failures + ["adapter: not a property list dictionary"]
        }
        let archive = request["archive"]?.objectValue ?? [:]
        if top["$archiver"]?.stringValue != archive["$archiver"]?.stringValue
            || top["$version"]?.integerValue != archive["$version"]?.int64Value
        {
            failures.append("adapter: the archive header differs")
        }
        let object = try KeyedArchive.decode(bytes)
        if object.classes != (archive["classes"]?.arrayValue ?? []).compactMap(\.stringValue) {
            failures.append("adapter: the class chain is \(object.classes)")
        }
        failures += compare(object.fields, exactly: request["fields"]?.objectValue ?? [:], side: "adapter")
        return failures
    }

    /// Field for field: strings equal strings, integers equal integers; no key missing or extra.
    static func compare(
        _ fields: [String: KeyedArchiveObject.Field], exactly expected: [String: JSONValue], side: String
    )
        -> [String]
    {
        var failures: [String] = []
        if Set(fields.keys) != Set(expected.keys) {
            failures.append(
                "\(side): the fields are \(fields.keys.sorted()), the fixture lists \(expected.keys.sorted())")
        }
        for (key, value) in expected {
            switch value {
            case .string(let text) where fields[key]?.stringValue != text:
                failures.append("\(side): \(key) differs")
            case .number where fields[key]?.integerValue != value.int64Value:
                failures.append("\(side): \(key) differs")
            default: break
            }
        }
        return failures
    }

    /// The adapter reads the fixture's (Python-written) return archives: the response's four
    /// strings, the error's code mapped.
    static func adapterReturns(_ contract: JSONValue) async throws -> [String] {
        var failures: [String] = []
        let (configuration, _) = try configuration(contract)
        for item in contract["returns"]?.arrayValue ?? [] {
            let name = item["name"]?.stringValue ?? "?"
            let source = name == "response" ? "response" : "error"
            let link = try returnLink(
                configuration, via: item["via"]?.stringValue ?? "", item: item["queryItem"]?.stringValue ?? "",
                archive: archives[source]?["archive"]?.stringValue ?? "")
            let written = try KeyedArchive.decode(try Base64.decode(archives[source]?["archive"]?.stringValue ?? ""))
            failures += shape(written, item["fields"]?.objectValue ?? [:], side: "adapter: \(name) (fixture archive)")
            let provider = TruecallerProvider(configuration: configuration)
            guard provider.canHandle(link) else {
                failures.append("adapter: \(name): the return link is not claimed")
                continue
            }
            do {
                let parsed = try TruecallerOneTapEnvelope.parse(link)
                switch (parsed, item["expect"]?.stringValue) {
                case (.response(let response), "parsed"):
                    let fields = archives["response"]?["fields"]?.objectValue ?? [:]
                    let read = [
                        "payload": response.payload.reveal(), "signature": response.signature.reveal(),
                        "signatureAlgorithm": response.signatureAlgorithm,
                        "requestNonce": response.requestNonce.reveal(),
                    ]
                    for key in (item["fields"]?.objectValue ?? [:]).keys where read[key] != fields[key]?.stringValue {
                        failures.append("adapter: \(name): \(key) was not read")
                    }
                case (.error(let code), let expected?):
                    let error = code.authError()
                    if error.code.rawValue != expected || error.providerCode != item["providerCode"]?.stringValue {
                        failures.append("adapter: \(name): mapped to \(error.code) \(error.providerCode ?? "-")")
                    }
                default:
                    failures.append("adapter: \(name): read as \(parsed)")
                }
            } catch {
                failures.append("adapter: \(name): \(error)")
            }
        }
        return failures
    }

    static func returnLink(_ configuration: TruecallerConfiguration, via: String, item: String, archive: String)
        throws -> URL
    {
        var components =
            via == "urlScheme"
            ? URLComponents(string: "truecallersdk-\(configuration.appKey.reveal())://")!
            : URLComponents(url: configuration.appLink, resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: item, value: TruecallerOneTapEnvelope.lines(archive))]
        return components.url!
    }

    /// The emulated Truecaller app accepts the fixture's (Python-written) request and judges
    /// the adapter's the same way: an approval, not an error link.
    static func sandboxRequest(_ contract: JSONValue) throws -> [String] {
        let request = contract["request"]?.objectValue ?? [:]
        let fields = request["fields"]?.objectValue ?? [:]
        // The fixture's field list must be the emulator's, and the Python archive's fields the fixture's.
        var failures: [String] = []
        if Set(fields.keys) != TruecallerAppEmulator.requestKeys {
            failures.append("sandbox: the emulator reads \(TruecallerAppEmulator.requestKeys.sorted())")
        }
        let python = try KeyedArchive.decode(try Base64.decode(archives["request"]?["archive"]?.stringValue ?? ""))
        failures += compare(python.fields, exactly: fields, side: "sandbox (fixture archive)")
        var components = URLComponents(string: request["url"]?.stringValue ?? "")
        components?.queryItems = [
            URLQueryItem(
                name: request["queryItem"]?.stringValue ?? "",
                value: TruecallerOneTapEnvelope.lines(archives["request"]?["archive"]?.stringValue ?? ""))
        ]
        guard let url = components?.url else { return failures + ["sandbox: no hand-off URL"] }
        let backend = TruecallerBackend(signingKey: TestKeys.rsaA)
        do {
            let link = try backend.app.approve(url, now: Date(timeIntervalSince1970: 1_800_000_000))
            let items = URLComponents(url: link, resolvingAgainstBaseURL: false)?.queryItems ?? []
            if !items.contains(where: { $0.name == "response" }) {
                failures.append("sandbox: the fixture's request was answered with \(items.map(\.name))")
            }
        } catch {
            failures.append("sandbox: the fixture's request was refused: \(error)")
        }
        return failures
    }

    /// The emulated app's return links have the fixture's item, class chain and field keys.
    static func sandboxReturns(_ contract: JSONValue) throws -> [String] {
        var failures: [String] = []
        let (configuration, nonce) = try configuration(contract)
        let envelope = TruecallerOneTapEnvelope.Request(
            appID: configuration.bundleID, appKey: configuration.appKey.reveal(),
            appLink: configuration.appLink.absoluteString,
            appName: configuration.appName, requestNonce: nonce, titleType: configuration.oneTapTitleType,
            locale: configuration.oneTapLocale)
        let handoff = try TruecallerOneTapEnvelope.url(for: envelope, base: configuration.oneTapURL)
        let backend = TruecallerBackend(signingKey: TestKeys.rsaA)
        for item in contract["returns"]?.arrayValue ?? [] where item["via"]?.stringValue == "appLink" {
            let name = item["name"]?.stringValue ?? "?"
            let link =
                name == "response"
                ? try backend.app.approve(handoff, now: Date(timeIntervalSince1970: 1_800_000_000))
                : try backend.app.decline(handoff)
            let queryItem = item["queryItem"]?.stringValue ?? ""
            guard
                let value = URLComponents(url: link, resolvingAgainstBaseURL: false)?.queryItems?.first(where: {
                    $0.name == queryItem
                })?.value
            else {
                failures.append("sandbox: \(name): no \(queryItem) item")
                continue
            }
            let compact = value.filter { !$0.isWhitespace }
            let object = try KeyedArchive.decode(try Base64.decode(compact))
            if object.classes != (item["classes"]?.arrayValue ?? []).compactMap(\.stringValue) {
                failures.append("sandbox: \(name): the class chain is \(object.classes)")
            }
            failures += shape(object, item["fields"]?.objectValue ?? [:], side: "sandbox: \(name)")
        }
        return failures
    }

    /// Exactly the fixture's field keys, each of the fixture's kind (`string`, `integer`, `dictionary`).
    static func shape(_ object: KeyedArchiveObject, _ expected: [String: JSONValue], side: String) -> [String] {
        var failures: [String] = []
        if Set(object.fields.keys) != Set(expected.keys) {
            failures.append("\(side): the fields are \(object.fields.keys.sorted())")
        }
        for (key, kind) in expected {
            let ok: Bool
            switch (kind.stringValue, object.fields[key]) {
            case ("string", .string?), ("integer", .integer?), ("integer", .inlineInteger?),
                ("dictionary", .dictionary?):
                ok = true
            default: ok = false
            }
            if !ok { failures.append("\(side): \(key) is not a \(kind.stringValue ?? "?")") }
        }
        return failures
    }
}
