import Foundation

/// The four keychain item operations `KeychainSessionStore` needs, returning raw `OSStatus`
/// values, so the store's status handling is testable on every platform.
///
/// On Apple platforms ``SystemKeychain`` calls `SecItemCopyMatching`, `SecItemAdd`,
/// `SecItemUpdate` and `SecItemDelete`. Tests supply a fake that returns chosen statuses.
public protocol KeychainItemAccess: Sendable {
    /// Reads the item for `account`: its data, or a status (`errSecItemNotFound` = -25300, …).
    func read(service: String, account: String) -> (status: Int32, data: Data?)
    /// Adds or updates the item; new items use an after-first-unlock accessibility class.
    func write(service: String, account: String, data: Data) -> Int32
    /// Deletes the item for `account`.
    func delete(service: String, account: String) -> Int32
    /// Deletes every item of `service`.
    func deleteAll(service: String) -> Int32
}

/// Keychain `OSStatus` values the store interprets (Security framework, `SecBase.h`).
public enum KeychainStatus {
    /// `errSecSuccess`
    public static let success: Int32 = 0
    /// `errSecItemNotFound`: no item, i.e. no session.
    public static let itemNotFound: Int32 = -25300
    /// `errSecDuplicateItem`
    public static let duplicateItem: Int32 = -25299
    /// `errSecInteractionNotAllowed`: the keychain is locked (e.g. background launch before
    /// first unlock). Storage unavailable, not signed out (case B19).
    public static let interactionNotAllowed: Int32 = -25308
}

/// A session store in the keychain: one generic-password item per provider, holding the
/// session as JSON, written with after-first-unlock accessibility so background refresh can
/// read it.
///
/// Status handling (case B19): `errSecItemNotFound` → `nil` (signed out);
/// `errSecInteractionNotAllowed` and every other failure → `AuthError(.storageUnavailable)`
/// on read, `.storageFailure` on write. An unreadable item is never deleted or overwritten by
/// a read.
public struct KeychainSessionStore: SessionStore {
    /// The keychain service name the items are stored under.
    public let service: String
    private let keychain: any KeychainItemAccess

    /// Creates a store.
    /// - Parameters:
    ///   - service: The `kSecAttrService` value, e.g. your bundle id + `".multiauth"`.
    ///   - keychain: The item operations; defaults to ``SystemKeychain`` on Apple platforms.
    public init(service: String, keychain: any KeychainItemAccess) {
        self.service = service
        self.keychain = keychain
    }

    #if canImport(Security)
    /// Creates a store backed by the system keychain.
    public init(service: String) {
        self.init(service: service, keychain: SystemKeychain())
    }
    #endif

    /// - Throws: `AuthError` `.storageUnavailable` (locked keychain, unreadable item).
    public func load(for provider: AuthProviderID) async throws -> AuthSession? {
        let (status, data) = keychain.read(service: service, account: provider.rawValue)
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
            throw AuthError(.storageUnavailable, "keychain read failed with status \(status)", provider: provider, providerCode: String(status))
        }
    }

    /// - Throws: `AuthError` `.storageFailure`.
    public func save(_ session: AuthSession) async throws {
        let data: Data
        do { data = try JSONEncoder.multiAuth.encode(session) } catch {
            throw AuthError(.storageFailure, "the session could not be encoded", provider: session.provider)
        }
        let status = keychain.write(service: service, account: session.provider.rawValue, data: data)
        guard status == KeychainStatus.success else {
            throw AuthError(.storageFailure, "keychain write failed with status \(status)", provider: session.provider, providerCode: String(status))
        }
    }

    /// - Throws: `AuthError` `.storageFailure`.
    public func remove(for provider: AuthProviderID) async throws {
        let status = keychain.delete(service: service, account: provider.rawValue)
        guard status == KeychainStatus.success || status == KeychainStatus.itemNotFound else {
            throw AuthError(.storageFailure, "keychain delete failed with status \(status)", provider: provider, providerCode: String(status))
        }
    }

    /// - Throws: `AuthError` `.storageFailure`.
    public func removeAll() async throws {
        let status = keychain.deleteAll(service: service)
        guard status == KeychainStatus.success || status == KeychainStatus.itemNotFound else {
            throw AuthError(.storageFailure, "keychain delete failed with status \(status)", providerCode: String(status))
        }
    }
}

#if canImport(Security)
import Security

/// ``KeychainItemAccess`` over the Security framework's `SecItem` API (generic passwords,
/// `kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`).
public struct SystemKeychain: KeychainItemAccess {
    /// Creates the system keychain access.
    public init() {}

    private func query(service: String, account: String?) -> [String: Any] {
        var query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service]
        if let account { query[kSecAttrAccount as String] = account }
        return query
    }

    /// `SecItemCopyMatching` for one item's data.
    public func read(service: String, account: String) -> (status: Int32, data: Data?) {
        var query = query(service: service, account: account)
        query[kSecReturnData as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        return (status, result as? Data)
    }

    /// `SecItemUpdate`, or `SecItemAdd` with after-first-unlock accessibility when absent.
    public func write(service: String, account: String, data: Data) -> Int32 {
        let query = query(service: service, account: account)
        let update: [String: Any] = [
            kSecValueData as String: data,
            kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
        ]
        let status = SecItemUpdate(query as CFDictionary, update as CFDictionary)
        guard status == errSecItemNotFound else { return status }
        var add = query
        add.merge(update) { $1 }
        return SecItemAdd(add as CFDictionary, nil)
    }

    /// `SecItemDelete` for one item.
    public func delete(service: String, account: String) -> Int32 {
        SecItemDelete(query(service: service, account: account) as CFDictionary)
    }

    /// `SecItemDelete` for every item of `service`.
    public func deleteAll(service: String) -> Int32 {
        SecItemDelete(query(service: service, account: nil) as CFDictionary)
    }
}
#endif
