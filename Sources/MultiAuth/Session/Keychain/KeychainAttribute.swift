import Foundation

/// One attribute of a keychain query or item, as `SecItem` dictionaries use them. On Apple
/// platforms ``SystemKeychain`` maps each to its `kSec…` constant; elsewhere tests read them.
package enum KeychainAttribute: Hashable, Sendable, CustomStringConvertible {
    /// `kSecClass`; the only value used is ``KeychainValue/genericPassword``.
    case itemClass
    /// `kSecAttrService`.
    case service
    /// `kSecAttrAccount`.
    case account
    /// `kSecAttrAccessGroup`.
    case accessGroup
    /// `kSecAttrAccessible`.
    case accessible
    /// `kSecAttrSynchronizable`.
    case synchronizable
    /// `kSecAttrGeneric`: the store's version tag.
    case generic
    /// `kSecValueData`: the session JSON.
    case valueData
    /// `kSecReturnData`.
    case returnData
    /// `kSecReturnAttributes`.
    case returnAttributes
    /// `kSecMatchLimit`; the only value used is ``KeychainValue/matchLimitOne``.
    case matchLimit

    package var description: String {
        switch self {
        case .itemClass: "kSecClass"
        case .service: "kSecAttrService"
        case .account: "kSecAttrAccount"
        case .accessGroup: "kSecAttrAccessGroup"
        case .accessible: "kSecAttrAccessible"
        case .synchronizable: "kSecAttrSynchronizable"
        case .generic: "kSecAttrGeneric"
        case .valueData: "kSecValueData"
        case .returnData: "kSecReturnData"
        case .returnAttributes: "kSecReturnAttributes"
        case .matchLimit: "kSecMatchLimit"
        }
    }
}
