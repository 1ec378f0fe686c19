import Foundation
import MultiAuthSandbox
import Testing

@testable import MultiAuth

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Breaker of the store's performance work: `SessionFileWriter` (hand-written JSON that must be
// `JSONEncoder.multiAuth`'s bytes), paths computed once in `FileSessionStore.init` and the last
// provider's path remembered, `createDirectory` skipped for an existing directory, and `load`
// decoding in one pass (`StoredFile`) where it decoded a header and then the envelope.

@Suite("breaker: session file writer and store paths", .timeLimit(.minutes(10)))
struct BreakerPerfStoreTests {
    // MARK: - Helpers

    static func plain(_ provider: AuthProviderID = "p", id: String = "s") -> AuthSession {
        AuthSession(
            id: id, provider: provider, user: AuthUser(id: "u"),
            credentials: Credentials(accessToken: "a", refreshToken: "r"),
            createdAt: Date(timeIntervalSince1970: 1_700_000_000.25))
    }

    /// The writer's bytes, or `nil` when it leaves the session to `JSONEncoder`.
    static func written(_ session: AuthSession) -> [UInt8]? {
        SessionFileWriter.encode(session, format: FileSessionStore.formatName, version: FileSessionStore.formatVersion)
    }

    /// Where the store's bytes differ from `JSONEncoder.multiAuth`'s, or `nil`.
    static func difference(_ session: AuthSession) throws -> String? {
        let reference = try FileSessionStore.encodeWithJSONEncoder(session)
        let bytes = try FileSessionStore.encode(session)
        guard bytes != reference else { return nil }
        let offset =
            zip(bytes, reference).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            ?? min(bytes.count, reference.count)
        func around(_ b: [UInt8]) -> String {
            String(decoding: b[max(0, offset - 30)..<min(b.count, offset + 30)], as: UTF8.self).debugDescription
        }
        return "byte \(offset) of \(reference.count): store \(around(bytes)), JSONEncoder \(around(reference))"
    }

    /// A dictionary of `pairs` (later pairs win; literals trap on duplicate keys).
    static func dictionary(_ pairs: [(String, String)]) -> [String: String] {
        var result: [String: String] = [:]
        for (key, value) in pairs { result[key] = value }
        return result
    }

    /// `session` with its dates rounded to the millisecond, as a load returns it.
    static func rounded(_ session: AuthSession) -> AuthSession {
        var expected = session
        expected.createdAt = session.createdAt.roundedToMilliseconds
        expected.maximumLifetimeEndsAt = session.maximumLifetimeEndsAt?.roundedToMilliseconds
        expected.credentials.expiresAt = session.credentials.expiresAt?.roundedToMilliseconds
        return expected
    }

    // MARK: - Writer

    /// Each byte that needs escaping (and a few that do not) at every offset of strings of 1 to
    /// 40 bytes, so it falls in every lane of the eight-byte scan and in the byte-by-byte tail.
    static func alignmentStrings() -> [String] {
        let specials: [String] = [
            "\u{0}", "\u{1}", "\u{8}", "\u{9}", "\u{A}", "\u{C}", "\u{D}", "\u{1F}", "\"", "\\", "/", " ", "\u{7F}",
            "é", "\u{FFFF}", "\u{FEFF}", "😀", "!", "#", "[", "]", "|", "\u{80}",
        ]
        var strings: [String] = []
        for special in specials {
            for length in [1, 7, 8, 9, 15, 16, 17, 24, 40] {
                for position in 0..<length {
                    var scalars = Array(repeating: "x", count: length)
                    scalars[position] = special
                    strings.append(scalars.joined())
                }
            }
        }
        // Bytes 0x20...0x7E next to each other: a quote or backslash just after a byte that
        // borrows in the SWAR test (0x21 after 0x20, 0x5D after 0x5C, 0x23 after 0x22).
        strings.append(String(String.UnicodeScalarView((0x00...0x7F).map { Unicode.Scalar(UInt8($0)) })))
        strings.append(String(String.UnicodeScalarView((0x00...0x7F).reversed().map { Unicode.Scalar(UInt8($0)) })))
        for byte in 0x20...0x7E {
            let c = String(Unicode.Scalar(UInt8(byte)))
            strings.append(String(repeating: c + "\"" + c + "\\", count: 5))
            strings.append(String(repeating: "\u{1F}" + c, count: 9))
        }
        return strings
    }

