import Foundation
import MultiAuthCrypto
import Testing

/// Keys are namespaced and hashed; nothing identifying is stored in clear (Docs/Server.md, "Keys").
@Suite(.timeLimit(.minutes(10)))  // hang guard only
struct StoreKeyTests {
    @Test func keysAreSHA256OfNamespaceAndIdentifier() throws {
        let key = try StoreKeyspace.default.key("totp", "alice@example.com")
        var input = Array("totp".utf8)
        input.append(0)
        input += Array("alice@example.com".utf8)
        let hex = MessageDigest.sha256(input).map { String(format: "%02x", $0) }.joined()
        #expect(key.storageKey == "multiauth:totp:" + hex)
        #expect(key.namespace == "totp")
        #expect(!key.storageKey.contains("alice"))
        #expect(String(describing: key) == key.storageKey)
        // Domain separation: the same identifier in another namespace is another key.
        #expect(try StoreKeyspace.default.key("totp.attempts", "alice@example.com") != key)
    }

    @Test func aKeyedKeyspaceUsesHMACAndDiffersPerSecret() throws {
        let secret = Array(repeating: UInt8(7), count: 32)
        let keyed = try StoreKeyspace(prefix: "app-1", secret: secret)
        #expect(keyed.isKeyed)
        let key = try keyed.key("totp", "+919876543210")
        var input = Array("totp".utf8)
        input.append(0)
        input += Array("+919876543210".utf8)
        let mac = HMAC.authenticationCode(for: input, key: secret, algorithm: .sha256)
        #expect(key.storageKey == "app-1:totp:" + mac.map { String(format: "%02x", $0) }.joined())
        let other = try StoreKeyspace(prefix: "app-1", secret: Array(repeating: 8, count: 32))
        #expect(try other.key("totp", "+919876543210") != key)
    }

    @Test func prefixesNamespacesAndSecretsAreChecked() {
        #expect(throws: CryptoError.invalidParameter("prefix")) { _ = try StoreKeyspace(prefix: "a:b") }
        #expect(throws: CryptoError.invalidParameter("prefix")) { _ = try StoreKeyspace(prefix: "") }
        #expect(throws: CryptoError.invalidParameter("secret")) { _ = try StoreKeyspace(secret: [1, 2, 3]) }
        #expect(throws: CryptoError.invalidParameter("namespace")) { _ = try StoreKeyspace.default.key("a b", "x") }
        #expect(throws: CryptoError.invalidParameter("namespace")) {
            _ = try StoreKeyspace.default.key(String(repeating: "n", count: 65), "x")
        }
    }

    @Test func durationsBecomeWholeMillisecondsRoundedUpAndBounded() throws {
        #expect(try ReplayStoreLimits.milliseconds(.microseconds(1), name: "ttl") == 1)
        #expect(try ReplayStoreLimits.milliseconds(.milliseconds(1500), name: "ttl") == 1500)
        #expect(try ReplayStoreLimits.milliseconds(.nanoseconds(1_500_001), name: "ttl") == 2)
        #expect(try ReplayStoreLimits.milliseconds(ReplayStoreLimits.maximumTTL, name: "ttl") == 31_622_400_000)
        #expect(throws: CryptoError.invalidParameter("ttl")) {
            _ = try ReplayStoreLimits.milliseconds(.zero, name: "ttl")
        }
        #expect(throws: CryptoError.invalidParameter("window")) {
            _ = try ReplayStoreLimits.milliseconds(ReplayStoreLimits.maximumTTL + .nanoseconds(1), name: "window")
        }
        #expect(throws: CryptoError.invalidParameter("limit")) { try ReplayStoreLimits.check(limit: 0) }
    }
}
