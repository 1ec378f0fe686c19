import Foundation

/// ``KeychainItemAccess`` over ``SecItemCalls``: builds every query and attribute dictionary
/// ``SystemKeychain`` sends, so their contents (service, account, access group,
/// accessibility, not synchronizable, the version tag in `kSecAttrGeneric`) and the
/// compare-and-set logic run and are tested on every platform.
///
/// Every query names the class, the service, the account (except ``deleteAll(service:)``),
/// the access group when one is set and `kSecAttrSynchronizable = false`; every write sets the
/// data, the tag and the accessibility class.
package struct SecItemKeychain: KeychainItemAccess {
    /// The access group queries and new items use; `nil` for the app's default group.
    package let accessGroup: String?
    /// The accessibility class of written items.
    package let accessibility: KeychainAccessibility
    /// The `SecItem` calls.
    package let calls: any SecItemCalls

    /// Creates the access.
    package init(accessGroup: String?, accessibility: KeychainAccessibility, calls: any SecItemCalls) {
        self.accessGroup = accessGroup
        self.accessibility = accessibility
        self.calls = calls
    }

    /// The query of `service` (and `account`): class, service, account, access group, not
    /// synchronizable.
    package func query(service: String, account: String?) -> KeychainDictionary {
        var query: KeychainDictionary = [
            .itemClass: .genericPassword, .service: .string(service), .synchronizable: .bool(false),
        ]
        if let account { query[.account] = .string(account) }
        if let accessGroup { query[.accessGroup] = .string(accessGroup) }
        return query
    }

    /// The attributes every write sets: data, version tag, accessibility.
    package func writeAttributes(data: Data, tag: Data) -> KeychainDictionary {
        [.valueData: .data(data), .generic: .data(tag), .accessible: .accessibility(accessibility)]
    }

    /// `SecItemCopyMatching` for one item's data (and tag).
    package func read(service: String, account: String) -> (status: Int32, data: Data?) {
        let (status, data, _) = readVersioned(service: service, account: account)
        return (status, data)
    }

    /// `SecItemCopyMatching` for one item's data and attributes; the tag is its `kSecAttrGeneric`.
    package func readVersioned(service: String, account: String) -> (status: Int32, data: Data?, tag: Data?) {
        var query = query(service: service, account: account)
        query[.returnData] = .bool(true)
        query[.returnAttributes] = .bool(true)
        query[.matchLimit] = .matchLimitOne
        let (status, data, tag) = calls.copyMatching(query)
        return status == KeychainStatus.success ? (status, data, tag) : (status, nil, nil)
    }

    /// An unconditional write with a fresh version tag.
    package func write(service: String, account: String, data: Data) -> Int32 {
        write(service: service, account: account, data: data, tag: KeychainSessionStore.newVersionTag(), if: .always)
    }

    /// One keychain call per condition: `.absent` → `SecItemAdd`; `.tagged` → `SecItemUpdate`
    /// whose query also matches `kSecAttrGeneric` (the keychain applies it to the matching item
    /// only, atomically with respect to other `SecItem` calls); `.always` → `SecItemUpdate`,
    /// then `SecItemAdd` when absent.
    package func write(service: String, account: String, data: Data, tag: Data, if condition: KeychainWriteCondition)
        -> Int32
    {
        let attributes = writeAttributes(data: data, tag: tag)
        let match = query(service: service, account: account)
        switch condition {
        case .absent:
            return calls.add(match.merging(attributes) { $1 })
        case .tagged(let expected):
            var tagged = match
            tagged[.generic] = .data(expected)
            return calls.update(tagged, attributes)
        case .always:
            let status = calls.update(match, attributes)
            guard status == KeychainStatus.itemNotFound else { return status }
            return calls.add(match.merging(attributes) { $1 })
        }
    }

    /// `SecItemDelete` whose query also matches `kSecAttrGeneric` = `tag`.
    package func delete(service: String, account: String, ifTagged tag: Data) -> Int32 {
        var match = query(service: service, account: account)
        match[.generic] = .data(tag)
        return calls.delete(match)
    }

    /// `SecItemDelete` for one item.
    package func delete(service: String, account: String) -> Int32 {
        calls.delete(query(service: service, account: account))
    }

    /// `SecItemDelete` for every item of `service` (in the access group, when set).
    package func deleteAll(service: String) -> Int32 {
        calls.delete(query(service: service, account: nil))
    }
}
