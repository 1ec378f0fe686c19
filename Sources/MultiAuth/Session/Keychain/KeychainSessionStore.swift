import Foundation

/// A session store in the keychain: one generic-password item per provider, holding the
/// session as JSON, written by default with after-first-unlock, this-device-only
/// accessibility (so background refresh can read it, and it never syncs or moves to another
/// device), optionally in a shared access group (`init(service:accessGroup:accessibility:)` on Apple platforms).
/// The recommended store on Apple platforms (`SessionStores.platformDefault(service:accessGroup:)`).
///
/// Status handling (Docs/Cases.md, B19): `errSecItemNotFound` → `nil` (signed out);
/// `errSecInteractionNotAllowed` and every other failure → `AuthError(.storageUnavailable)`
/// on read, `.storageFailure` on write. An unreadable item is never deleted or overwritten by
/// a read.
///
/// Conditional writes (``replace(_:with:for:)``) use a random version tag kept in the item's
/// `kSecAttrGeneric` attribute, which every write replaces: the write or delete matches the
/// tag it read, so the keychain itself rejects it when another process wrote in between
/// (Apple, `SecItemUpdate(_:_:)`: attributes in the query narrow the items it changes). The
/// item's data format is unchanged, so items written by earlier builds still load.
///
/// Concurrency: a value type without mutable state; calls may run in parallel, each keychain
/// call is synchronous (it blocks the calling thread).
public struct KeychainSessionStore: SessionStore {
    /// The keychain service name the items are stored under.
    public let service: String
    private let keychain: any KeychainItemAccess

    /// Creates a store over `keychain`: `SystemKeychain` on Apple platforms, or a fake
    /// returning chosen statuses in the package's tests.
    /// - Parameters:
    ///   - service: The `kSecAttrService` value, e.g. your bundle id + `".multiauth"`.
    ///   - keychain: The item operations.
    package init(service: String, keychain: any KeychainItemAccess) {
        self.service = service
        self.keychain = keychain
    }

    #if canImport(Security)
    /// Creates a store backed by the system keychain (the Security framework's `SecItem` calls).
    /// - Parameters:
    ///   - service: The `kSecAttrService` value, e.g. your bundle id + `".multiauth"`.
    ///   - accessGroup: The keychain access group to keep the items in, to share sessions with
    ///     an app extension or widget (one of your `keychain-access-groups` entitlement, e.g.
    ///     `"ABCDE12345.com.example.shared"`); `nil` for the app's default group.
    ///   - accessibility: When the items can be read; by default after the first unlock, on
    ///     this device only (never synced, never restored to another device).
    public init(
        service: String, accessGroup: String? = nil,
        accessibility: KeychainAccessibility = .afterFirstUnlockThisDeviceOnly
    ) {
        self.init(service: service, keychain: SystemKeychain(accessGroup: accessGroup, accessibility: accessibility))
    }
    #endif

    /// A store over ``SecItemKeychain`` with emulated `SecItem` calls (tests on every platform).
    package init(
        service: String, accessGroup: String?, accessibility: KeychainAccessibility, secItems: any SecItemCalls
    ) {
        self.init(
            service: service,
            keychain: SecItemKeychain(accessGroup: accessGroup, accessibility: accessibility, calls: secItems))
    }

    /// - Throws: `AuthError` `.storageUnavailable` (locked keychain, unreadable item).
    public func load(for provider: AuthProviderID) async throws -> AuthSession? {
        let (status, data) = keychain.read(service: service, account: provider.rawValue)
        return try Self.decodeItem(status: status, data: data, provider: provider)
    }

    /// The session an item read answered, `nil` for `errSecItemNotFound`, or the read error.
    static func decodeItem(status: Int32, data: Data?, provider: AuthProviderID) throws -> AuthSession? {
        switch status {
        case KeychainStatus.success:
            guard let data, let session = try? JSONDecoder.multiAuth.decode(AuthSession.self, from: data) else {
                throw AuthError(.storageUnavailable, "the keychain item is corrupt", provider: provider)
            }
            return session
        case KeychainStatus.itemNotFound:
            return nil
        case KeychainStatus.interactionNotAllowed:
            throw AuthError(
                .storageUnavailable, "the keychain is locked (errSecInteractionNotAllowed)", provider: provider,
                providerCode: String(status))
        default:
            throw AuthError(
                .storageUnavailable, "keychain read failed with status \(status)", provider: provider,
                providerCode: String(status))
        }
    }

