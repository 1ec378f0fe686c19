import Foundation
import MultiAuth
import MultiAuthCrypto

/// Checks a one-tap ``TruecallerProfileResponse``: algorithm, signature, nonce and age, then
/// decodes the profile (Docs/Providers/Truecaller.md).
///
/// The iOS SDK checks neither the signature nor the nonce (`TCTrueSDK.m` only base64-decodes the payload); this type does
/// both, in this order:
/// 1. `signatureAlgorithm` must be `SHA512withRSA` (case-insensitive) → else code 15.
/// 2. The signature (standard base64, base64url tolerated) must verify with RSASSA-PKCS1-v1_5
///    / SHA-512 over the UTF-8 bytes of the `payload` string under **any** key from the key
///    endpoint. Keys are cached in ``keyStore``; when no cached key verifies, the keys are
///    fetched again once (rotation) and every key tried again → else code 15.
/// 3. `response.requestNonce` and the payload's `requestNonce` must both equal the nonce the
///    app issued → else code 16.
/// 4. [ASSUMPTION] the payload's `requestTime` must be no older than
///    ``TruecallerConfiguration/maximumProfileAge`` (10 minutes) → else `.expired`.
/// 5. [ASSUMPTION] when the payload has a `verifier` and a bundle id is configured, it must be
///    base64 HMAC-SHA256(key: app key, message: bundle id) → else code 15.
///
/// 6. With a ``replayStore`` (on a server; Docs/Server.md), the nonce is then used once across
///    every server sharing the store, for ``nonceReplayTTL`` → else `.codeAlreadyUsed`; when the
///    store cannot answer, the retryable `.storageUnavailable` (nothing accepted).
///
/// Usable on a server too (no UIKit). Concurrency: a `Sendable` value; the key cache is an
/// actor shared by copies.
public struct TruecallerProfileVerifier: Sendable {
    /// The configuration (key endpoint, profile age, app key and bundle id).
    public let configuration: TruecallerConfiguration
    /// The cache of signing keys.
    public let keyStore: TruecallerKeyStore
    /// The shared store that makes each nonce single-use, or `nil` (no single-use check: the
    /// caller must forget the nonce it issued after one verification).
    public let replayStore: (any ReplayStore)?

    /// The namespace of nonce keys in the replay store: `truecaller.nonce`.
    public static let nonceReplayNamespace = "truecaller.nonce"

    /// How long a used nonce is remembered: the accepted profile age plus 60 s of clock skew,
    /// so a profile is refused as a replay for as long as it would be accepted by age.
    public var nonceReplayTTL: Duration { configuration.maximumProfileAge + .seconds(60) }

    /// The only accepted `signatureAlgorithm`.
    public static let signatureAlgorithm = "SHA512withRSA"

    /// Creates a verifier with its own key cache for `configuration.keyEndpoint`.
    public init(configuration: TruecallerConfiguration) {
        self.init(configuration: configuration, keyStore: TruecallerKeyStore(endpoint: configuration.keyEndpoint))
    }

    /// Creates a verifier sharing `keyStore`.
    public init(configuration: TruecallerConfiguration, keyStore: TruecallerKeyStore) {
        self.init(configuration: configuration, keyStore: keyStore, replayStore: nil)
    }

    /// Creates a verifier whose nonces are single-use through `replayStore` (a server's set-up,
    /// Docs/Server.md).
    ///
    /// - Parameters:
    ///   - configuration: the configuration.
    ///   - keyStore: the key cache; a new one for `configuration.keyEndpoint` by default.
    ///   - replayStore: the shared store, or `nil` for no single-use check.
    public init(
        configuration: TruecallerConfiguration, keyStore: TruecallerKeyStore? = nil, replayStore: (any ReplayStore)?
    ) {
        self.configuration = configuration
        self.keyStore = keyStore ?? TruecallerKeyStore(endpoint: configuration.keyEndpoint)
        self.replayStore = replayStore
    }

