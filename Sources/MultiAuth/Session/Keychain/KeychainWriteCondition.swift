import Foundation

/// When a conditional keychain write (``KeychainItemAccess/write(service:account:data:tag:if:)``)
/// may happen.
package enum KeychainWriteCondition: Sendable, Hashable {
    /// Unconditionally (update or add).
    case always
    /// Only when no item exists (`SecItemAdd`).
    case absent
    /// Only when the item's version tag equals this one (`SecItemUpdate` matching
    /// `kSecAttrGeneric`).
    case tagged(Data)
}
