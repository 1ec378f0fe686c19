import Foundation
import MultiAuthLocking

/// Caches an issuer's JWKS and verifies JWTs against it, refetching once when a token names
/// a key the cache does not have (key rotation), and backing off from an issuer that fails.
///
/// The cache fetches through the closure it is given (so it never touches the network
/// itself) and never reads the clock: every call passes the verifier's `now` (from its
/// `TimeSource`).
///
/// - A first call fetches the set. Later calls reuse it until it is older than
///   `maximumAge`, or until `now` is more than half a second earlier than the last fetch (the
///   clock moved backwards: the cached set's age is unknown, so it is fetched again). A `now`
///   up to half a second earlier counts as the same moment: concurrent callers read the clock
///   a few milliseconds apart and reach the cache in any order, and must not bypass the rate
///   limits below. A NaN or infinite `now` is refused before any fetch.
/// - When no cached key fits the token (`kid`, key type, `alg`), the set is fetched again
///   once, unless the last fetch is younger than `minimumRefetchInterval`, so tokens with
///   random `kid`s cannot make the cache hammer the issuer. A token whose key is found but
///   whose signature is wrong never causes a refetch.
/// - **Negative caching.** A failed fetch is remembered: until `failureBackoff` seconds have
///   passed (doubling with each consecutive failure, at most `maximumFailureBackoff`), every
///   call that needs a fetch gets the same error without one. 100 verifications against a
///   dead issuer at one instant cost one fetch; over 100 s, one every 5, 10, 20, 40… seconds.
///   A success resets the backoff. A cancelled fetch is not remembered.
/// - Concurrent callers that need a fetch share one.
///
/// Each fetched set is imported once: every key becomes a libcrypto key when the set arrives
/// (not per verification), indexed by `kid` so a token's key is found by one dictionary lookup
/// (RFC 7517 §4.5) whatever the size of the set; a token without a `kid` tries the fitting keys
/// in document order, at most ``JWKSet/maximumCandidateKeys``. The previous set's keys are
/// freed once no verification still uses them.
///
/// Concurrency: an actor that only coordinates fetches. A verification reads an immutable
/// snapshot of the current imported set under a lock (no actor hop while the set is fresh and
/// holds the token's key), then checks the signature and the claims on the caller's task, so
/// any number of tasks sharing one cache verify in parallel. Only a verification that needs a
/// fetch (none cached, too old, or an unknown `kid` that may refetch) goes through the actor
/// and suspends while the fetch runs. A cancelled caller stops waiting at once
/// (`CancellationError`), even while the issuer does not answer; the shared fetch goes on for
/// the other callers and its outcome is recorded. Docs/Security.md ("JWKS fetching").
public actor JWKSCache {
    /// Returns the JWKS document's JSON bytes, e.g. a GET of the issuer's `jwks_uri`.
    public typealias Fetch = @Sendable () async throws -> Data

    /// A failed fetch: its error, when it happened, and how many failed in a row.
    private struct Failure {
        let error: any Error
        let at: Date
        let consecutive: Int
    }

    private let fetch: Fetch
    private let minimumRefetchInterval: TimeInterval
    private let maximumAge: TimeInterval
    private let failureBackoff: TimeInterval
    private let maximumFailureBackoff: TimeInterval
    private let limits: JSONLimits
    /// The current set and when it was fetched: written by the actor after each successful
    /// fetch, read by verifications without it.
    private let current = CurrentKeySet()
    private var failure: Failure?
    private var inFlight: Task<ImportedKeySet, any Error>?

    /// The number of fetches started so far (for diagnostics and tests).
    public private(set) var fetchCount = 0

    /// The number of keys imported so far: every key of every fetched set, once per set (a test
    /// seam: verifications never import).
    package private(set) var keyImports = 0

    /// The current imported key set, or `nil` before the first successful fetch (a test seam).
    package nonisolated var currentKeys: ImportedKeySet? { current.load()?.keys }

    /// Creates an empty cache.
    ///
    /// - Parameters:
    ///   - minimumRefetchInterval: seconds that must pass after a fetch before an unknown
    ///     `kid` triggers another; 30 by default, 0 to always refetch once.
    ///   - maximumAge: seconds after which the cached set is fetched again before use;
    ///     3600 by default.
    ///   - failureBackoff: seconds during which a failed fetch's error is served without
    ///     fetching again; doubled after each further consecutive failure; 5 by default.
    ///   - maximumFailureBackoff: the longest backoff, in seconds; 300 by default.
    ///   - limits: the size limits for the JWKS document; ``JSONLimits/jwks`` by default.
    ///   - fetch: returns the JWKS JSON; its errors are thrown to the caller unchanged.
    public init(
        minimumRefetchInterval: TimeInterval = 30, maximumAge: TimeInterval = 3600,
        failureBackoff: TimeInterval = 5, maximumFailureBackoff: TimeInterval = 300,
        limits: JSONLimits = .jwks, fetch: @escaping Fetch
    ) {
        self.fetch = fetch
        self.minimumRefetchInterval = minimumRefetchInterval
        self.maximumAge = maximumAge
        self.failureBackoff = max(0, failureBackoff)
        self.maximumFailureBackoff = max(max(0, failureBackoff), maximumFailureBackoff)
        self.limits = limits
    }

    /// Verifies `token`'s signature against the issuer's keys, then its claims.
    ///
    /// Parsing, the signature check and the claim checks run on the caller's task, outside the
    /// actor (see the type's concurrency note).
    ///
    /// - Parameters:
    ///   - token: the compact JWT (at most ``JSONLimits/jwt`` 64 KiB; see ``JWT/init(parsing:limits:)``).
    ///   - now: the verifier's current time.
    ///   - leeway: clock skew allowed for `exp` and `nbf`, in seconds; 60 by default.
    ///   - issuer: the required `iss`, or `nil`.
    ///   - audience: the audience `aud` must contain, or ``JWTAudience/anyAudience`` to opt out
    ///     explicitly (RFC 7519 §4.1.3, RFC 8725 §3.9); there is no default.
    ///   - algorithms: the accepted `alg` values; RS256, RS512 and ES256 by default.
    /// - Returns: the decoded, verified token.
    /// - Throws: the decoding errors of ``JWT/init(parsing:limits:)`` (among them
    ///   ``CryptoError/limitExceeded(_:maximum:)`` and ``CryptoError/invalidHeader(_:)``,
    ///   before any fetch); the errors of ``verifySignature(of:at:algorithms:)``; then
    ///   ``CryptoError/expired``, ``CryptoError/notYetValid``,
    ///   ``CryptoError/issuerMismatch``, ``CryptoError/audienceMismatch``.
    public nonisolated func verify(
        _ token: String, at now: Date, leeway: TimeInterval = 60, issuer: String? = nil,
        audience: JWTAudience,
        algorithms: Set<SignatureAlgorithm> = Set(SignatureAlgorithm.allCases)
    ) async throws -> JWT {
        let jwt = try JWT(parsing: token)
        try await verifySignature(of: jwt, at: now, algorithms: algorithms)
        try jwt.claims.validate(at: now, leeway: leeway, issuer: issuer, audience: audience)
        return jwt
    }

    /// Verifies `jwt`'s signature with the cached keys, fetching as described above.
    ///
    /// The check itself runs on the caller's task with the snapshot of the key set it got; a
    /// refetch that replaces the set meanwhile does not change the answer of a check under way.
    /// - Throws: ``CryptoError/unsupportedAlgorithm`` (`none`, `HS*`, disallowed `alg`;
    ///   checked before any fetch), ``CryptoError/timeOutOfRange`` (a NaN or infinite `now`,
    ///   before any fetch), ``CryptoError/keyNotFound``,
    ///   ``CryptoError/keyTooSmall(bits:required:)`` (the only matching keys are RSA keys
    ///   below 2048 bits),
    ///   ``CryptoError/signatureInvalid``, ``CryptoError/malformedKeySet``,
    ///   ``CryptoError/limitExceeded(_:maximum:)`` (a JWKS document past its limits), the
    ///   fetch closure's error (also while backing off from it), or `CancellationError` when
    ///   the caller is cancelled while waiting for a fetch (the fetch goes on for the others).
    public nonisolated func verifySignature(
        of jwt: JWT, at now: Date,
        algorithms: Set<SignatureAlgorithm> = Set(SignatureAlgorithm.allCases)
    ) async throws {
        let algorithm = try jwt.signatureAlgorithm(allowed: algorithms)
        // A NaN or infinite `now` is never fresh and never inside a backoff: refused before it
        // could fetch (or publish a set fetched "at infinity").
        guard now.timeIntervalSince1970.isFinite else { throw CryptoError.timeOutOfRange }
        let keyID = jwt.keyID
        let keys: ImportedKeySet
        if let published = current.load(), isFresh(published, at: now),
            published.keys.hasCandidates(keyID: keyID, algorithm: algorithm)
        {
            keys = published.keys
        } else {
            keys = try await keySnapshot(forKeyID: keyID, algorithm: algorithm, at: now)
        }
        _ = try keys.verify(jwt, algorithm: algorithm)
    }

    /// The cached key set, fetching it first if there is none or it is too old.
    ///
    /// - Throws: ``CryptoError/timeOutOfRange`` (a NaN or infinite `now`),
    ///   ``CryptoError/malformedKeySet``, ``CryptoError/limitExceeded(_:maximum:)``, the fetch
    ///   closure's error (also while backing off from it), or `CancellationError` (see
    ///   ``verifySignature(of:at:algorithms:)``).
    public func keySet(at now: Date) async throws -> JWKSet {
        guard now.timeIntervalSince1970.isFinite else { throw CryptoError.timeOutOfRange }
        return JWKSet(keys: try await freshKeys(at: now).keys.entries.map(\.jwk))
    }

    /// Whether `published` may be used at `now` without fetching: younger than `maximumAge`
    /// and not from the future.
    private nonisolated func isFresh(_ published: CurrentKeySet.Published, at now: Date) -> Bool {
        guard let age = Self.age(at: now, since: published.fetchedAt) else { return false }
        return age <= maximumAge
    }

    /// How far a `now` earlier than a recorded time may be and still count as the same moment:
    /// callers that read the clock a few milliseconds apart reach the cache in any order, and
    /// must not pass for a clock step (which would refetch past the rate limit and the backoff).
    package static let clockJitter: TimeInterval = 0.5

    /// Seconds from `then` to `now`, 0 for a `now` up to ``clockJitter`` earlier, or `nil` when
    /// the clock stepped back further (the age is unknown).
    private nonisolated static func age(at now: Date, since then: Date) -> TimeInterval? {
        let age = now.timeIntervalSince(then)
        if age >= 0 { return age }
        return age >= -clockJitter ? 0 : nil
    }

    /// The key set a token naming `keyID` is checked against: the cached one, fetched first
    /// when missing or stale, or fetched again once when it has no candidate and
    /// ``mayRefetch(at:)`` allows.
    private func keySnapshot(forKeyID keyID: String?, algorithm: SignatureAlgorithm, at now: Date) async throws
        -> ImportedKeySet
    {
        let cached = try await freshKeys(at: now)
        if !cached.keys.hasCandidates(keyID: keyID, algorithm: algorithm), !cached.fetched, mayRefetch(at: now) {
            return try await refresh(at: now)
        }
        return cached.keys
    }

    /// The cached keys if younger than `maximumAge` (and not from the future), else freshly
    /// fetched ones.
    private func freshKeys(at now: Date) async throws -> (keys: ImportedKeySet, fetched: Bool) {
        if let published = current.load(), isFresh(published, at: now) { return (published.keys, false) }
        return (try await refresh(at: now), true)
    }

    /// Whether an unknown `kid` may trigger a fetch: the last one is old enough, or the clock
    /// moved back past it by more than ``clockJitter``.
    private func mayRefetch(at now: Date) -> Bool {
        guard let lastFetch = current.load()?.fetchedAt else { return true }
        guard let age = Self.age(at: now, since: lastFetch) else { return true }
        return age >= minimumRefetchInterval
    }

    /// The error to serve instead of fetching, while the last failure's backoff lasts.
    private func backoffError(at now: Date) -> (any Error)? {
        guard let failure else { return nil }
        let delay = min(maximumFailureBackoff, failureBackoff * pow(2, Double(min(failure.consecutive - 1, 30))))
        guard let elapsed = Self.age(at: now, since: failure.at) else { return nil }
        return elapsed < delay ? failure.error : nil
    }

    /// Fetches and imports the key set, joining a fetch already in flight; while backing off
    /// from a failure, throws its error without fetching.
    ///
    /// A cancelled caller stops waiting at once with `CancellationError`; the fetch runs on for
    /// the other callers and is recorded (the set published, or the failure's backoff) whether
    /// or not anyone still waits for it.
    private func refresh(at now: Date) async throws -> ImportedKeySet {
        if let inFlight { return try await Self.value(of: inFlight) }
        if let error = backoffError(at: now) { throw error }
        try Task.checkCancellation()
        fetchCount += 1
        let fetch = self.fetch
        let limits = self.limits
        let current = self.current
        // Owned by this actor through `inFlight`; it ends when the fetch closure returns or
        // throws, and records its outcome (clearing `inFlight`) before any caller waiting for it
        // resumes: once one caller has verified with the new set, every later one reads it.
        let task = Task<ImportedKeySet, any Error> { [weak self] in
            let result: Result<ImportedKeySet, any Error>
            do {
                let keys = ImportedKeySet(importing: try JWKSet(jsonData: try await fetch(), limits: limits).keys)
                current.store(CurrentKeySet.Published(keys: keys, fetchedAt: now))
                result = .success(keys)
            } catch {
                result = .failure(error)
            }
            await self?.finishFetch(result, at: now)
            return try result.get()
        }
        inFlight = task
        return try await Self.value(of: task)
    }

    /// Records a fetch's outcome: the imports and a cleared backoff, or the failure to back off
    /// from (a cancelled fetch is not remembered).
    private func finishFetch(_ result: Result<ImportedKeySet, any Error>, at now: Date) {
        inFlight = nil
        switch result {
        case .success(let keys):
            keyImports += keys.count
            failure = nil
        case .failure(let error) where error is CancellationError:
            break
        case .failure(let error):
            failure = Failure(error: error, at: now, consecutive: (failure?.consecutive ?? 0) + 1)
        }
    }

    /// `task`'s value, or `CancellationError` as soon as the caller is cancelled (the task is not
    /// cancelled: other callers may wait for it).
    private static func value(of task: Task<ImportedKeySet, any Error>) async throws -> ImportedKeySet {
        let waiter = FetchWaiter()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                guard waiter.install(continuation) else { return }
                Task { waiter.resume(with: await task.result) }
            }
        } onCancel: {
            waiter.resume(with: .failure(CancellationError()))
        }
    }
}

