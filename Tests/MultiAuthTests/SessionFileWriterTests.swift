import Foundation
import MultiAuthSandbox
import Testing

@testable import MultiAuth

// `SessionFileWriter` (the bytes `FileSessionStore.save` writes) against the reference,
// `JSONEncoder.multiAuth` encoding the same envelope: every byte must be equal, for fixed
// sessions that reach every branch (optionals present and absent, hostile strings, key orders,
// dates) and for seeded random ones. A file the writer wrote is read back by `load`.

/// The differential test of `SessionFileWriter` against `JSONEncoder.multiAuth`.
@Suite struct SessionFileWriterTests {
    // MARK: - Inputs

    /// Strings that exercise every escaping rule: quotes, backslashes, every control character
    /// 0x00–0x1F and 0x7F, `/`, non-ASCII, combining marks, emoji, U+2028/U+2029, text that
    /// looks like escapes or surrogates.
    static let hostileStrings: [String] = [
        "", "\"", "\\", "/", "\\/", "//", "</script>", "a\"b\\c/d", "\"\"\\\\",
        String(String.UnicodeScalarView((0...0x1F).map { Unicode.Scalar(UInt8($0)) })), "\u{7F}", "x\u{0}y",
        "\u{1F}\u{20}\u{21}", "\r\n", "\t\u{B}\u{C}\u{8}", "\u{2028}", "\u{2029}", "a\u{2028}b\u{2029}c", "é",
        "e\u{301}", "e\u{301}\u{302}\u{303}", "\u{301}", "👍🏽", "👨‍👩‍👧‍👦", "🇮🇳", "\u{FEFF}", "\u{FFFD}", "\u{FFFF}",
        "\u{10FFFF}", "\u{E000}", "\u{85}", "\u{A0}", "日本語", "\\ud800", "\\u0000", "\\\"", "\u{0}\u{0}",
        String(repeating: "a", count: 800), String(repeating: "\u{0}\"\\", count: 50),
    ]

    /// Keys whose order differs by UTF-8 bytes, by Unicode scalars and by `String` `<`
    /// (upper before lower case, prefixes, marks, astral scalars, control characters).
    static let hostileKeys: [String] = [
        "a", "B", "é", "Z", "aa", "a-", "", "A", "_", "~", "\u{0}", "ab\u{0}", "a\u{7F}", "a\u{80}", "\u{FFFF}",
        "😀", "\u{E000}", "\u{FF21}", "ab", "a b", "a/b", "a\"", "a\\", "ä", "a\u{308}x", "Ω", "\u{2028}", "1", "10",
        "9",
    ]

    /// The same session as the store bench (Sources/MultiAuthBench/StoreBench.swift).
    static func benchSession() -> AuthSession {
        AuthSession(
            provider: "bench", user: AuthUser(id: "user-1", email: try? EmailAddress("bench@example.com")),
            credentials: Credentials(
                accessToken: Secret(String(repeating: "a", count: 800)),
                refreshToken: Secret(String(repeating: "r", count: 64)),
                expiresAt: Date(timeIntervalSince1970: 1_800_000_000)),
            createdAt: Date(timeIntervalSince1970: 1_700_000_000))
    }

    /// A session with every optional present (`true`) or every one absent (`false`).
    static func session(allOptionals: Bool, strings text: String = "t") throws -> AuthSession {
        guard allOptionals else {
            return AuthSession(
                id: text, provider: AuthProviderID(text), user: AuthUser(id: text), credentials: Credentials(),
                createdAt: Date(timeIntervalSince1970: 0))
        }
        // Too long a string is not a name: the name is then plain.
        let name =
            try (try? PersonName(firstName: "Ada" + text, lastName: text + "Lovelace")) ?? PersonName(firstName: "Ada")
        return AuthSession(
            id: text + "-id", provider: AuthProviderID(text + "-p"),
            user: AuthUser(
                id: text, phone: try PhoneNumber("+919876543210"), email: try EmailAddress("a.b+c@example.co.uk"),
                name: name,
                identities: [
                    .init(kind: "phone", value: "+919876543210", verified: true),
                    .init(kind: text, value: text, verified: false),
                ],
                attributes: ["countryCode": "IN", text: text]),
            credentials: Credentials(
                accessToken: Secret("A" + text), idToken: Secret("I" + text), refreshToken: Secret("R" + text),
                tokenType: "Bearer" + text,
                expiresAt: Date(timeIntervalSince1970: 1_700_003_600.125), scopes: ["openid", text, "", "a/b"],
                extra: ProviderState(["jwt": "e30." + text, text: text])),
            createdAt: Date(timeIntervalSince1970: 1_700_000_000.5),
            maximumLifetimeEndsAt: Date(timeIntervalSince1970: 1_700_604_800.999))
    }

