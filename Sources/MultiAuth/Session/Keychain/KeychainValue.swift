import Foundation

/// The value of one ``KeychainAttribute``.
package enum KeychainValue: Hashable, Sendable {
    /// `kSecClassGenericPassword`.
    case genericPassword
    /// A string (service, account, access group).
    case string(String)
    /// Bytes (session JSON, version tag).
    case data(Data)
    /// A Boolean (`kCFBooleanTrue`/`kCFBooleanFalse`).
    case bool(Bool)
    /// One of the `kSecAttrAccessible…` constants.
    case accessibility(KeychainAccessibility)
    /// `kSecMatchLimitOne`.
    case matchLimitOne
}

/// A `SecItem` query or attribute dictionary in ``KeychainAttribute`` terms.
package typealias KeychainDictionary = [KeychainAttribute: KeychainValue]