/// One caller's wait for a shared fetch: resumed once, by the fetch's result or by the caller's
/// cancellation, whichever comes first.
///
/// Concurrency: `state` is a `Locked` box; continuations are resumed outside its lock.
private final class FetchWaiter: Sendable {
    private enum State {
        case idle
        case waiting(CheckedContinuation<ImportedKeySet, any Error>)
        case cancelledEarly
        case done
    }

    private let state = Locked(State.idle)

    /// Stores `continuation`; if the caller was cancelled before, resumes it with
    /// `CancellationError` and returns `false`.
    func install(_ continuation: CheckedContinuation<ImportedKeySet, any Error>) -> Bool {
        let cancelled = state.withLock { state in
            if case .cancelledEarly = state {
                state = .done
                return true
            }
            state = .waiting(continuation)
            return false
        }
        if cancelled { continuation.resume(throwing: CancellationError()) }
        return !cancelled
    }

    /// Resumes the waiting continuation with `result` (the first call wins); a cancellation
    /// before `install` is remembered for it.
    func resume(with result: Result<ImportedKeySet, any Error>) {
        let continuation: CheckedContinuation<ImportedKeySet, any Error>? = state.withLock { state in
            switch state {
            case .waiting(let continuation):
                state = .done
                return continuation
            case .idle:
                if case .failure(let error) = result, error is CancellationError { state = .cancelledEarly }
                return nil
            case .cancelledEarly, .done:
                return nil
            }
        }
        continuation?.resume(with: result)
    }
}

/// The cache's current imported set, published in a `Locked` box so verifications read it without
/// the actor.
///
/// Concurrency: `published` is only read or replaced inside `withLock`; the value is an immutable snapshot,
/// so a reader keeps a consistent set whatever is stored after it read.
private final class CurrentKeySet: Sendable {
    /// An imported set and when it was fetched (the `now` of the call that fetched it).
    struct Published: Sendable {
        let keys: ImportedKeySet
        let fetchedAt: Date
    }

    private let published = Locked<Published?>(nil)

    /// The current set, or `nil` before the first successful fetch.
    func load() -> Published? {
        published.withLock { $0 }
    }

    /// Replaces the current set; readers that already hold the old one keep it.
    func store(_ value: Published) {
        published.withLock { $0 = value }
    }
}