    /// A session whose dates are `createdAt` and `maximumLifetimeEndsAt` = `date`, and whose
    /// credentials expire at `date` too.
    static func session(dated date: Date) -> AuthSession {
        AuthSession(
            id: "d", provider: "dates", user: AuthUser(id: "u"), credentials: Credentials(expiresAt: date),
            createdAt: date, maximumLifetimeEndsAt: date)
    }

    /// Unix times (seconds) the writer must format as `Double.description` does: whole and
    /// fractional milliseconds, finer fractions (rounded), zero and negative zero, negative,
    /// and the edges of the range it writes itself (10^12 seconds).
    static let unixTimes: [Double] = [
        0, -0.0, 0.001, -0.001, 0.0004, 0.0005, -0.0004, -0.0005, 0.01, 0.1, 0.5, 1, -1, 1.5, -1.5, 0.123, 0.1234,
        0.1235, 0.9995, 0.99949, 1_700_000_000, 1_700_000_000.1, 1_700_000_000.12, 1_700_000_000.123,
        1_700_000_000.1234, 1_700_000_000.1235, 1_700_000_000.0005, 1_700_000_000.999_9, 1_800_000_000.000_1,
        -1_700_000_000.123, -86_400.5, 253_402_300_799.999, -62_135_596_800, 999_999_999_999.999, -999_999_999_999.999,
        999_999_999_999.9995, 4_102_444_800.007, 123_456_789.001, 1e9, 1e10, 1e11, 2e11 + 0.002,
    ]

    /// Unix times the writer leaves to `JSONEncoder` (at or beyond 10^12 seconds).
    static let farUnixTimes: [Double] = [1e12, -1e12, 1e13 + 0.5, 9e15, 1e16, -1e17, 1e20]

    /// The fixed sessions of the differential test, named.
    static func fixedSessions() throws -> [(String, AuthSession)] {
        var sessions: [(String, AuthSession)] = [
            ("bench", benchSession()), ("all optionals", try session(allOptionals: true)),
            ("no optionals", try session(allOptionals: false)),
        ]
        for (index, text) in hostileStrings.enumerated() {
            sessions.append(("hostile string \(index), no optionals", try session(allOptionals: false, strings: text)))
            sessions.append(("hostile string \(index), all optionals", try session(allOptionals: true, strings: text)))
        }
        // Every key in one object, and each pair of keys alone (an object of two keys).
        var attributes: [String: String] = [:]
        for (index, key) in hostileKeys.enumerated() { attributes[key] = "v\(index)" }
        var keyed = benchSession()
        keyed.user.attributes = attributes
        keyed.credentials.extra = ProviderState(attributes)
        keyed.credentials.extra[revealing: "e\u{301}"] = "decomposed"  // equal to "é" as a String: replaces its value
        sessions.append(("every hostile key", keyed))
        for first in hostileKeys {
            for second in hostileKeys where first != second {
                var pair = benchSession()
                pair.user.attributes = [first: "1", second: "2"]
                pair.credentials.extra = ProviderState([second: first])
                sessions.append(("keys \(first.debugDescription) \(second.debugDescription)", pair))
            }
        }
        var decomposed = benchSession()
        decomposed.user.attributes = ["e\u{301}": "decomposed", "f": "", "e": "", "e\u{300}": "grave"]
        sessions.append(("decomposed keys", decomposed))
        for time in unixTimes {
            sessions.append(("date \(time)", session(dated: Date(timeIntervalSince1970: time))))
        }
        for date in [Date.distantPast, Date.distantFuture, Date(timeIntervalSinceReferenceDate: 0)] {
            sessions.append(("date \(date.timeIntervalSince1970)", session(dated: date)))
        }
        return sessions
    }