    @Test(
        "every escape-worthy byte at every offset (eight-byte lanes and the tail) is written as JSONEncoder writes it")
    func escapesAtEveryOffsetMatchJSONEncoder() throws {
        var failures = 0
        for text in Self.alignmentStrings() {
            var session = Self.plain()
            session.id = text
            session.user.attributes = [text: text]
            session.credentials.scopes = [text, text + text]
            if let difference = try Self.difference(session) {
                failures += 1
                Issue.record("\(text.debugDescription): \(difference)")
                if failures > 5 { return }
            }
        }
    }

    @Test(
        "strings over 64 KB, NUL, U+FFFF, U+FEFF, quotes in keys, empty ids and many keys are written as JSONEncoder writes them"
    )
    func hostileSessionsMatchJSONEncoder() throws {
        var sessions: [(String, AuthSession)] = []
        let long = String(repeating: "abc/\"\\\u{0}é😀", count: 9_000)  // > 64 KB of UTF-8
        var big = Self.plain()
        big.credentials.accessToken = Secret(long)
        big.credentials.idToken = Secret(String(repeating: "x", count: 70_001))
        big.user.attributes = [long: long]
        sessions.append(("> 64 KB", big))
        for text in [
            "\u{0}", "\u{FFFF}", "\u{FEFF}", "\u{FEFF}{", "\"", "\"\"", "", "a\u{0}b", "\u{10FFFF}", "\u{D7FF}",
        ] {
            var session = Self.plain(AuthProviderID(text), id: text)
            session.user = AuthUser(
                id: text, identities: [.init(kind: text, value: text, verified: true)], attributes: [text: text])
            session.credentials = Credentials(
                accessToken: Secret(text), idToken: Secret(text), refreshToken: Secret(text), tokenType: text,
                scopes: [text],
                extra: ProviderState(Self.dictionary([(text, text), ("\"" + text, text), (text + "\"", "")])))
            sessions.append((text.debugDescription, session))
        }
        for provider in ["", "/", "..", "../..", "a/b", ".", "%2F", "~", "\\", "..%2F"] {
            sessions.append(("provider \(provider)", Self.plain(AuthProviderID(provider))))
        }
        var many = Self.plain()
        var values: [String: String] = [:]
        for index in 0..<2_000 { values["k\(index)"] = "v\(index)" }
        for index in 0..<200 { values[String(repeating: "k", count: index)] = "\(index)" }
        values["K"] = "upper"
        values["\u{0}"] = "nul"
        values["\u{7F}"] = "del"
        values["\u{10FFFF}"] = "max"
        values["\u{FFFF}"] = "ffff"
        values["\u{E000}"] = "private"
        many.credentials.extra = ProviderState(values)
        many.user.attributes = values
        sessions.append(("many keys", many))
        // Names and identities.
        var named = Self.plain()
        named.user.name = try PersonName(firstName: "Zoë \"Z\"", lastName: "O'Brien\\/")
        named.user.email = try EmailAddress("o'brien+tag/x@example.com")
        named.user.phone = try PhoneNumber("+390612345678")
        sessions.append(("name, e-mail, phone", named))
        var firstOnly = Self.plain()
        firstOnly.user.name = try PersonName(firstName: "日本")
        sessions.append(("first name only", firstOnly))
        for (name, session) in sessions {
            let difference = try Self.difference(session)
            #expect(difference == nil, "\(name): \(difference ?? "")")
        }
    }