    /// Verifies `response` and returns its profile.
    /// - Parameters:
    ///   - response: The one-tap response as received.
    ///   - expectedNonce: The nonce the app issued for this request.
    ///   - context: Transport (for the key endpoint) and time (for the profile age).
    /// - Returns: The decoded, verified profile.
    /// - Throws: `AuthError` `.signatureInvalid` with provider code `"15"` (algorithm,
    ///   signature, verifier) or `"16"` (nonce); `.malformedResponse` with `"13"` (payload not
    ///   base64 JSON); `.expired` (stale `requestTime`); `.invalidInput` (blank expected
    ///   nonce); with a ``replayStore``, `.codeAlreadyUsed` (the nonce was already used) and
    ///   `.storageUnavailable` (retryable: the store cannot answer); the key endpoint's errors;
    ///   `CancellationError`.
    public func verify(_ response: TruecallerProfileResponse, expectedNonce: String, context: AuthContext) async throws
        -> TruecallerProfile
    {
        guard !expectedNonce.isEmpty else {
            throw AuthError(.invalidInput, "the expected nonce is empty", provider: .truecaller)
        }
        guard response.signatureAlgorithm.caseInsensitiveCompare(Self.signatureAlgorithm) == .orderedSame else {
            throw TruecallerErrorCode.verificationFailed.authError("unsupported signature algorithm")
        }
        guard let signature = Self.decodeSignature(response.signature.reveal()) else {
            throw TruecallerErrorCode.verificationFailed.authError("the signature is not base64")
        }
        let message = Array(response.payload.reveal().utf8)
        var (keys, fetched) = try await keyStore.keys(transport: context.transport)
        var verified = Self.anyVerifies(keys, signature: signature, message: message)
        if !verified && !fetched,
            let fresh = try await keyStore.refetchAfterFailure(transport: context.transport, now: context.now)
        {
            keys = fresh
            verified = Self.anyVerifies(keys, signature: signature, message: message)
        }
        guard verified else {
            throw TruecallerErrorCode.verificationFailed.authError(
                "the profile signature does not verify with any Truecaller key")
        }
        guard ConstantTime.equals(Array(response.requestNonce.reveal().utf8), Array(expectedNonce.utf8)) else {
            throw TruecallerErrorCode.requestNonceMismatch.authError("the response nonce is not the request nonce")
        }
        guard let json = try? Base64.decode(response.payload.reveal().filter { !$0.isWhitespace }) else {
            throw TruecallerErrorCode.userProfileContentNotValid.authError("the payload is not base64")
        }
        let profile = try TruecallerProfile(json: Data(json))
        guard let payloadNonce = profile.requestNonce,
            ConstantTime.equals(Array(payloadNonce.utf8), Array(expectedNonce.utf8))
        else {
            throw TruecallerErrorCode.requestNonceMismatch.authError("the payload nonce is not the request nonce")
        }
        if let requestTime = profile.requestTime,
            context.now.timeIntervalSince(requestTime) > configuration.maximumProfileAge.timeInterval
        {
            throw AuthError(.expired, "the profile is older than the accepted age", provider: .truecaller)
        }
        if let verifier = profile.verifier, let bundleID = configuration.bundleID {
            let valid = (try? Base64.decode(verifier)).map {
                HMAC.isValidAuthenticationCode(
                    $0, for: Array(bundleID.utf8), key: Array(configuration.appKey.reveal().utf8), algorithm: .sha256)
            }
            guard valid == true else {
                throw TruecallerErrorCode.verificationFailed.authError(
                    "the payload verifier does not match the bundle id")
            }
        }
        if let replayStore {
            // Last, after every check passed: a forged or stale response never burns a nonce.
            let first: Bool
            do {
                first = try await replayStore.consumeOnce(
                    key: try replayStore.keyspace.key(Self.nonceReplayNamespace, expectedNonce), ttl: nonceReplayTTL)
            } catch let error as StoreUnavailableError {
                throw AuthError(
                    .storageUnavailable, "the replay store cannot answer; nothing was accepted (\(error.cause))",
                    provider: .truecaller, retryAfter: error.retryAfter, underlying: error)
            } catch let error as CryptoError {
                throw AuthError(
                    .configuration, "the replay store refused the call (\(error))", provider: .truecaller,
                    underlying: error)
            }
            guard first else {
                throw AuthError(.codeAlreadyUsed, "this request nonce was already used", provider: .truecaller)
            }
        }
        return profile
    }

    private static func anyVerifies(_ keys: [PublicKey], signature: [UInt8], message: [UInt8]) -> Bool {
        keys.contains { $0.isValidSignature(signature, for: message, algorithm: .rs512) }
    }

    private static func decodeSignature(_ text: String) -> [UInt8]? {
        let compact = text.filter { !$0.isWhitespace }
        if let bytes = try? Base64.decode(compact) { return bytes }
        return try? Base64URL.decode(compact)
    }
}