    // MARK: - Random sessions

    /// A random string of up to `maximumLength` characters drawn from ASCII, control
    /// characters, escapes, marks, emoji and other planes.
    static func randomString(_ random: inout SeededRandomNumberGenerator, maximumLength: Int = 12) -> String {
        let pieces: [String] = [
            "a", "Z", "0", " ", "-", "_", ".", "\"", "\\", "/", "\u{7F}", "é", "e\u{301}", "\u{301}", "ß", "日", "👍🏽",
            "👨‍👩‍👧", "\u{2028}", "\u{2029}", "\u{FEFF}", "\u{FFFD}", "\u{10FFFF}", "\u{85}", "\u{A0}", "\\u0000", "\\ud800",
            "\r\n", "%", "{", "}", "[", "]", ":", ",",
        ]
        var text = ""
        for _ in 0..<Int.random(in: 0...maximumLength, using: &random) {
            if Bool.random(using: &random) {
                text.unicodeScalars.append(Unicode.Scalar(UInt8.random(in: 0...0x7F, using: &random)))
            } else {
                text += pieces.randomElement(using: &random)!
            }
        }
        return text
    }

    /// A random Unix time: mostly recent, sometimes with sub-millisecond fractions, negative,
    /// near zero, near the 10^12-second edge, or far beyond it.
    static func randomUnixTime(_ random: inout SeededRandomNumberGenerator) -> Double {
        switch Int.random(in: 0..<8, using: &random) {
        case 0: Double(Int64.random(in: 1_500_000_000_000...2_100_000_000_000, using: &random)) / 1000
        case 1: Double.random(in: 1_500_000_000...2_100_000_000, using: &random)
        case 2: Double.random(in: -1e12...1e12, using: &random)
        case 3: Double(Int64.random(in: -999_999_999_999_999...999_999_999_999_999, using: &random)) / 1000
        case 4: Double.random(in: -2...2, using: &random)
        case 5: Double(Int.random(in: -5000...5000, using: &random)) / 1000
        case 6: Double.random(in: 5e11...1.1e12, using: &random) * (Bool.random(using: &random) ? 1 : -1)
        default: Double.random(in: -1e18...1e18, using: &random)
        }
    }

    /// A random session: each optional present or absent, random strings, dictionaries of
    /// random keys, random dates.
    static func randomSession(_ random: inout SeededRandomNumberGenerator) -> AuthSession {
        func dictionary(_ random: inout SeededRandomNumberGenerator) -> [String: String] {
            var values: [String: String] = [:]
            for _ in 0..<Int.random(in: 0...6, using: &random) {
                let key =
                    Bool.random(using: &random)
                    ? hostileKeys.randomElement(using: &random)! : randomString(&random, maximumLength: 4)
                values[key] = randomString(&random)
            }
            return values
        }
        func text(_ random: inout SeededRandomNumberGenerator) -> String { randomString(&random) }
        func maybeText(_ random: inout SeededRandomNumberGenerator) -> String? {
            Bool.random(using: &random) ? randomString(&random) : nil
        }
        func maybeDate(_ random: inout SeededRandomNumberGenerator) -> Date? {
            Bool.random(using: &random) ? Date(timeIntervalSince1970: randomUnixTime(&random)) : nil
        }
        let phones = ["+919876543210", "+14155552671", "+442071838750"]
        let emails = ["a@b.co", "bench@example.com", "first.last+tag@example.co.uk"]
        let phone = Bool.random(using: &random) ? try? PhoneNumber(phones.randomElement(using: &random)!) : nil
        let email = Bool.random(using: &random) ? try? EmailAddress(emails.randomElement(using: &random)!) : nil
        var name: PersonName?
        if Bool.random(using: &random) {
            let first = "N" + text(&random)
            name = try? PersonName(firstName: first, lastName: text(&random))
        }
        let identities = (0..<Int.random(in: 0...3, using: &random)).map { _ in
            AuthUser.Identity(kind: text(&random), value: text(&random), verified: Bool.random(using: &random))
        }
        let user = AuthUser(
            id: text(&random), phone: phone, email: email, name: name, identities: identities,
            attributes: dictionary(&random))
        let credentials = Credentials(
            accessToken: maybeText(&random).map { Secret($0) }, idToken: maybeText(&random).map { Secret($0) },
            refreshToken: maybeText(&random).map { Secret($0) },
            tokenType: maybeText(&random), expiresAt: maybeDate(&random),
            scopes: (0..<Int.random(in: 0...3, using: &random)).map { _ in text(&random) },
            extra: ProviderState(dictionary(&random)))
        return AuthSession(
            id: text(&random), provider: AuthProviderID(text(&random)), user: user, credentials: credentials,
            createdAt: Date(timeIntervalSince1970: randomUnixTime(&random)), maximumLifetimeEndsAt: maybeDate(&random))
    }