    static let briefDates: [Double] = [
        0.0005, -0.0005, 0.0004999, -0.0004999, 0.0015, -0.0015, 1e-300, -1e-300, Double.leastNonzeroMagnitude,
        9.999999e11, -9.999999e11,
        999_999_999_999.9994, 999_999_999_999.9996, -999_999_999_999.9996, 1e12 - 0.001, 0.1 + 0.2,
        1_700_000_000.0004999,
        1_700_000_000.9995, 4_102_444_800.0005, -62_135_596_800.0005, 978_307_200, 978_307_200.0005,
        Double(Int32.max), Double(Int32.min), 86_400 * 365.25 * 10_000,
    ]

    @Test("dates near the millisecond and the 10^12-second edge, tiny and huge: the store's bytes are JSONEncoder's")
    func briefDatesMatchJSONEncoder() throws {
        for time in Self.briefDates {
            for variant in 0..<3 {
                let date = Date(timeIntervalSince1970: time)
                var session = Self.plain()
                switch variant {
                case 0: session.createdAt = date
                case 1: session.maximumLifetimeEndsAt = date
                default: session.credentials.expiresAt = date
                }
                let difference = try Self.difference(session)
                #expect(difference == nil, "\(time) (\(variant)): \(difference ?? "")")
            }
        }
        for date in [
            Date(timeIntervalSinceReferenceDate: -0.0005), Date(timeIntervalSinceReferenceDate: 0.0005),
            Date(timeIntervalSinceReferenceDate: -978_307_200.0005), Date.distantPast, Date.distantFuture,
        ] {
            var session = Self.plain()
            session.createdAt = date
            #expect(try Self.difference(session) == nil, "\(date.timeIntervalSince1970)")
        }
    }

    @Test("non-finite and overflowing dates: the store refuses to encode, as JSONEncoder does")
    func nonFiniteDatesAreRefused() {
        for time in [Double.nan, .infinity, -.infinity, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 1e306] {
            var session = Self.plain()
            session.credentials.expiresAt = Date(timeIntervalSince1970: time)
            let reference = Result { try FileSessionStore.encodeWithJSONEncoder(session) }
            let store = Result { try FileSessionStore.encode(session) }
            switch (reference, store) {
            case (.success(let a), .success(let b)): #expect(a == b, "\(time)")
            case (.failure, .failure): break
            default: Issue.record("\(time): JSONEncoder \(reference), store \(store)")
            }
        }
    }

    @Test("a file written then loaded is the session (dates rounded), and a file JSONEncoder wrote loads the same")
    func roundTripAndOldFiles() async throws {
        let directory = ScratchDirectory("breaker-rt")
        defer { directory.remove() }
        let store = try FileSessionStore(directory: directory.url)
        var sessions: [AuthSession] = []
        for text in ["\u{0}", "\u{FFFF}", "\u{FEFF}", "\"", "", "a/b", "..", "é", "e\u{301}"] {
            var session = Self.plain(AuthProviderID("p" + text), id: text)
            session.user.attributes = Self.dictionary([(text, text), ("\"", text)])
            session.credentials.extra = ProviderState([text: text])
            sessions.append(session)
        }
        for (index, time) in Self.briefDates.enumerated() {
            var session = Self.plain(AuthProviderID("date\(index)"))
            session.createdAt = Date(timeIntervalSince1970: time)
            session.credentials.expiresAt = Date(timeIntervalSince1970: time)
            sessions.append(session)
        }
        var big = Self.plain("big")
        big.credentials.accessToken = Secret(String(repeating: "\u{0}é/\"", count: 40_000))
        sessions.append(big)
        for session in sessions {
            try await store.save(session)
            #expect(try await store.load(for: session.provider) == Self.rounded(session), "\(session.provider)")
            // A file of the previous version (JSONEncoder's bytes) at the same path.
            let old = try FileSessionStore.encodeWithJSONEncoder(session)
            try Data(old).write(to: store.fileURL(for: session.provider))
            #expect(try await store.load(for: session.provider) == Self.rounded(session), "old \(session.provider)")
        }
    }

