import Foundation
import Testing

@testable import MultiAuthCrypto

/// The HMAC of a prepared key (``HMACKey``; on Linux the inner and outer hash states are
/// computed once and copied per MAC) must equal the one-shot HMAC (libcrypto's `HMAC()` on
/// Linux) for every key length, message length and algorithm, and the published vectors.
@Suite("HMAC from precomputed key states equals the one-shot HMAC")
struct PrecomputedHMACTests {
    /// The MAC of `message` through a prepared key (any length, 0 included: the context under
    /// ``HMACKey``, which itself refuses empty keys).
    static func prepared(_ key: [UInt8], _ message: [UInt8], _ algorithm: DigestAlgorithm) throws -> [UInt8] {
        let context = try MACContext(key: key, algorithm: algorithm)
        return message.withUnsafeBytes { input in context.withMAC(of: input) { Array($0) } }
    }

    @Test(
        "random keys of 0...200 bytes (past the 64- and 128-byte blocks), random messages",
        arguments: [DigestAlgorithm.sha1, .sha256, .sha512])
    func randomKeys(_ algorithm: DigestAlgorithm) throws {
        var random = SplitMix64(state: 0x4D41_4854 &+ UInt64(algorithm.byteCount))
        // Message lengths around the padding boundaries of both block sizes, plus random ones.
        let boundaries = [0, 1, 8, 20, 55, 56, 63, 64, 65, 111, 112, 127, 128, 129, 300]
        for keyLength in 0...200 {
            let key = random.bytes(keyLength)
            let lengths = [boundaries[keyLength % boundaries.count], Int.random(in: 0...300, using: &random)]
            for length in lengths {
                let message = random.bytes(length)
                let expected = HMAC.authenticationCode(for: message, key: key, algorithm: algorithm)
                #expect(
                    try Self.prepared(key, message, algorithm) == expected,
                    "\(algorithm) key \(keyLength) bytes, message \(length) bytes")
            }
            // The counter path (a TOTP window), against the one-shot HMAC of each 8-byte counter.
            let context = try MACContext(key: key, algorithm: algorithm)
            let first = random.next()
            let counters = first...(first &+ 2 < first ? UInt64.max : first + 2)
            var seen: [UInt64] = []
            context.forEachCounterMAC(counters) { counter, mac in
                seen.append(counter)
                let expected = HMAC.authenticationCode(
                    for: withUnsafeBytes(of: counter.bigEndian, Array.init), key: key, algorithm: algorithm)
                #expect(Array(mac) == expected, "\(algorithm) key \(keyLength) bytes, counter \(counter)")
            }
            #expect(seen == Array(counters))
        }
    }

    @Test("HMAC-SHA1 of RFC 2202 (a 20-byte key, a short key, 80-byte keys hashed first)")
    func rfc2202() throws {
        let cases: [(key: [UInt8], data: [UInt8], mac: String)] = [
            ([UInt8](repeating: 0x0b, count: 20), Array("Hi There".utf8), "b617318655057264e28bc0b6fb378c8ef146be00"),
            (
                Array("Jefe".utf8), Array("what do ya want for nothing?".utf8),
                "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79"
            ),
            (
                [UInt8](repeating: 0xaa, count: 20), [UInt8](repeating: 0xdd, count: 50),
                "125d7342b9ac11cd91a39af48aa17b4f63f175d3"
            ),
            (
                [UInt8](repeating: 0xaa, count: 80),
                Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
                "aa4ae5e15272d00e95705637ce8a3b55ed402112"
            ),
            (
                [UInt8](repeating: 0xaa, count: 80),
                Array("Test Using Larger Than Block-Size Key and Larger Than One Block-Size Data".utf8),
                "e8e99d0f45237d786d6bbaa7965c7808bbff1a91"
            ),
        ]
        for item in cases {
            #expect(Hex.encode(try Self.prepared(item.key, item.data, .sha1)) == item.mac)
            #expect(Hex.encode(HMAC.authenticationCode(for: item.data, key: item.key, algorithm: .sha1)) == item.mac)
        }
    }

    @Test("HMAC-SHA256/512 of RFC 4231 (131-byte keys hashed first)", arguments: DigestTests.rfc4231)
    func rfc4231(_ vector: DigestTests.HMACVector) throws {
        let key = Hex.decode(vector.key)
        let data = Hex.decode(vector.data)
        #expect(Hex.encode(try Self.prepared(key, data, .sha256)) == vector.sha256)
        #expect(Hex.encode(try Self.prepared(key, data, .sha512)) == vector.sha512)
    }

    @Test("the HMAC-SHA1 values of RFC 4226 appendix D, counter by counter")
    func rfc4226() throws {
        let key = try HMACKey(Array(RFCVectors.hotpKeyASCII.utf8), algorithm: .sha1)
        let macs = [
            "cc93cf18508d94934c64b65d8ba7667fb7cde4b0", "75a48a19d4cbe100644e8ac1397eea747a2d33ab",
            "0bacb7fa082fef30782211938bc1c5e70416ff44", "66c28227d03a2d5529262ff016a1e6ef76557ece",
            "a904c900a64b35909874b33e61c5938a8e15ed1c", "a37e783d7b7233c083d4f62926c7a25f238d0316",
            "bc9cd28561042c83f219324d3c607256c03272ae", "a4fb960c0bc06e1eabb804e5b397cdc4b45596fa",
            "1b3c89f65e6c9e883012052823443f048b4332db", "1637409809a679dc698207310c8c7fc07290d9e5",
        ]
        var seen = 0
        key.forEachCounterAuthenticationCode(0...9) { counter, mac in
            #expect(Hex.encode(Array(mac)) == macs[Int(counter)], "counter \(counter)")
            seen += 1
        }
        #expect(seen == 10)
        for (counter, mac) in macs.enumerated() {
            #expect(key.withAuthenticationCode(forCounter: UInt64(counter)) { Hex.encode(Array($0)) } == mac)
        }
    }

    @Test("one key used by many tasks at once gives every task the same MACs")
    func sharedAcrossTasks() async throws {
        let key = try HMACKey(Array(RFCVectors.hotpKeyASCII.utf8), algorithm: .sha1)
        let expected = (0..<64 as Range<UInt64>).map { counter in
            HMAC.authenticationCode(
                for: withUnsafeBytes(of: counter.bigEndian, Array.init), key: Array(RFCVectors.hotpKeyASCII.utf8),
                algorithm: .sha1)
        }
        let mismatches = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var wrong = 0
                    for _ in 0..<50 {
                        key.forEachCounterAuthenticationCode(0...63) { counter, mac in
                            if Array(mac) != expected[Int(counter)] { wrong += 1 }
                        }
                    }
                    return wrong
                }
            }
            return await group.reduce(0, +)
        }
        #expect(mismatches == 0)
    }
}

extension SplitMix64 {
    /// `count` reproducible pseudo-random bytes.
    mutating func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255, using: &self) }
    }
}
