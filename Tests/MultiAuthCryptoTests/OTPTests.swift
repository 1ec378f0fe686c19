import Foundation
import Testing

@testable import MultiAuthCrypto

@Suite("HOTP (RFC 4226) and TOTP (RFC 6238)")
struct OTPTests {
    @Test("every HOTP vector of RFC 4226 appendix D")
    func hotpVectors() throws {
        #expect(RFCVectors.hotp.count == 10)
        let hotp = try HOTP(secret: Array(RFCVectors.hotpKeyASCII.utf8), digits: RFCVectors.hotpDigits)
        for vector in RFCVectors.hotp {
            #expect(hotp.code(counter: vector.counter) == vector.code, "counter \(vector.counter)")
            #expect(try hotp.verify(vector.code, counter: vector.counter) == vector.counter)
        }
        #expect(try hotp.verify("520489", counter: 5, lookAhead: 4) == 9)
        #expect(throws: CryptoError.invalidCode) { try hotp.verify("520489", counter: 5, lookAhead: 3) }
        #expect(throws: CryptoError.invalidCode) { try hotp.verify("755224", counter: 1, lookAhead: 5) }
    }

    @Test("every TOTP vector of RFC 6238 appendix B, as Int64 and Date (fraction floored)")
    func totpVectors() throws {
        let vectors = RFCVectors.totp
        #expect(vectors.count == 18)
        for vector in vectors {
            let totp = try TOTP(
                secret: Array(vector.keyASCII.utf8), algorithm: try DigestAlgorithm(name: vector.algorithm),
                digits: vector.digits, period: vector.period)
            #expect(try totp.code(at: vector.time) == vector.code, "\(vector.algorithm) t=\(vector.time)")
            #expect(try totp.code(at: Date(timeIntervalSince1970: TimeInterval(vector.time) + 0.75)) == vector.code)
            #expect(try totp.code(at: Date(timeIntervalSince1970: TimeInterval(vector.time))) == vector.code)
            #expect(try totp.verify(vector.code, at: vector.time, window: 0) == UInt64(vector.time / 30))
        }
    }

    @Test("B01: pasted lower-case grouped secret gives 287082 at t=59")
    func b01() throws {
        let totp = try TOTP(secret: try Base32.decode("gezd gnbv gy3t qojq gezd gnbv gy3t qojq"))
        #expect(try totp.code(at: Int64(59)) == "287082")
    }

    @Test("B02: 26-char unpadded secrets")
    func b02() throws {
        let a = try TOTP(secret: try Base32.decode("S46SQCPPTCNPROMHWYBDCTBZXV"))
        #expect(try a.timeStep(at: Int64(1_612_380_872)) == 53_746_029)
        #expect(try a.code(at: Int64(1_612_380_872)) == "100172")
        let padded = try TOTP(secret: try Base32.decode("S46SQCPPTCNPROMHWYBDCTBZXV======"))
        #expect(try padded.code(at: Int64(1_612_380_872)) == "100172")
        let b = try TOTP(secret: try Base32.decode("gezdgnbvgy3tqojqgezdgnbvgy"))
        #expect(try b.code(at: Int64(1_700_000_000)) == "812601")
    }

    @Test("B03: SHA-256, 8 digits from the 52-char secret")
    func b03() throws {
        let totp = try TOTP(secret: Keys.k32, algorithm: .sha256, digits: 8)
        #expect(try totp.code(at: Int64(59)) == "46119246")
        let sha1 = try TOTP(secret: Keys.k32, algorithm: .sha1, digits: 8)
        #expect(try sha1.code(at: Int64(59)) == "97599872")
    }

    @Test("B04: the 16-char documentation key gives 324550 in every accepted spelling")
    func b04() throws {
        for spelling in ["JBSWY3DPEHPK3PXP", "jbswy3dpehpk3pxp", "JBSWY3DPEHPK3PXP========"] {
            let totp = try TOTP(secret: try Base32.decode(spelling))
            #expect(try totp.code(at: Int64(1_700_000_000)) == "324550")
        }
    }

