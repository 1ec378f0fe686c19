import Foundation

/// The keychain item operations `KeychainSessionStore` needs, returning raw `OSStatus`
/// values, so the store's status handling and its compare-and-set decisions are testable on
/// every platform.
///
/// On Apple platforms `SystemKeychain` calls `SecItemCopyMatching`, `SecItemAdd`,
/// `SecItemUpdate` and `SecItemDelete`. Tests supply a fake that returns chosen statuses.
///
/// The three versioned operations (``readVersioned(service:account:)``,
/// ``write(service:account:data:tag:if:)``, ``delete(service:account:ifTagged:)``) carry a
/// version tag that every write replaces; conditional writes succeed only on the item still
/// carrying the tag the caller read. Their default implementations, for conformers written
/// before tags existed, are not atomic; implement them as single keychain operations (as
/// `SystemKeychain` does) when several processes share the items.
package protocol KeychainItemAccess: Sendable {
    /// Reads the item for `account`: its data, or a status (`errSecItemNotFound` = -25300, …).
    func read(service: String, account: String) -> (status: Int32, data: Data?)
    /// Adds or updates the item; new items use an after-first-unlock accessibility class.
    func write(service: String, account: String, data: Data) -> Int32
    /// Deletes the item for `account`.
    func delete(service: String, account: String) -> Int32
    /// Deletes every item of `service`.
    func deleteAll(service: String) -> Int32

    /// Reads the item for `account`: its data and its version tag (`kSecAttrGeneric`; `nil` for
    /// an item written without one), or a status.
    func readVersioned(service: String, account: String) -> (status: Int32, data: Data?, tag: Data?)
    /// Writes `data` with version tag `tag` if `condition` holds, as one keychain operation:
    /// `.absent` adds (`errSecDuplicateItem` when an item exists), `.tagged(t)` updates only
    /// the item whose tag is `t` (`errSecItemNotFound` otherwise), `.always` updates or adds.
    func write(service: String, account: String, data: Data, tag: Data, if condition: KeychainWriteCondition) -> Int32
    /// Deletes the item for `account` only if its version tag is `tag` (`errSecItemNotFound`
    /// otherwise), as one keychain operation.
    func delete(service: String, account: String, ifTagged tag: Data) -> Int32
}

extension KeychainItemAccess {
    /// A default for accesses written before version tags existed: ``read(service:account:)``
    /// with no tag.
    package func readVersioned(service: String, account: String) -> (status: Int32, data: Data?, tag: Data?) {
        let (status, data) = read(service: service, account: account)
        return (status, data, nil)
    }

    /// A default for accesses written before version tags existed: checks `condition` with
    /// ``readVersioned(service:account:)``, then calls ``write(service:account:data:)``. It is
    /// **not atomic** and drops the tag; `SystemKeychain` implements the conditional write as
    /// one keychain operation.
    package func write(service: String, account: String, data: Data, tag: Data, if condition: KeychainWriteCondition)
        -> Int32
    {
        switch condition {
        case .always:
            break
        case .absent:
            let status = readVersioned(service: service, account: account).status
            guard status == KeychainStatus.itemNotFound else {
                return status == KeychainStatus.success ? KeychainStatus.duplicateItem : status
            }
        case .tagged(let expected):
            let (status, _, current) = readVersioned(service: service, account: account)
            guard status == KeychainStatus.success else { return status }
            guard current == expected else { return KeychainStatus.itemNotFound }
        }
        return write(service: service, account: account, data: data)
    }

    /// A default for accesses written before version tags existed: compares the tag with
    /// ``readVersioned(service:account:)``, then calls ``delete(service:account:)``. **Not
    /// atomic**.
    package func delete(service: String, account: String, ifTagged tag: Data) -> Int32 {
        let (status, _, current) = readVersioned(service: service, account: account)
        guard status == KeychainStatus.success else { return status }
        guard current == tag else { return KeychainStatus.itemNotFound }
        return delete(service: service, account: account)
    }
}