    // MARK: - Comparison

    /// Whether every date of `session` is one the writer formats itself (finite, under 10^12
    /// seconds from 1970 once rounded to the millisecond).
    static func writerHandlesDates(_ session: AuthSession) -> Bool {
        [session.createdAt, session.maximumLifetimeEndsAt, session.credentials.expiresAt].allSatisfy { date in
            guard let date else { return true }
            return date.unixMilliseconds.magnitude < 1e15
        }
    }

    /// Where the writer's bytes first differ from `JSONEncoder.multiAuth`'s for `session`, as a
    /// readable message, or `nil` when they are equal. The writer must not leave a session it
    /// can write to the encoder, and must leave every other one.
    static func difference(_ session: AuthSession) throws -> String? {
        let reference = try FileSessionStore.encodeWithJSONEncoder(session)
        guard
            let written = SessionFileWriter.encode(
                session, format: FileSessionStore.formatName, version: FileSessionStore.formatVersion)
        else {
            if writerHandlesDates(session) { return "the writer fell back to JSONEncoder" }
            return try FileSessionStore.encode(session) == reference ? nil : "the fallback differs"
        }
        if !writerHandlesDates(session) { return "the writer wrote a date it must leave to JSONEncoder" }
        guard written != reference else { return nil }
        let offset =
            zip(written, reference).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            ?? min(written.count, reference.count)
        func around(_ bytes: [UInt8]) -> String {
            String(decoding: bytes[max(0, offset - 40)..<min(bytes.count, offset + 40)], as: UTF8.self).debugDescription
        }
        return "differs at byte \(offset): writer \(around(written)), JSONEncoder \(around(reference))"
    }

    // MARK: - Tests

    /// The bench's session, every optional present and absent, hostile strings and keys, and
    /// dates: the writer's bytes equal `JSONEncoder.multiAuth`'s.
    @Test func fixedSessionsAreWrittenAsJSONEncoderWritesThem() throws {
        let sessions = try Self.fixedSessions()
        #expect(sessions.count > 800)
        for (name, session) in sessions {
            let difference = try Self.difference(session)
            #expect(difference == nil, "\(name): \(difference ?? "")")
        }
    }

