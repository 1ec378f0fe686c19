import CMultiAuthBench
import CMultiAuthCrypto
import Foundation
import MultiAuthCrypto

/// TOTP verification with a ±1 window (RFC 6238 §5.2): against the three raw HMAC-SHA1s any
/// verifier must compute, at the floor (SHA-1 states keyed once and copied per counter, in C),
/// against the same three HMACs through one keyed `EVP_MAC` context (the earlier floor), and
/// against pyotp on the same key, code and times.
enum TOTPBench {
    static let secret = Array("12345678901234567890".utf8)
    /// Verified at t and t + 1 alternately (both in step 41 152 263); the code is that step's.
    static let time: Int64 = 1_234_567_890
    static let code = "005924"

    static let ours = Kernel("totp.ours", batch: 20_000, instructions: 2_000) {
        let totp = try TOTP(secret: secret, digits: 6)
        return Kernel.timed { count in
            var sink: UInt64 = 0
            for index in 0..<count {
                sink &+= try totp.verify(code, at: time + Int64(index & 1), window: 1)
            }
            blackHole(sink)
        }
    }

    static let keyedStates = Kernel("totp.sha1states3", batch: 20_000, instructions: 2_000) {
        let context = try PrecomputedHMAC(key: secret)
        return Kernel.timed { count in
            var sink: UInt8 = 0
            for _ in 0..<count {
                for step: UInt64 in 41_152_262...41_152_264 { sink ^= context.mac(counter: step) }
            }
            blackHole(sink)
        }
    }

    static let rawHMACs = Kernel("totp.hmac3", batch: 20_000, instructions: 2_000) {
        let context = try RawHMAC(key: secret)
        return Kernel.timed { count in
            var sink: UInt8 = 0
            for _ in 0..<count {
                for step: UInt64 in 41_152_262...41_152_264 { sink ^= context.mac(counter: step) }
            }
            blackHole(sink)
        }
    }

    static let pyotp = Kernel("totp.pyotp", batch: 5_000, instructions: 1_000, python: [Paths.script("bench_pyotp.py")])

    static let comparisons = [
        Comparison(
            group: "TOTP", label: "verify ±1 window vs three HMAC-SHA1 from precomputed SHA-1 key states (C)",
            ours: ours, baseline: keyedStates, goal: .atMost(1.1)),
        Comparison(
            group: "TOTP", label: "verify ±1 window vs three HMAC-SHA1 through one keyed EVP_MAC context", ours: ours,
            baseline: rawHMACs, goal: .none),
        Comparison(
            group: "TOTP", label: "verify ±1 window vs pyotp verify(valid_window=1)", ours: ours, baseline: pyotp,
            goal: .fasterBy(20),
            judgedOnTime: true,
            note:
                "Python peers: judged on time. Under valgrind, libcrypto runs without SHA-NI and ADX (valgrind hides them), "
                + "so the crypto both sides share costs more instructions than natively and the instruction ratio "
                + "against an interpreter understates the native difference; both figures are printed."),
    ]
}

/// HMAC-SHA1 from SHA-1 states keyed once (`mab_hmac_sha1_*`, libcrypto's `SHA1_*` in C),
/// copied per MAC: the floor.
final class PrecomputedHMAC {
    private let state: OpaquePointer

    init(key: [UInt8]) throws {
        guard let state = key.withUnsafeBufferPointer({ mab_hmac_sha1_new($0.baseAddress, $0.count) }) else {
            throw BenchError("mab_hmac_sha1_new (built without libcrypto's headers?)")
        }
        self.state = state
    }

    deinit { mab_hmac_sha1_free(state) }

    /// HMAC of the 8-byte big-endian counter; returns the last byte (so the work is used).
    @inline(__always)
    func mac(counter: UInt64) -> UInt8 {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { output in
            mab_hmac_sha1_counter(state, counter, output.baseAddress)
            return output[19]
        }
    }
}

/// One HMAC-SHA1 `EVP_MAC` context keyed once and re-initialised per MAC: the earlier floor,
/// kept as an extra row (most of its cost above the floor is `EVP_MAC` dispatch).
final class RawHMAC {
    private let mac: OpaquePointer
    private let context: OpaquePointer

    init(key: [UInt8]) throws {
        guard let mac = EVP_MAC_fetch(nil, "HMAC", nil), let context = EVP_MAC_CTX_new(mac) else {
            throw BenchError("EVP_MAC_fetch")
        }
        self.mac = mac
        self.context = context
        let digestKey = strdup("digest")!
        let sha1 = strdup("SHA1")!
        defer {
            free(digestKey)
            free(sha1)
        }
        var params = [OSSL_PARAM_construct_utf8_string(digestKey, sha1, 0), OSSL_PARAM_construct_end()]
        guard key.withUnsafeBufferPointer({ EVP_MAC_init(context, $0.baseAddress, $0.count, &params) }) == 1 else {
            throw BenchError("EVP_MAC_init")
        }
    }

    deinit {
        EVP_MAC_CTX_free(context)
        EVP_MAC_free(mac)
    }

    /// HMAC of the 8-byte big-endian counter; returns the last byte (so the work is used).
    @inline(__always)
    func mac(counter: UInt64) -> UInt8 {
        var message = counter.bigEndian
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { output in
            var length = 0
            withUnsafeBytes(of: &message) { bytes in
                _ = EVP_MAC_init(context, nil, 0, nil)
                _ = EVP_MAC_update(context, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), 8)
                _ = EVP_MAC_final(context, output.baseAddress, &length, 64)
            }
            return output[19]
        }
    }
}