    /// Was: `save` wrote a session of any size, but `load` refuses a file over
    /// `maximumFileSize` (1 MiB) as `storageUnavailable`, so a server that returned a 1.1 MB
    /// token got a session stored that the store could never read again. Now `save` and a
    /// writing `replace` refuse such a file before writing, and the stored session stays.
    @Test("a session the store saved is one it can load (no save of a file load refuses)")
    func savedSessionsAreLoadable() async throws {
        let directory = ScratchDirectory("breaker-big")
        defer { directory.remove() }
        let store = try FileSessionStore(directory: directory.url)
        let kept = Self.plain()
        try await store.save(kept)
        var session = Self.plain()
        session.id = "too-big"
        session.credentials.accessToken = Secret(String(repeating: "a", count: FileSessionStore.maximumFileSize + 1))
        await #expect(throws: AuthError.self) { try await store.save(session) }
        let result = try? await store.replace(kept, with: session, for: session.provider)
        #expect(result == nil, "a writing replace refuses it too")
        #expect(try await store.load(for: session.provider) == kept)
        // The largest session whose file fits is saved and loads back.
        var fitting = Self.plain()
        let overhead = try FileSessionStore.encode(fitting).count
        fitting.credentials.accessToken = Secret(
            String(repeating: "a", count: FileSessionStore.maximumFileSize - overhead))
        try await store.save(fitting)
        #expect(try await store.load(for: fitting.provider) == fitting)
    }

    // MARK: - Load: one pass against the two-pass reading it replaced

    private struct OldHeader: Decodable {
        var format: String?
        var version: Int?
    }

    private struct OldEnvelope: Decodable {
        var format: String
        var version: Int
        var session: AuthSession
    }

    /// The two-pass `decode` of ad2d1c1 (Sources/MultiAuth/Session/FileSessionStore.swift),
    /// as an outcome string.
    static func oldOutcome(_ data: Data, provider: AuthProviderID) -> String {
        let header = try? JSONDecoder().decode(OldHeader.self, from: data)
        guard let header, header.format == "multiauth.session" else {
            return "storageUnavailable: the session file is corrupt; underlying: false"
        }
        guard header.version == FileSessionStore.formatVersion else {
            return
                "storageUnavailable: the session file has format version \(header.version.map(String.init) ?? "?"), this build reads 1; underlying: false"
        }
        let session: AuthSession
        do {
            session = try JSONDecoder.multiAuth.decode(OldEnvelope.self, from: data).session
        } catch {
            return "storageUnavailable: the session file is corrupt; underlying: true"
        }
        guard session.provider == provider else {
            return "storageUnavailable: the session file holds another provider's session; underlying: false"
        }
        return "ok \(session.id)"
    }

    static func newOutcome(_ store: FileSessionStore, provider: AuthProviderID) async -> String {
        do {
            guard let session = try await store.load(for: provider) else { return "nil" }
            return "ok \(session.id)"
        } catch let error as AuthError {
            return "\(error.code.rawValue): \(error.message); underlying: \(error.underlying != nil)"
        } catch {
            return "\(error)"
        }
    }