    /// Writes the item with a fresh version tag, so a conditional write that read the previous
    /// version fails.
    /// - Throws: `AuthError` `.storageFailure`.
    public func save(_ session: AuthSession) async throws {
        let data = try Self.encode(session)
        let status = keychain.write(
            service: service, account: session.provider.rawValue, data: data, tag: Self.newVersionTag(), if: .always)
        guard status == KeychainStatus.success else {
            throw AuthError(
                .storageFailure, "keychain write failed with status \(status)", provider: session.provider,
                providerCode: String(status))
        }
    }

    /// - Throws: `AuthError` `.storageFailure`.
    public func remove(for provider: AuthProviderID) async throws {
        let status = keychain.delete(service: service, account: provider.rawValue)
        guard status == KeychainStatus.success || status == KeychainStatus.itemNotFound else {
            throw AuthError(
                .storageFailure, "keychain delete failed with status \(status)", provider: provider,
                providerCode: String(status))
        }
    }

    /// - Throws: `AuthError` `.storageFailure`.
    public func removeAll() async throws {
        let status = keychain.deleteAll(service: service)
        guard status == KeychainStatus.success || status == KeychainStatus.itemNotFound else {
            throw AuthError(
                .storageFailure, "keychain delete failed with status \(status)", providerCode: String(status))
        }
    }

    /// How many times ``replace(_:with:for:)`` re-reads after another writer changed the item
    /// between its read and its conditional write, before it reports a conflict.
    static let maximumReplaceAttempts = 8

    /// Compare-and-set with a version tag: reads the item and its tag, compares the session with
    /// `expected` (``AuthSession/isSameVersion(as:)``), then writes or deletes **only the item
    /// still carrying that tag** (or adds only when none exists) in one keychain operation, so
    /// a writer in another process that slipped in between makes the write fail; the store then
    /// reads again and decides again (at most `maximumReplaceAttempts` times). Every write
    /// stores a fresh random tag. With `SystemKeychain` this is atomic across processes
    /// sharing the items, except for the first conditional write to an item written by a build
    /// without tags (no tag to match; it is written unconditionally and tagged from then on).
    /// - Throws: `AuthError` `.storageUnavailable` when the item cannot be read (nothing is
    ///   written), `.storageFailure` when the keychain refuses the write (the item is
    ///   unchanged), `.invalidInput` when `replacement` belongs to another provider.
    public func replace(_ expected: AuthSession?, with replacement: AuthSession?, for provider: AuthProviderID)
        async throws -> SessionStoreWriteResult
    {
        try SessionStoreWriteResult.checkReplacement(replacement, for: provider)
        let data = try replacement.map(Self.encode)
        let account = provider.rawValue
        for _ in 0..<Self.maximumReplaceAttempts {
            let (readStatus, bytes, tag) = keychain.readVersioned(service: service, account: account)
            let current = try Self.decodeItem(status: readStatus, data: bytes, provider: provider)
            guard AuthSession.isSameVersion(current, expected) else { return .conflict(current: current) }
            let status: Int32
            if let data {
                let condition: KeychainWriteCondition = current == nil ? .absent : tag.map { .tagged($0) } ?? .always
                status = keychain.write(
                    service: service, account: account, data: data, tag: Self.newVersionTag(), if: condition)
                if status == KeychainStatus.duplicateItem && condition == .absent { continue }  // added meanwhile
            } else if current == nil {
                return .written  // nothing stored and nothing to store
            } else if let tag {
                status = keychain.delete(service: service, account: account, ifTagged: tag)
            } else {
                status = keychain.delete(service: service, account: account)  // an item without a tag
            }
            if status == KeychainStatus.success { return .written }
            if status == KeychainStatus.itemNotFound { continue }  // changed or removed meanwhile
            throw AuthError(
                .storageFailure, "keychain conditional write failed with status \(status)", provider: provider,
                providerCode: String(status))
        }
        let (status, bytes, _) = keychain.readVersioned(service: service, account: account)
        return .conflict(current: try Self.decodeItem(status: status, data: bytes, provider: provider))
    }

    private static func encode(_ session: AuthSession) throws -> Data {
        do { return try JSONEncoder.multiAuth.encode(session) } catch {
            throw AuthError(.storageFailure, "the session could not be encoded", provider: session.provider)
        }
    }

    /// A fresh random version tag (16 bytes; not derived from the session, so it reveals nothing).
    static func newVersionTag() -> Data {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }
}
