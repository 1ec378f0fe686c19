#if canImport(Security)
import Foundation
import Security

/// The four `SecItem` calls with ``KeychainDictionary`` values mapped to `kSec…` constants.
struct SecurityFrameworkCalls: SecItemCalls {
    /// The `kSec…` key of an attribute.
    static func key(_ attribute: KeychainAttribute) -> CFString {
        switch attribute {
        case .itemClass: kSecClass
        case .service: kSecAttrService
        case .account: kSecAttrAccount
        case .accessGroup: kSecAttrAccessGroup
        case .accessible: kSecAttrAccessible
        case .synchronizable: kSecAttrSynchronizable
        case .generic: kSecAttrGeneric
        case .valueData: kSecValueData
        case .returnData: kSecReturnData
        case .returnAttributes: kSecReturnAttributes
        case .matchLimit: kSecMatchLimit
        }
    }

    /// The `kSecAttrAccessible…` constant of a class.
    static func constant(_ accessibility: KeychainAccessibility) -> CFString {
        switch accessibility {
        case .whenUnlocked: kSecAttrAccessibleWhenUnlocked
        case .whenUnlockedThisDeviceOnly: kSecAttrAccessibleWhenUnlockedThisDeviceOnly
        case .afterFirstUnlock: kSecAttrAccessibleAfterFirstUnlock
        case .afterFirstUnlockThisDeviceOnly: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
        case .whenPasscodeSetThisDeviceOnly: kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly
        }
    }

    /// The `CFDictionary` of a ``KeychainDictionary``.
    static func dictionary(_ dictionary: KeychainDictionary) -> CFDictionary {
        var result: [String: Any] = [:]
        for (attribute, value) in dictionary {
            let object: Any =
                switch value {
                case .genericPassword: kSecClassGenericPassword
                case .string(let string): string
                case .data(let data): data
                case .bool(let flag): flag
                case .accessibility(let accessibility): constant(accessibility)
                case .matchLimitOne: kSecMatchLimitOne
                }
            result[key(attribute) as String] = object
        }
        return result as CFDictionary
    }

    func copyMatching(_ query: KeychainDictionary) -> (status: Int32, data: Data?, generic: Data?) {
        var result: CFTypeRef?
        let status = SecItemCopyMatching(Self.dictionary(query), &result)
        guard status == errSecSuccess else { return (status, nil, nil) }
        let item = result as? [String: Any]
        return (status, item?[kSecValueData as String] as? Data, item?[kSecAttrGeneric as String] as? Data)
    }

    func add(_ attributes: KeychainDictionary) -> Int32 {
        SecItemAdd(Self.dictionary(attributes), nil)
    }

    func update(_ query: KeychainDictionary, _ attributesToUpdate: KeychainDictionary) -> Int32 {
        SecItemUpdate(Self.dictionary(query), Self.dictionary(attributesToUpdate))
    }

    func delete(_ query: KeychainDictionary) -> Int32 {
        SecItemDelete(Self.dictionary(query))
    }
}
#endif