    static func malformedFiles() throws -> [String] {
        let session = String(
            decoding: try JSONEncoder.multiAuth.encode(Self.plain(id: "good")), as: UTF8.self)
        let other = String(
            decoding: try JSONEncoder.multiAuth.encode(Self.plain("q", id: "other")), as: UTF8.self)
        let f = #""format":"multiauth.session""#
        var files = [
            "", " ", "null", "true", "1", "\"multiauth.session\"", "[]", "[{}]", "{}", "{", "}", "{\"format\":}",
            "{\(f)}", "{\(f),\"version\":1}", "{\(f),\"version\":1,\"session\":\(session)}",
            "{\"version\":1,\"session\":\(session)}", "{\"format\":null,\"version\":1,\"session\":\(session)}",
            "{\"format\":1,\"version\":1,\"session\":\(session)}",
            "{\"format\":[\"multiauth.session\"],\"version\":1,\"session\":\(session)}",
            "{\"format\":\"multiauth.Session\",\"version\":1,\"session\":\(session)}",
            "{\"format\":\"multiauth.session \",\"version\":1,\"session\":\(session)}",
            "{\(f),\"version\":\"1\",\"session\":\(session)}", "{\(f),\"version\":1.0,\"session\":\(session)}",
            "{\(f),\"version\":1.5,\"session\":\(session)}", "{\(f),\"version\":1e0,\"session\":\(session)}",
            "{\(f),\"version\":true,\"session\":\(session)}", "{\(f),\"version\":null,\"session\":\(session)}",
            "{\(f),\"version\":99999999999999999999,\"session\":\(session)}",
            "{\(f),\"version\":-1,\"session\":\(session)}", "{\(f),\"version\":2,\"session\":\(session)}",
            "{\(f),\"version\":0,\"session\":\(session)}", "{\(f),\"version\":2,\"session\":null}",
            "{\(f),\"version\":2}", "{\(f),\"session\":\(session)}", "{\(f),\"version\":1,\"session\":null}",
            "{\(f),\"version\":1,\"session\":{}}", "{\(f),\"version\":1,\"session\":[]}",
            "{\(f),\"version\":1,\"session\":\"x\"}", "{\(f),\"version\":1,\"session\":\(other)}",
            "{\(f),\"version\":1,\"session\":\(session),\"extra\":[1,2,{\"a\":null}]}",
            "{\"extra\":1,\(f),\"version\":1,\"session\":\(session)}",
            "{\(f),\"version\":1,\"session\":\(session)} trailing", "{\(f),\"version\":1,\"session\":\(session)}\n",
            "\u{FEFF}{\(f),\"version\":1,\"session\":\(session)}",
            "{\"format\":\"x\",\(f),\"version\":1,\"session\":\(session)}",
            "{\(f),\"format\":\"x\",\"version\":1,\"session\":\(session)}",
            "{\(f),\"version\":2,\"version\":1,\"session\":\(session)}",
            "{\(f),\"version\":1,\"version\":2,\"session\":\(session)}",
            "{\(f),\"version\":1,\"session\":null,\"session\":\(session)}",
            "{\(f),\"version\":1,\"session\":\(session),\"session\":null}",
            "{\(f),\"version\":1,\"session\":\(other),\"session\":\(session)}",
            "{\(f),\"version\":1,\"session\":\(String(session.dropLast()))}",
            "{\(f),\"version\":1,\"session\":\(session.replacingOccurrences(of: "\"createdAt\"", with: "\"created\""))}",
            "{\(f),\"version\":1,\"session\":\(session.replacingOccurrences(of: "1700000000.25", with: "\"2023-11-14T22:13:20.250Z\""))}",
            "{\(f),\"version\":1,\"session\":\(session.replacingOccurrences(of: "1700000000.25", with: "\"yesterday\""))}",
            "{\(f),\"version\":1,\"session\":\(session.replacingOccurrences(of: "1700000000.25", with: "1e400"))}",
            "{\"FORMAT\":\"multiauth.session\",\"version\":1,\"session\":\(session)}",
            "{\"format\":\"multiauth.session\\u0000\",\"version\":1,\"session\":\(session)}",
            "{\"form\\u0061t\":\"multiauth.session\",\"version\":1,\"session\":\(session)}",
        ]
        files.append(String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000))
        files.append("{\"x\":" + String(repeating: "[", count: 5_000) + String(repeating: "]", count: 5_000) + "}")
        return files
    }

    @Test("malformed session files: load's one-pass outcome equals the two-pass reading it replaced")
    func malformedFilesHaveTheOldOutcomes() async throws {
        let directory = ScratchDirectory("breaker-load")
        defer { directory.remove() }
        let store = try FileSessionStore(directory: directory.url)
        let provider: AuthProviderID = "p"
        var outcomes: Set<String> = []
        for file in try Self.malformedFiles() {
            let data = Data(file.utf8)
            try data.write(to: store.fileURL(for: provider))
            let new = await Self.newOutcome(store, provider: provider)
            let old = Self.oldOutcome(data, provider: provider)
            #expect(new == old, "\(file.prefix(160).debugDescription)")
            outcomes.insert(new)
        }
        // Every kind of outcome is reached: ok, corrupt with and without an underlying error,
        // another version (a number and "?"), another provider's session.
        #expect(outcomes.count >= 6, "\(outcomes.sorted())")
    }

    // MARK: - Paths, the remembered path, the directory

    @Test(
        "alternating providers, ids equal only as Strings, and ids with / or ..: each save, load and remove hits its own file"
    )
    func alternatingProvidersKeepTheirFiles() async throws {
        let directory = ScratchDirectory("breaker-paths")
        defer { directory.remove() }
        let store = try FileSessionStore(directory: directory.url)
        let providers: [AuthProviderID] = [
            "a", "b", "\u{E9}", "e\u{301}", "\u{212B}", "\u{C5}", "A\u{30A}", "", "..", "../a", "a/..", "/", "%2F", "A",
            "\u{FB01}", "fi",
        ]
        for round in 0..<3 {
            for (index, provider) in providers.enumerated() {
                try await store.save(Self.plain(provider, id: "\(index)-\(round)"))
            }
            for (index, provider) in providers.enumerated().reversed() {
                #expect(
                    try await store.load(for: provider)?.id == "\(index)-\(round)",
                    "\(provider.rawValue.unicodeScalars.map(\.value))")
                let path = store.fileURL(for: provider).path
                let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
                #expect(
                    [UInt8](bytes)
                        == (try FileSessionStore.encodeWithJSONEncoder(Self.plain(provider, id: "\(index)-\(round)"))))
            }
        }
        // Every file is in the directory itself: nothing escaped it.
        let names = try directory.names().filter { $0.hasSuffix(".session.json") }
        #expect(names.count == providers.count)
        try await store.remove(for: "\u{E9}")
        #expect(try await store.load(for: "e\u{301}")?.id == "3-2")
        #expect(try await store.load(for: "\u{E9}") == nil)
        try await store.remove(for: "e\u{301}")
        #expect(try await store.load(for: "e\u{301}") == nil)
        #expect(try await store.load(for: "a")?.id == "0-2")
    }

    @Test("a directory given with trailing slashes, ./ or .. components is the same directory for every operation")
    func directorySpellings() async throws {
        let directory = ScratchDirectory("breaker-spell")
        defer { directory.remove() }
        let base = try FileSessionStore(directory: directory.url)
        try await base.save(Self.plain("p", id: "base"))
        let parent = directory.url.deletingLastPathComponent().path
        let name = directory.url.lastPathComponent
        let parentURL = URL(fileURLWithPath: parent, isDirectory: true)
        var urls: [URL] = [
            directory.path + "/", directory.path + "//", directory.path + "/.", directory.path + "/./",
            parent + "/./" + name, parent + "//" + name, parent + "/" + name + "/../" + name,
        ].map { URL(fileURLWithPath: $0) }
        // Relative URLs with a base (their path resolves against it, as `URL.path` does).
        urls.append(URL(fileURLWithPath: name, isDirectory: true, relativeTo: parentURL))
        urls.append(try #require(URL(string: name + "/", relativeTo: parentURL)))
        urls.append(try #require(URL(string: "./" + name, relativeTo: parentURL)))
        urls.append(try #require(URL(string: "file://" + directory.path + "/")))
        for url in urls {
            let spelling = url.absoluteString
            let store = try FileSessionStore(directory: url)
            // The same file (`fileURL` keeps a doubled slash the computed path does not).
            func collapsed(_ path: String) -> String {
                var path = path
                while path.contains("//") { path = path.replacingOccurrences(of: "//", with: "/") }
                return path
            }
            #expect(collapsed(store.filePath(for: "q")) == collapsed(store.fileURL(for: "q").path), "\(spelling)")
            #expect(try await store.load(for: "p")?.id == "base", "\(spelling)")
            try await store.save(Self.plain("q", id: spelling))
            #expect(try await base.load(for: "q")?.id == spelling, "\(spelling)")
            try await store.remove(for: "q")
            #expect(try await base.load(for: "q") == nil)
        }
    }

    @Test(
        "the directory replaced by a file, removed, or made group-writable after init: no crash, no write outside it, errors are storage errors"
    )
    func directoryReplacedAfterInit() async throws {
        let directory = ScratchDirectory("breaker-swap")
        defer {
            try? FileManager.default.removeItem(atPath: directory.path)
            directory.remove()
        }
        let store = try FileSessionStore(directory: directory.url)
        try await store.save(Self.plain())
        // Replaced by a regular file.
        try FileManager.default.removeItem(at: directory.url)
        try Data("not a directory".utf8).write(to: directory.url)
        await #expect(throws: AuthError.self) { try await store.save(Self.plain()) }
        await #expect(throws: AuthError.self) { try await store.load(for: "p") }
        await #expect(throws: AuthError.self) { try await store.remove(for: "p") }
        #expect(throws: AuthError.self) { try FileSessionStore(directory: directory.url) }
        // Removed: a save fails; a load finds no session.
        try FileManager.default.removeItem(at: directory.url)
        await #expect(throws: AuthError.self) { try await store.save(Self.plain()) }
        #expect(try await store.load(for: "p") == nil)
        // Recreated 0777: a new store tightens it to 0700.
        try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: false)
        chmod(directory.path, 0o777)
        _ = try FileSessionStore(directory: directory.url)
        #expect(try directory.mode() == 0o700)
        // Made 0777 again behind the first store's back: its save still writes a 0600 file.
        chmod(directory.path, 0o777)
        try await store.save(Self.plain())
        var info = stat()
        #expect(stat(store.fileURL(for: "p").path, &info) == 0)
        #expect(Int(info.st_mode) & 0o777 == 0o600)
    }

    @Test("a symbolic link to a directory, and a dangling one, given as the directory: as createDirectory treated them")
    func symbolicLinkDirectories() async throws {
        let target = ScratchDirectory("breaker-target")
        let link = ScratchDirectory("breaker-link")
        defer {
            unlink(link.path)
            target.remove()
        }
        // A dangling link: createDirectory fails (as before the change).
        symlink(target.path, link.path)
        #expect(throws: AuthError.self) { try FileSessionStore(directory: link.url) }
        // A link to a directory: followed, as createDirectory did.
        try FileManager.default.createDirectory(at: target.url, withIntermediateDirectories: false)
        let store = try FileSessionStore(directory: link.url)
        try await store.save(Self.plain())
        #expect(FileManager.default.fileExists(atPath: target.url.appendingPathComponent("p.session.json").path))
        // A link to a file.
        unlink(link.path)
        let file = target.url.appendingPathComponent("file")
        try Data().write(to: file)
        symlink(file.path, link.path)
        #expect(throws: AuthError.self) { try FileSessionStore(directory: link.url) }
    }

    @Test(
        "two stores on one directory saving alternately from many tasks: every file is whole and one of the written sessions"
    )
    func concurrentStoresOnOneDirectory() async throws {
        let directory = ScratchDirectory("breaker-two")
        defer { directory.remove() }
        let first = try FileSessionStore(directory: directory.url)
        let second = try FileSessionStore(directory: directory.url)
        let providers: [AuthProviderID] = ["p", "q", "e\u{301}", "\u{E9}"]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    let store = task % 2 == 0 ? first : second
                    for round in 0..<40 {
                        let provider = providers[(task + round) % providers.count]
                        var session = Self.plain(provider, id: "\(task)-\(round)")
                        session.credentials.accessToken = Secret(
                            String(repeating: "t\(task)", count: 100 * (round % 7)))
                        try await store.save(session)
                        let loaded = try await (round % 2 == 0 ? first : second).load(for: provider)
                        #expect(loaded != nil)
                    }
                }
            }
            try await group.waitForAll()
        }
        for provider in providers {
            let one = try await first.load(for: provider)
            let two = try await second.load(for: provider)
            #expect(one == two)
            #expect(one?.provider.rawValue.utf8.elementsEqual(provider.rawValue.utf8) == true)
        }
        #expect(try directory.temporaryFiles() == [])
    }
}