    /// Dates at or beyond 10^12 seconds, and the extremes of `Date`, go to `JSONEncoder`: the
    /// file's bytes are still the encoder's.
    @Test(arguments: farUnixTimes)
    func farDatesFallBackToJSONEncoder(_ time: Double) throws {
        for session in [Self.session(dated: Date(timeIntervalSince1970: time)), Self.benchSession()] {
            var session = session
            session.maximumLifetimeEndsAt = Date(timeIntervalSince1970: time)
            #expect(
                SessionFileWriter.encode(
                    session, format: FileSessionStore.formatName, version: FileSessionStore.formatVersion) == nil)
            #expect(try FileSessionStore.encode(session) == FileSessionStore.encodeWithJSONEncoder(session))
        }
    }

    /// A date that is not finite (or whose milliseconds overflow to infinity) cannot be encoded
    /// by either: the writer declines it and the store's encoding throws, as `JSONEncoder` does.
    @Test(arguments: [Double.nan, .infinity, -.infinity, .greatestFiniteMagnitude])
    func nonFiniteDatesAreNotWritten(_ time: Double) {
        let session = Self.session(dated: Date(timeIntervalSince1970: time))
        #expect(
            SessionFileWriter.encode(
                session, format: FileSessionStore.formatName, version: FileSessionStore.formatVersion) == nil)
        #expect(throws: AuthError.self) { try FileSessionStore.encode(session) }
    }

    /// Seeded random sessions: the writer's bytes equal `JSONEncoder.multiAuth`'s for each.
    @Test func randomSessionsAreWrittenAsJSONEncoderWritesThem() throws {
        let seed: UInt64 = 0x5E55_10F1_1E00_2026
        var random = SeededRandomNumberGenerator(seed: seed)
        var failures = 0
        for index in 0..<4_000 {
            let session = Self.randomSession(&random)
            if let difference = try Self.difference(session) {
                failures += 1
                Issue.record("seed \(seed), session \(index): \(difference)")
                if failures >= 5 { return }
            }
        }
    }

    /// A file the store writes with the writer holds the encoder's bytes and is read back by
    /// `load` as the session (its dates rounded to the millisecond, as stored).
    @Test func writtenFilesAreLoadedBack() async throws {
        let directory = ScratchDirectory("writer")
        defer { directory.remove() }
        let store = try FileSessionStore(directory: directory.url)
        var sessions = [
            Self.benchSession(), try Self.session(allOptionals: true), try Self.session(allOptionals: false),
        ]
        for text in Self.hostileStrings.prefix(20) {
            sessions.append(try Self.session(allOptionals: true, strings: text))
        }
        var random = SeededRandomNumberGenerator(seed: 0x10AD_BAC4)
        for _ in 0..<100 { sessions.append(Self.randomSession(&random)) }
        for time in Self.unixTimes + Self.farUnixTimes.prefix(4) {
            sessions.append(Self.session(dated: Date(timeIntervalSince1970: time)))
        }
        for session in sessions {
            try await store.save(session)
            let stored = try Data(contentsOf: store.fileURL(for: session.provider))
            #expect([UInt8](stored) == (try FileSessionStore.encodeWithJSONEncoder(session)))
            var expected = session
            expected.createdAt = session.createdAt.roundedToMilliseconds
            expected.maximumLifetimeEndsAt = session.maximumLifetimeEndsAt?.roundedToMilliseconds
            expected.credentials.expiresAt = session.credentials.expiresAt?.roundedToMilliseconds
            #expect(try await store.load(for: session.provider) == expected, "\(session.provider)")
        }
    }

    /// The session file's path made without `URL` is `fileURL(for:).path`, for plain and
    /// percent-encoded provider ids, and in a directory given with a trailing slash.
    @Test func filePathIsTheFileURLsPath() throws {
        let directory = ScratchDirectory("writer-path")
        defer { directory.remove() }
        for url in [directory.url, URL(fileURLWithPath: directory.path + "/", isDirectory: true)] {
            let store = try FileSessionStore(directory: url)
            for provider: AuthProviderID in ["bench", "../../etc/passwd", "a b/é", "%2F", "", "otp-less_1", "👍"] {
                #expect(store.filePath(for: provider) == store.fileURL(for: provider).path)
            }
        }
        #expect(FileSessionStore.path("x.session.json", in: "/") == "/x.session.json")
    }

    /// Provider ids equal as `String`s but not in bytes (`"é"`, `"e\u{301}"`) have different
    /// files, and the store's remembered path of the last provider never mixes them up.
    @Test func providersEqualOnlyAsStringsKeepTheirOwnFiles() async throws {
        let directory = ScratchDirectory("writer-path")
        defer { directory.remove() }
        let store = try FileSessionStore(directory: directory.url)
        let composed = Versions.session(1, provider: "\u{E9}")
        let decomposed = Versions.session(2, provider: "e\u{301}")
        for session in [composed, decomposed, composed] { try await store.save(session) }
        for session in [composed, decomposed] {
            let stored = try Data(contentsOf: store.fileURL(for: session.provider))
            #expect([UInt8](stored) == (try FileSessionStore.encodeWithJSONEncoder(session)))
        }
        try await store.remove(for: decomposed.provider)
        #expect(try await store.load(for: composed.provider) == composed)
        #expect(!FileManager.default.fileExists(atPath: store.fileURL(for: decomposed.provider).path))
    }
}
