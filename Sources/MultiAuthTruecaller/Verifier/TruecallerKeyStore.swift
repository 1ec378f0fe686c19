import Foundation
import MultiAuth
import MultiAuthCrypto

/// The cache of Truecaller's profile-signing public keys, fetched from the key endpoint
/// (`GET /v1/key`: a JSON array of `{key, keyType}`, `key` being base64 DER
/// SubjectPublicKeyInfo; Docs/Providers/Truecaller.md).
///
/// Concurrency: an actor. Two callers that miss the cache at once may both fetch (the last
/// answer wins); fetching is idempotent.
public actor TruecallerKeyStore {
    /// The key endpoint.
    public let endpoint: URL
    private var cached: [PublicKey]?
    private var fetches = 0
    private var lastFailureRefetch: Date?

    /// The least time between two refetches caused by a signature that no cached key verifies,
    /// in seconds: forged profiles cannot make every verification hit the key endpoint.
    public static let minimumRefetchInterval: TimeInterval = 60

    /// Refetches because no cached key verified a signature, at most once per
    /// ``minimumRefetchInterval`` (measured on the caller's clock).
    /// - Parameters:
    ///   - transport: The HTTP transport the keys are fetched with.
    ///   - now: The current time from the caller's `TimeSource`.
    /// - Returns: The new keys, or `nil` when a refetch happened too recently.
    /// - Throws: As ``refetch(transport:)``.
    public func refetchAfterFailure(transport: any HTTPTransport, now: Date) async throws -> [PublicKey]? {
        if let last = lastFailureRefetch, now.timeIntervalSince(last) < Self.minimumRefetchInterval { return nil }
        lastFailureRefetch = now
        return try await refetch(transport: transport)
    }

    /// Creates an empty store for `endpoint`.
    public init(endpoint: URL) { self.endpoint = endpoint }

    /// How many times the endpoint was fetched (for diagnostics and tests).
    public var fetchCount: Int { fetches }

    /// Whether keys are cached.
    public var hasCachedKeys: Bool { cached != nil }

    /// Forgets the cached keys; the next ``keys(transport:)`` fetches.
    public func removeAll() { cached = nil }

    /// The cached keys, fetching them first when none are cached.
    /// - Returns: The keys and whether they were fetched by this call.
    /// - Throws: `AuthError` (see ``refetch(transport:)``) or `CancellationError`.
    public func keys(transport: any HTTPTransport) async throws -> (keys: [PublicKey], fetched: Bool) {
        if let cached { return (cached, false) }
        return (try await refetch(transport: transport), true)
    }

    /// Fetches the keys again and replaces the cache.
    ///
    /// Entries whose `keyType` is not `RSA`, or whose key the crypto layer refuses (it accepts
    /// RSA of 2048 bits or more only), are skipped.
    /// - Returns: The usable keys.
    /// - Throws: `AuthError` `.providerUnavailable` / `.network` when the fetch fails,
    ///   `.malformedResponse` with provider code `"13"` when the body is not an array of
    ///   `{key, keyType}` or holds no usable key; `CancellationError`.
    @discardableResult
    public func refetch(transport: any HTTPTransport) async throws -> [PublicKey] {
        fetches += 1
        let response = try await transport.send(
            HTTPRequest(method: .get, url: endpoint, headers: ["Accept": "application/json"]))
        guard response.isSuccess else {
            if response.commonErrorCode != nil {
                throw AuthError(
                    .providerUnavailable, "key endpoint answered HTTP \(response.status)", provider: .truecaller,
                    providerCode: String(response.status))
            }
            throw AuthError(
                .malformedResponse, "key endpoint answered HTTP \(response.status)", provider: .truecaller,
                providerCode: String(response.status))
        }
        guard let entries = (try? JSONDecoder().decode(JSONValue.self, from: response.body))?.arrayValue else {
            throw TruecallerErrorCode.userProfileContentNotValid.authError(
                "the key endpoint did not return a JSON array")
        }
        let keys: [PublicKey] = entries.compactMap { entry in
            guard entry["keyType"]?.stringValue?.uppercased() == "RSA", let text = entry["key"]?.stringValue,
                let der = try? Base64.decode(text.filter { !$0.isWhitespace })
            else { return nil }
            // The published key is RSA-1024 (Docs/Providers/Truecaller.md); we must accept
            // whatever the endpoint serves, so the 2048-bit floor is lowered to 1024 here only.
            return try? PublicKey(derRepresentation: der, minimumRSABits: 1024)
        }
        guard !keys.isEmpty else {
            throw TruecallerErrorCode.userProfileContentNotValid.authError(
                "the key endpoint returned no usable RSA key")
        }
        cached = keys
        return keys
    }
}
