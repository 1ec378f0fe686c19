import Foundation

/// Writes the bytes of a session file (`{"format":…,"session":{…},"version":…}`) without
/// `JSONEncoder`, byte for byte as `JSONEncoder.multiAuth` writes them; `FileSessionStore`
/// uses it on every save.
///
/// `JSONEncoder.multiAuth` is the reference: whatever it writes is what a session file must
/// hold, and `SessionFileWriterTests` compares the two on fixed and seeded random sessions. The
/// rules it follows are swift-foundation's `JSONWriter` (FoundationEssentials):
/// - keys of every object in the order of `.sortedKeys`: lexicographic by UTF-8 bytes (a key
///   that is a prefix of another comes first); the fixed keys of each type are written in that
///   order, the keys of `AuthUser.attributes` and `ProviderState.values` are sorted so;
/// - strings: `"` and `\` escaped with a backslash, `\b` `\f` `\n` `\r` `\t`, the other bytes
///   below 0x20 as `\u00xx` (lower-case hex), `/` unescaped (`.withoutEscapingSlashes`),
///   everything else (0x7F, non-ASCII, U+2028/U+2029) as its UTF-8 bytes;
/// - dates as `unixMilliseconds / 1000` (a `Double`) in `Double.description` with a trailing
///   `.0` removed; `Int` as its `description`;
/// - `nil` optionals left out (synthesized `encodeIfPresent`), empty arrays `[]`, empty objects
///   `{}`; ``PhoneNumber`` and ``EmailAddress`` as one string (their `encode(to:)`),
///   ``AuthProviderID`` as its raw value, ``PersonName`` as `firstName` and `lastName`.
///
/// A date it cannot write with certainty (not finite, or 10^12 seconds or more from 1970, where
/// `Double.description` may switch to an exponent or a shorter decimal) makes
/// ``encode(_:format:version:)`` return `nil`, and the caller encodes the whole file with
/// `JSONEncoder.multiAuth` instead.
struct SessionFileWriter {
    /// The bytes written so far.
    private var bytes: [UInt8] = []
    /// Cleared when a value cannot be written identically to `JSONEncoder.multiAuth`.
    private var exact = true

    /// The session file's bytes for `session` in an envelope with `format` and `version`, or
    /// `nil` when `JSONEncoder.multiAuth` must write it (see the type's description).
    static func encode(_ session: AuthSession, format: String, version: Int) -> [UInt8]? {
        var writer = SessionFileWriter()
        writer.bytes.reserveCapacity(256 + estimatedSize(of: session))
        writer.literal("{\"format\":")
        writer.string(format)
        writer.literal(",\"session\":")
        writer.session(session)
        writer.literal(",\"version\":")
        writer.integer(version)
        writer.bytes.append(UInt8(ascii: "}"))
        return writer.exact ? writer.bytes : nil
    }

    /// The UTF-8 length of the session's strings: a lower bound of the file's size, to reserve
    /// the buffer once.
    private static func estimatedSize(of session: AuthSession) -> Int {
        let credentials = session.credentials
        var size = session.id.utf8.count + session.provider.rawValue.utf8.count + session.user.id.utf8.count
        size += (credentials.accessToken?.utf8Count ?? 0) + (credentials.idToken?.utf8Count ?? 0)
        size += (credentials.refreshToken?.utf8Count ?? 0) + (credentials.tokenType?.utf8.count ?? 0)
        for scope in credentials.scopes { size += scope.utf8.count + 3 }
        for (key, value) in credentials.extra.values { size += key.utf8.count + value.utf8Count + 6 }
        for (key, value) in session.user.attributes { size += key.utf8.count + value.utf8.count + 6 }
        for identity in session.user.identities { size += identity.kind.utf8.count + identity.value.utf8.count + 40 }
        return size
    }

    // MARK: - The types, keys in sorted order

