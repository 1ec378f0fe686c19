#if canImport(Security)
import Foundation
import Security

/// ``KeychainItemAccess`` over the Security framework's `SecItem` API: generic-password items,
/// in ``accessGroup`` when set, with ``accessibility`` (default
/// `kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`), never synchronizable, the version tag
/// in `kSecAttrGeneric`.
///
/// The dictionaries and the compare-and-set logic are built by ``SecItemKeychain``, which runs
/// and is tested on every platform; this type only maps them to `kSec…` constants and makes
/// the four `SecItem` calls (type-checked on Linux by Scripts/typecheck_apple.py against
/// declarations taken from Apple's documentation).
///
/// On macOS the file-based keychain ignores `kSecAttrAccessGroup` and `kSecAttrAccessible`
/// (Apple, `kSecUseDataProtectionKeychain`); they apply on iOS, tvOS, watchOS and visionOS.
///
/// Concurrency: a value type without mutable state; each call is one synchronous `SecItem`
/// call (it blocks the calling thread).
package struct SystemKeychain: KeychainItemAccess {
    private let items: SecItemKeychain

    /// The access group items are kept in; `nil` for the app's default group.
    package var accessGroup: String? { items.accessGroup }
    /// When items can be read.
    package var accessibility: KeychainAccessibility { items.accessibility }

    /// Creates the system keychain access.
    /// - Parameters:
    ///   - accessGroup: A group of the app's `keychain-access-groups` entitlement (shared with
    ///     its extensions), or `nil` for the app's default group.
    ///   - accessibility: When written items can be read.
    package init(accessGroup: String? = nil, accessibility: KeychainAccessibility = .afterFirstUnlockThisDeviceOnly) {
        items = SecItemKeychain(accessGroup: accessGroup, accessibility: accessibility, calls: SecurityFrameworkCalls())
    }

    /// `SecItemCopyMatching` for one item's data.
    package func read(service: String, account: String) -> (status: Int32, data: Data?) {
        items.read(service: service, account: account)
    }

    /// `SecItemUpdate`, or `SecItemAdd` when absent, with a fresh version tag.
    package func write(service: String, account: String, data: Data) -> Int32 {
        items.write(service: service, account: account, data: data)
    }

    /// `SecItemCopyMatching` for one item's data and its `kSecAttrGeneric` version tag.
    package func readVersioned(service: String, account: String) -> (status: Int32, data: Data?, tag: Data?) {
        items.readVersioned(service: service, account: account)
    }

    /// One `SecItem` call per condition (see ``SecItemKeychain``): `.absent` adds, `.tagged`
    /// updates only the item whose `kSecAttrGeneric` is the tag, `.always` updates or adds.
    package func write(service: String, account: String, data: Data, tag: Data, if condition: KeychainWriteCondition)
        -> Int32
    {
        items.write(service: service, account: account, data: data, tag: tag, if: condition)
    }

    /// `SecItemDelete` whose query also matches `kSecAttrGeneric` = `tag`.
    package func delete(service: String, account: String, ifTagged tag: Data) -> Int32 {
        items.delete(service: service, account: account, ifTagged: tag)
    }

    /// `SecItemDelete` for one item.
    package func delete(service: String, account: String) -> Int32 {
        items.delete(service: service, account: account)
    }

    /// `SecItemDelete` for every item of `service`.
    package func deleteAll(service: String) -> Int32 {
        items.deleteAll(service: service)
    }
}
#endif