    @Test("B05: leading zeros are kept; short codes are a format error")
    func b05() throws {
        let six = try TOTP(secret: Keys.k20)
        let eight = try TOTP(secret: Keys.k20, digits: 8)
        #expect(try six.code(at: Int64(1_234_567_890)) == "005924")
        #expect(try eight.code(at: Int64(1_234_567_890)) == "89005924")
        #expect(try six.code(at: Int64(1_111_111_109)) == "081804")
        #expect(try eight.code(at: Int64(1_111_111_109)) == "07081804")
        #expect(try six.verify("005924", at: Int64(1_234_567_890)) == 41_152_263)
        // Whitespace is ignored (Docs/Cases.md, B34), so " 005924" and "005924 " are accepted (see b34);
        // everything else here is still a format error.
        for malformed in ["5924", "05924", "0005924", "00592a", "", "٠٠٥٩٢٤", "+05924", "-05924"] {
            #expect(throws: CryptoError.invalidCodeFormat) { try six.verify(malformed, at: Int64(1_234_567_890)) }
        }
        let seven = try TOTP(secret: Keys.k20, digits: 7)
        #expect(try seven.code(at: Int64(1_234_567_890)).count == 7)
    }

    @Test("digits outside 6...8 and periods below 1 s are rejected")
    func parameterValidation() throws {
        for digits in [0, 1, 5, 9, 10, -6] {
            #expect(throws: CryptoError.invalidDigits) { try TOTP(secret: Keys.k20, digits: digits) }
            #expect(throws: CryptoError.invalidDigits) { try HOTP(secret: Keys.k20, digits: digits) }
        }
        for period: Int64 in [0, -30] {
            #expect(throws: CryptoError.invalidPeriod) { try TOTP(secret: Keys.k20, period: period) }
        }
        #expect(throws: CryptoError.emptySecret) { try TOTP(secret: []) }
        let totp = try TOTP(secret: Keys.k20, t0: 100)
        #expect(throws: CryptoError.invalidTime) { try totp.code(at: Int64(99)) }
        #expect(try totp.timeStep(at: Int64(129)) == 0)
        #expect(try totp.timeStep(at: Int64(130)) == 1)
        #expect(throws: CryptoError.timeOutOfRange) { try totp.code(at: Date(timeIntervalSince1970: .nan)) }
        #expect(throws: CryptoError.invalidParameter("window")) {
            try totp.verify("123456", at: Int64(1000), window: -1)
        }
    }

    @Test("B06: a 60-second period uses counter t div 60")
    func b06() throws {
        let totp = try TOTP(secret: try Base32.decode("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"), period: 60)
        #expect(try totp.timeStep(at: Int64(1_111_111_109)) == 18_518_518)
        #expect(try totp.code(at: Int64(1_111_111_109)) == "360094")
        #expect(try TOTP(secret: Keys.k20).code(at: Int64(1_111_111_109)) == "081804")
    }

    @Test("B07: a window of one step either side, and the step boundary")
    func b07() throws {
        let totp = try TOTP(secret: Keys.k20)
        let t: Int64 = 1_234_567_890
        let c: UInt64 = 41_152_263
        #expect(try totp.timeStep(at: t) == c)
        #expect(try totp.verify("980357", at: t, window: 1) == c - 1)
        #expect(try totp.verify("005924", at: t, window: 1) == c)
        #expect(try totp.verify("590587", at: t, window: 1) == c + 1)
        #expect(throws: CryptoError.invalidCode) { try totp.verify("186057", at: t, window: 1) }
        #expect(throws: CryptoError.invalidCode) { try totp.verify("240500", at: t, window: 1) }
        #expect(try totp.verify("186057", at: t, window: 2) == c - 2)
        #expect(throws: CryptoError.invalidCode) { try totp.verify("980357", at: t, window: 0) }
        #expect(try totp.code(at: Int64(59)) == "287082")
        #expect(try totp.code(at: Int64(60)) == "359152")
        #expect(try totp.secondsRemaining(at: 59) == 1)
        #expect(try totp.secondsRemaining(at: 60) == 30)
        // Near T0 the window is clipped instead of wrapping around.
        #expect(try totp.verify("755224", at: Int64(5), window: 1) == 0)
    }

    @Test("B08: replay is rejected; a fresh step sharing the code is accepted")
    func b08Sequence() throws {
        let totp = try TOTP(secret: Keys.k20)
        #expect(totp.code(forTimeStep: 57_766_334) == "726238")
        #expect(totp.code(forTimeStep: 57_766_335) == "251166")
        #expect(totp.code(forTimeStep: 57_766_336) == "251166")
        #expect(totp.code(forTimeStep: 57_766_337) == "463144")

        let guardian = TOTPReplayGuard()
        #expect(try totp.verify("251166", at: Int64(1_732_990_060), window: 1, replayGuard: guardian) == 57_766_335)
        #expect(guardian.lastUsedStep == 57_766_335)
        #expect(throws: CryptoError.codeAlreadyUsed) {
            try totp.verify("251166", at: Int64(1_732_990_070), window: 1, replayGuard: guardian)
        }
        #expect(try totp.verify("251166", at: Int64(1_732_990_090), window: 1, replayGuard: guardian) == 57_766_336)
        #expect(guardian.lastUsedStep == 57_766_336)
        #expect(throws: CryptoError.codeAlreadyUsed) {
            try totp.verify("251166", at: Int64(1_732_990_095), window: 1, replayGuard: guardian)
        }
        #expect(guardian.lastUsedStep == 57_766_336)

        // The pure form with a persisted last-used step gives the same answers.
        #expect(try totp.verify("251166", at: Int64(1_732_990_060), lastUsedStep: nil) == 57_766_335)
        #expect(throws: CryptoError.codeAlreadyUsed) {
            try totp.verify("251166", at: Int64(1_732_990_070), lastUsedStep: 57_766_335)
        }
        #expect(try totp.verify("251166", at: Int64(1_732_990_090), lastUsedStep: 57_766_335) == 57_766_336)
        // An older code after a newer one is a replay too, never a step backwards.
        #expect(throws: CryptoError.codeAlreadyUsed) {
            try totp.verify("726238", at: Int64(1_732_990_060), window: 1, replayGuard: guardian)
        }
        #expect(guardian.lastUsedStep == 57_766_336)
        // A wrong code is still "wrong", not "used".
        #expect(throws: CryptoError.invalidCode) {
            try totp.verify("000000", at: Int64(1_732_990_060), window: 1, replayGuard: guardian)
        }
    }

    @Test("B08: parallel submissions of one code, exactly one wins", arguments: 0..<5)
    func b08Parallel(_ round: Int) throws {
        let totp = try TOTP(secret: Keys.k20)
        let guardian = TOTPReplayGuard(lastUsedStep: 57_766_334)
        let outcomes = Outcomes()
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            do {
                _ = try totp.verify("251166", at: Int64(1_732_990_090), window: 1, replayGuard: guardian)
                outcomes.record(success: true)
            } catch {
                outcomes.record(success: false, alreadyUsed: error as? CryptoError == .codeAlreadyUsed)
            }
        }
        #expect(outcomes.successes == 1)
        #expect(outcomes.replays == 15)
        #expect(guardian.lastUsedStep == 57_766_336)
    }

    @Test("the replay guard only moves forward")
    func guardMonotonic() throws {
        let guardian = TOTPReplayGuard(lastUsedStep: 10)
        #expect(throws: CryptoError.codeAlreadyUsed) { try guardian.consume(10) }
        #expect(throws: CryptoError.codeAlreadyUsed) { try guardian.consume(3) }
        try guardian.consume(11)
        #expect(guardian.lastUsedStep == 11)
    }
}