    /// `AuthSession`: createdAt, credentials, id, maximumLifetimeEndsAt?, provider, user.
    private mutating func session(_ session: AuthSession) {
        literal("{\"createdAt\":")
        date(session.createdAt)
        literal(",\"credentials\":")
        credentials(session.credentials)
        literal(",\"id\":")
        string(session.id)
        if let end = session.maximumLifetimeEndsAt {
            literal(",\"maximumLifetimeEndsAt\":")
            date(end)
        }
        literal(",\"provider\":")
        string(session.provider.rawValue)
        literal(",\"user\":")
        user(session.user)
        bytes.append(UInt8(ascii: "}"))
    }

    /// `Credentials`: accessToken?, expiresAt?, extra, idToken?, refreshToken?, scopes, tokenType?.
    private mutating func credentials(_ credentials: Credentials) {
        bytes.append(UInt8(ascii: "{"))
        if let token = credentials.accessToken {
            literal("\"accessToken\":")
            string(token.reveal())
            bytes.append(UInt8(ascii: ","))
        }
        if let expiresAt = credentials.expiresAt {
            literal("\"expiresAt\":")
            date(expiresAt)
            bytes.append(UInt8(ascii: ","))
        }
        literal("\"extra\":{\"values\":")
        dictionary(credentials.extra.values) { $0.reveal() }
        bytes.append(UInt8(ascii: "}"))
        if let token = credentials.idToken {
            literal(",\"idToken\":")
            string(token.reveal())
        }
        if let token = credentials.refreshToken {
            literal(",\"refreshToken\":")
            string(token.reveal())
        }
        literal(",\"scopes\":[")
        for (index, scope) in credentials.scopes.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            string(scope)
        }
        bytes.append(UInt8(ascii: "]"))
        if let type = credentials.tokenType {
            literal(",\"tokenType\":")
            string(type)
        }
        bytes.append(UInt8(ascii: "}"))
    }

    /// `AuthUser`: attributes, email?, id, identities, name?, phone?.
    private mutating func user(_ user: AuthUser) {
        literal("{\"attributes\":")
        dictionary(user.attributes) { $0 }
        if let email = user.email {
            literal(",\"email\":")
            string(email.address)
        }
        literal(",\"id\":")
        string(user.id)
        literal(",\"identities\":[")
        for (index, identity) in user.identities.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            literal("{\"kind\":")
            string(identity.kind)
            literal(",\"value\":")
            string(identity.value)
            identity.verified ? literal(",\"verified\":true}") : literal(",\"verified\":false}")
        }
        bytes.append(UInt8(ascii: "]"))
        if let name = user.name {
            literal(",\"name\":{\"firstName\":")
            string(name.firstName)
            literal(",\"lastName\":")
            string(name.lastName)
            bytes.append(UInt8(ascii: "}"))
        }
        if let phone = user.phone {
            literal(",\"phone\":")
            string(phone.e164)
        }
        bytes.append(UInt8(ascii: "}"))
    }

    /// A `[String: String]` or `[String: Secret]` object (`text` gives each value's string: a
    /// ``Secret`` is written as its bare string), keys in lexicographic order of their UTF-8 bytes.
    private mutating func dictionary<Value>(_ values: [String: Value], _ text: (Value) -> String) {
        bytes.append(UInt8(ascii: "{"))
        if values.count == 1, let (key, value) = values.first {
            string(key)
            bytes.append(UInt8(ascii: ":"))
            string(text(value))
        } else if !values.isEmpty {
            let sorted = values.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            for (index, element) in sorted.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                string(element.key)
                bytes.append(UInt8(ascii: ":"))
                string(text(element.value))
            }
        }
        bytes.append(UInt8(ascii: "}"))
    }

    // MARK: - Values

    /// Appends the bytes of `text`, which needs no escaping.
    private mutating func literal(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// `value.description`, as `JSONEncoder` writes an `Int`.
    private mutating func integer(_ value: Int) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        digits(UInt64(value.magnitude))  // wire-number: an Int's magnitude always fits a UInt64
    }

    /// The decimal digits of `value` (`value.description` without allocating a `String`).
    private mutating func digits(_ value: UInt64) {
        var divisor: UInt64 = 1
        while divisor <= value / 10 { divisor &*= 10 }
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value / divisor % 10))
            divisor /= 10
        }
    }

    /// Whether one of the eight bytes of `word` is below 0x20, `"` or `\` (a byte that must be
    /// escaped). Exact: the classic "has a byte less than n" and "has a zero byte" tests,
    /// whose borrows only ever flag a byte above one that is truly flagged.
    @inline(__always)
    private static func needsEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        let control = (word &- ones &* 0x20) & ~word
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        return (control | ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)) & highBits != 0
    }

    /// A quoted JSON string, escaped as swift-foundation's `JSONWriter` escapes it.
    private mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            guard let base = utf8.baseAddress else { return }
            let count = utf8.count
            var start = 0  // the first byte not yet appended
            var index = 0
            while index < count {
                // Eight bytes at a time while none needs escaping; then the next eight (or the
                // rest) byte by byte.
                while index &+ 8 <= count,
                    !Self.needsEscape(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
                {
                    index &+= 8
                }
                let end = min(index &+ 8, count)
                while index < end {
                    let byte = base[index]
                    // Only bytes below 0x20, `"` and `\` are escaped.
                    if byte < 0x20 || byte == 0x22 || byte == 0x5C {
                        if start < index {
                            bytes.append(contentsOf: UnsafeBufferPointer(start: base + start, count: index &- start))
                        }
                        start = index &+ 1
                        escape(byte)
                    }
                    index &+= 1
                }
            }
            if start < count {
                bytes.append(contentsOf: UnsafeBufferPointer(start: base + start, count: count &- start))
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// The escape sequence of `byte` (a control character, `"` or `\`).
    private mutating func escape(_ byte: UInt8) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case 0x22: bytes.append(UInt8(ascii: "\""))
        case 0x5C: bytes.append(UInt8(ascii: "\\"))
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x0C: bytes.append(UInt8(ascii: "f"))
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        default:
            let hex: StaticString = "0123456789abcdef"
            bytes.append(contentsOf: [
                UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex.utf8Start[Int(byte >> 4)],
                hex.utf8Start[Int(byte & 0xF)],
            ])
        }
    }

    /// The largest magnitude in milliseconds written here: below 10^12 seconds the spacing of
    /// `Double`s is under 1/8,192 s, so `description` of `milliseconds / 1000` is the decimal
    /// with at most three fraction digits and no exponent.
    private static let largestMilliseconds: Double = 1e15

    /// A date as `JSONEncoder.multiAuth` writes it: `date.unixMilliseconds / 1000` in
    /// `Double.description` without a trailing `.0`, written from the whole milliseconds.
    /// Outside ``largestMilliseconds`` (or not finite) it clears `exact` instead.
    private mutating func date(_ date: Date) {
        let milliseconds = date.unixMilliseconds
        guard milliseconds.magnitude < Self.largestMilliseconds else {
            exact = false  // also NaN, whose comparisons are false
            return
        }
        if milliseconds.sign == .minus { bytes.append(UInt8(ascii: "-")) }  // also -0.0, written "-0"
        // wire-number: finite, whole (unixMilliseconds rounds) and below 10^15, checked above
        let whole = UInt64(milliseconds.magnitude)
        digits(whole / 1000)
        var fraction = whole % 1000
        guard fraction != 0 else { return }
        bytes.append(UInt8(ascii: "."))
        var digits = 3
        while fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        var divisor: UInt64 = digits == 3 ? 100 : digits == 2 ? 10 : 1
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(fraction / divisor % 10))  // wire-number: a digit, 0–9
            divisor /= 10
        }
    }
}
