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

    @Test("every TOTP vector of RFC 6238 appendix B, as Int64, Double and Date")
    func totpVectors() throws {
        let vectors = RFCVectors.totp
        #expect(vectors.count == 18)
        for vector in vectors {
            let totp = try TOTP(
                secret: Array(vector.keyASCII.utf8), algorithm: try DigestAlgorithm(name: vector.algorithm),
                digits: vector.digits, period: vector.period)
            #expect(try totp.code(at: vector.time) == vector.code, "\(vector.algorithm) t=\(vector.time)")
            #expect(try totp.code(at: Double(vector.time) + 0.75) == vector.code)
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
        for malformed in ["5924", "05924", "0005924", "00592a", " 005924", "005924 ", "", "٠٠٥٩٢٤", "+05924", "-05924"] {
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
        #expect(throws: CryptoError.invalidKey) { try TOTP(secret: []) }
        let totp = try TOTP(secret: Keys.k20, t0: 100)
        #expect(throws: CryptoError.invalidTime) { try totp.code(at: Int64(99)) }
        #expect(try totp.timeStep(at: Int64(129)) == 0)
        #expect(try totp.timeStep(at: Int64(130)) == 1)
        #expect(throws: CryptoError.invalidTime) { try totp.code(at: Double.nan) }
        #expect(throws: CryptoError.invalidParameter("window")) { try totp.verify("123456", at: Int64(1000), window: -1) }
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