/// Thread-safe tally for the parallel test.
final class Outcomes: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var successes = 0
    private(set) var replays = 0
    func record(success: Bool, alreadyUsed: Bool = false) {
        lock.lock()
        defer { lock.unlock() }
        if success { successes += 1 } else if alreadyUsed { replays += 1 }
    }
}

// MARK: Review fixes (whitespace in codes, time overflow, bounded windows, literals)

extension OTPTests {
    @Test("B34: whitespace anywhere in a submitted code is ignored; other characters are not")
    func b34WhitespaceInCodes() throws {
        let totp = try TOTP(secret: Keys.k20)
        for typed in [
            " 287082", "287 082", "287082\n", "\t287082\r\n", "2 8 7 0 8 2", "\u{00A0}287\u{2009}082\u{3000}",
        ] {
            #expect(try totp.verify(typed, at: 59, window: 0) == 1, "\(typed.debugDescription)")
        }
        #expect(try TOTP(secret: Keys.k20).verify(" 005924", at: 1_234_567_890) == 41_152_263)
        #expect(try TOTP(secret: Keys.k20).verify("005924 ", at: 1_234_567_890) == 41_152_263)
        for malformed in ["28708a", "28708", "2870822", " 2870 8", "287-082", "\u{200B}287082", "２８７０８２", "   "] {
            #expect(throws: CryptoError.invalidCodeFormat, "\(malformed.debugDescription)") {
                try totp.verify(malformed, at: 59, window: 0)
            }
        }
        let hotp = try HOTP(secret: Keys.k20)
        #expect(try hotp.verify(" 755 224\n", counter: 0) == 0)
        #expect(throws: CryptoError.invalidCodeFormat) { try hotp.verify("755 22", counter: 0) }
    }

    @Test("the ASCII fast path of code parsing agrees with the Unicode path on every ASCII byte and beyond")
    func asciiFastPathAgreesWithUnicodePath() {
        func outcome(_ parse: () throws -> UInt32) -> String {
            do { return String(try parse()) } catch { return "\(error)" }
        }
        var inputs: [String] = []
        for value in 0..<0x80 {
            let character = String(UnicodeScalar(UInt8(value)))
            inputs += ["287" + character + "082", character + "287082", "287082" + character, "28708" + character]
        }
        inputs += ["\u{85}287082", "\u{A0}287082", "287\u{2009}082", "２８７０８２", "287082\u{3000}", "\u{1F}287082", ""]
        for input in inputs {
            let fast = outcome { try OTPCode.parse(input, digits: 6) }
            let general = outcome { try OTPCode.parseUnicode(input, digits: 6) }
            #expect(fast == general, "\(input.debugDescription)")
        }
    }

    @Test("time arithmetic never traps: extreme Int64 times are exact, unrepresentable Doubles throw timeOutOfRange")
    func timeOverflow() throws {
        let early = try TOTP(secret: Keys.k20, t0: -1)
        // Int64.max - (-1) = 2^63 seconds elapsed: 2^63 mod 30 = 8, so 22 seconds remain.
        #expect(try early.secondsRemaining(at: .max) == 22)
        #expect(try early.timeStep(at: Int64.max) == 307_445_734_561_825_860)
        let earliest = try TOTP(secret: Keys.k20, t0: .min)
        #expect(try earliest.timeStep(at: Int64.max) == 614_891_469_123_651_720)
        #expect(try earliest.secondsRemaining(at: Int64.max) == 30 - Int64((UInt64.max % 30)))
        #expect(try earliest.code(at: Int64.max).count == 6)
        #expect(try earliest.timeStep(at: Int64.min) == 0)
        #expect(throws: CryptoError.invalidTime) { try early.secondsRemaining(at: Int64.min) }
        #expect(throws: CryptoError.invalidTime) { try early.timeStep(at: Int64(-2)) }
        let last = try early.code(at: Int64.max)
        #expect(try early.verify(last, at: Int64.max, window: TOTP.maximumWindow) == 307_445_734_561_825_860)

        let totp = try TOTP(secret: Keys.k20)
        for bad in [Double.nan, .infinity, -.infinity, 1e30, -1e30, 0x1p63, -0x1p64, .greatestFiniteMagnitude] {
            #expect(throws: CryptoError.timeOutOfRange, "\(bad)") {
                try totp.code(at: Date(timeIntervalSince1970: bad))
            }
            #expect(throws: CryptoError.timeOutOfRange, "\(bad)") {
                try totp.verify("287082", at: Date(timeIntervalSince1970: bad))
            }
        }
        #expect(throws: CryptoError.invalidTime) { try totp.code(at: Date(timeIntervalSince1970: -0.5)) }
        #expect(try totp.code(at: Date(timeIntervalSince1970: 59.999)) == "287082")
        #expect(CryptoError.timeOutOfRange.description != CryptoError.invalidTime.description)
        #expect(!CryptoError.timeOutOfRange.description.contains("T0"))
    }

    @Test("drift windows and HOTP look-ahead are bounded", .timeLimit(.minutes(10)))
    func boundedWindows() throws {
        let totp = try TOTP(secret: Keys.k20)
        #expect(TOTP.maximumWindow == 10)
        for window in [Int.max, 11, 1_000_000, Int.min] {
            #expect(throws: CryptoError.invalidParameter("window"), "\(window)") {
                try totp.verify("287082", at: 59, window: window)
            }
            #expect(throws: CryptoError.invalidParameter("window")) {
                try totp.verify("287082", at: 59, window: window, replayGuard: TOTPReplayGuard())
            }
        }
        // 10 steps (300 s) either side is still accepted.
        #expect(try totp.verify("287082", at: 59 + 300, window: 10) == 1)
        let hotp = try HOTP(secret: Keys.k20)
        #expect(HOTP.maximumLookAhead == 1000)
        for lookAhead in [Int.max, 1001, -1] {
            #expect(throws: CryptoError.invalidParameter("lookAhead"), "\(lookAhead)") {
                try hotp.verify("755224", counter: 0, lookAhead: lookAhead)
            }
        }
        let far = hotp.code(counter: 1000)
        #expect(try hotp.verify(far, counter: 0, lookAhead: 1000) <= 1000)
    }

    @Test("integer literals are Int64 seconds: code(at: 59) compiles")
    func integerLiterals() throws {
        let totp = try TOTP(secret: Keys.k20)
        #expect(try totp.code(at: 59) == "287082")
        #expect(try totp.timeStep(at: 59) == 1)
        #expect(try totp.secondsRemaining(at: 59) == 1)
        #expect(try totp.verify("287082", at: 59) == 1)
        #expect(try totp.verify("287082", at: 59, window: 0, lastUsedStep: 0) == 1)
        #expect(try totp.verify("287082", at: 59, replayGuard: TOTPReplayGuard()) == 1)
        #expect(throws: CryptoError.codeAlreadyUsed) {
            try totp.verify("287082", at: 59, lastUsedStep: 1, replayGuard: TOTPReplayGuard())
        }
        #expect(try totp.code(at: Date(timeIntervalSince1970: 59.5)) == "287082")
        #expect(try totp.code(at: .max).count == 6)
        #expect(try totp.timeStep(at: .max) == UInt64(Int64.max / 30))
        #expect(try totp.secondsRemaining(at: .max) == 30 - Int64.max % 30)
        let seconds = Int64(60)
        #expect(try totp.code(at: seconds) == "359152")
        #expect(try totp.timeStep(at: seconds) == 2)
        #expect(try totp.secondsRemaining(at: seconds) == 30)
        #expect(try totp.verify("359152", at: seconds) == 2)
        #expect(try totp.verify("359152", at: seconds, replayGuard: TOTPReplayGuard()) == 2)
    }

    @Test("an empty secret says so")
    func emptySecret() throws {
        #expect(throws: CryptoError.emptySecret) { try TOTP(secret: Base32.decode(" \u{00A0} ")) }
        #expect(throws: CryptoError.emptySecret) { try HOTP(secret: []) }
        #expect(CryptoError.emptySecret.description == "the secret is empty")
    }
}
