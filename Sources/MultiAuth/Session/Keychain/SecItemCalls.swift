import Foundation

/// The four `SecItem` calls over ``KeychainDictionary`` values: the only part of
/// ``SystemKeychain`` that needs the Security framework. Tests emulate it on every platform.
package protocol SecItemCalls: Sendable {
    /// `SecItemCopyMatching(query, &result)` with `kSecReturnData` and `kSecReturnAttributes`:
    /// the status, and on success the item's data and its `kSecAttrGeneric`.
    func copyMatching(_ query: KeychainDictionary) -> (status: Int32, data: Data?, generic: Data?)
    /// `SecItemAdd(attributes, nil)`.
    func add(_ attributes: KeychainDictionary) -> Int32
    /// `SecItemUpdate(query, attributesToUpdate)`.
    func update(_ query: KeychainDictionary, _ attributesToUpdate: KeychainDictionary) -> Int32
    /// `SecItemDelete(query)`.
    func delete(_ query: KeychainDictionary) -> Int32
}
