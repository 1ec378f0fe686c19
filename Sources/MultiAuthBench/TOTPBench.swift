import Foundation
import MultiAuthCrypto
#if canImport(CMultiAuthCrypto)
import CMultiAuthCrypto
#endif

/// TOTP verification with a ±1 window against three raw HMACs through a reused `EVP_MAC`
/// context (the floor: what any TOTP verifier must compute).
enum TOTPBench {
    static let secret = Array("12345678901234567890".utf8)
    static let iterations = 200_000

    static func ours(repeats: Int) throws -> Double {
        let totp = try TOTP(secret: secret, digits: 6)
        let time: Int64 = 1_234_567_890
        let code = try totp.code(at: time)
        var sink: UInt64 = 0
        let result = try Measure.nanosPerOperation(repeats: repeats, operations: iterations) {
            for offset in 0..<Int64(iterations) {
                // Same step for every call: the window's three HMACs are computed each time.
                sink &+= try totp.verify(code, at: time + (offset & 1), window: 1)
            }
        }
        precondition(sink != 1)
        return result
    }

    #if canImport(CMultiAuthCrypto)
    static func rawEVPMAC(repeats: Int) -> Double {
        let mac = EVP_MAC_fetch(nil, "HMAC", nil)!
        let context = EVP_MAC_CTX_new(mac)!
        defer {
            EVP_MAC_CTX_free(context)
            EVP_MAC_free(mac)
        }
        let result = withUnsafeTemporaryAllocation(of: OSSL_PARAM.self, capacity: 2) { params -> Double in
            let digestKey = strdup("digest")!
            let sha1 = strdup("SHA1")!
            defer {
                free(digestKey)
                free(sha1)
            }
            params[0] = OSSL_PARAM_construct_utf8_string(digestKey, sha1, 0)
            params[1] = OSSL_PARAM_construct_end()
            _ = secret.withUnsafeBufferPointer { EVP_MAC_init(context, $0.baseAddress, $0.count, params.baseAddress) }
            var output = [UInt8](repeating: 0, count: 64)
            var sink: UInt8 = 0
            return Measure.nanosPerOperation(repeats: repeats, operations: iterations) {
                for index in 0..<UInt64(iterations) {
                    for step in (41_152_262 + (index & 1))...(41_152_264 + (index & 1)) {
                        var counter = step.bigEndian
                        var length = 0
                        withUnsafeBytes(of: &counter) { bytes in
                            _ = EVP_MAC_init(context, nil, 0, nil)
                            _ = EVP_MAC_update(context, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), 8)
                            _ = EVP_MAC_final(context, &output, &length, 64)
                        }
                        sink ^= output[19]
                    }
                }
            }
        }
        return result
    }
    #endif

    static func run(repeats: Int) throws -> [BenchRow] {
        let mine = try ours(repeats: repeats)
        #if canImport(CMultiAuthCrypto)
        let raw = rawEVPMAC(repeats: repeats)
        let ratio = mine / raw
        var rows = [BenchRow(
            group: "TOTP", name: "verify ±1 window", value: mine, unit: "ns/op", baseline: raw,
            ratioLabel: String(format: "%.2f× three raw EVP_MAC HMACs", ratio), goal: "≤ 1.25×", met: ratio <= 1.25)]
        #else
        var rows = [BenchRow(group: "TOTP", name: "verify ±1 window", value: mine, unit: "ns/op")]
        #endif
        rows.append(BenchRow(group: "TOTP", name: "verifications/s", value: 1e9 / mine, unit: "/s"))
        return rows
    }
}
