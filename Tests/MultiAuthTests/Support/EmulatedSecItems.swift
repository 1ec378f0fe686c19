import Foundation

@testable import MultiAuth

/// An in-memory emulation of the four `SecItem` calls for generic passwords, following Apple's
/// documented rules, so `SecItemKeychain` (what `SystemKeychain` runs on Apple platforms) is
/// exercised on every platform:
///
/// - Matching: every match attribute in the query (class, service, account, access group,
///   `kSecAttrGeneric`) must equal the item's; an absent one matches anything, except
///   `kSecAttrSynchronizable`: absent or `false` matches only non-synchronizable items
///   (Apple, `kSecAttrSynchronizable`). An absent access group matches every group the app has.
/// - `SecItemAdd`: an item without an access group goes to ``defaultAccessGroup``; an item with
///   the same class, service, account, access group and synchronizable flag is
///   `errSecDuplicateItem`; a missing class, service or account is `errSecParam`.
/// - `SecItemUpdate`: changes every matching item (`errSecItemNotFound` when none); return
///   and match-limit keys in the attributes are `errSecParam`.
/// - `SecItemDelete`: removes every matching item (`errSecItemNotFound` when none).
///
/// Every call is recorded (its dictionaries) so tests can check the attributes sent. One lock
/// makes each call atomic, like the keychain.
final class EmulatedSecItems: SecItemCalls, @unchecked Sendable {
    enum SecCall: Equatable {
        case copyMatching(KeychainDictionary)
        case add(KeychainDictionary)
        case update(KeychainDictionary, KeychainDictionary)
        case delete(KeychainDictionary)

        /// The query (or, for an add, the attributes).
        var query: KeychainDictionary {
            switch self {
            case .copyMatching(let query), .add(let query), .update(let query, _), .delete(let query): query
            }
        }
    }

    static let errSecParam: Int32 = -50
    static let matchKeys: [KeychainAttribute] = [.itemClass, .service, .account, .accessGroup, .generic]

    let defaultAccessGroup: String
    private let lock = NSLock()
    private var storage: [KeychainDictionary] = []
    private var log: [SecCall] = []
    /// When set, every call returns this status and changes nothing (e.g. a locked keychain).
    var forcedStatus: Int32? {
        get { lock.withLock { forced } }
        set { lock.withLock { forced = newValue } }
    }
    private var forced: Int32?
    /// Runs once, outside the lock, after the next `copyMatching` (another process writing
    /// between the store's read and its write).
    var afterNextCopy: (@Sendable () -> Void)? {
        get { lock.withLock { hook } }
        set { lock.withLock { hook = newValue } }
    }
    private var hook: (@Sendable () -> Void)?

    init(defaultAccessGroup: String = "TEAMID.com.example.app") {
        self.defaultAccessGroup = defaultAccessGroup
    }

    var items: [KeychainDictionary] { lock.withLock { storage } }
    var calls: [SecCall] { lock.withLock { log } }

    private func matches(_ item: KeychainDictionary, _ query: KeychainDictionary) -> Bool {
        for key in Self.matchKeys {
            if let wanted = query[key], item[key] != wanted { return false }
        }
        let synchronizable = item[.synchronizable] == .bool(true)
        return query[.synchronizable] == .bool(true) ? synchronizable : !synchronizable
    }

    func copyMatching(_ query: KeychainDictionary) -> (status: Int32, data: Data?, generic: Data?) {
        let result: (Int32, Data?, Data?) = lock.withLock {
            log.append(.copyMatching(query))
            if let forced { return (forced, nil, nil) }
            guard let item = storage.first(where: { matches($0, query) }) else {
                return (KeychainStatus.itemNotFound, nil, nil)
            }
            guard case .data(let data)? = item[.valueData] else { return (KeychainStatus.success, nil, nil) }
            if case .data(let tag)? = item[.generic] { return (KeychainStatus.success, data, tag) }
            return (KeychainStatus.success, data, nil)
        }
        if let hook = lock.withLock({ () -> (@Sendable () -> Void)? in
            defer { hook = nil }
            return hook
        }) {
            hook()
        }
        return result
    }

    func add(_ attributes: KeychainDictionary) -> Int32 {
        lock.withLock {
            log.append(.add(attributes))
            if let forced { return forced }
            guard attributes[.itemClass] == .genericPassword, attributes[.service] != nil, attributes[.account] != nil
            else {
                return Self.errSecParam
            }
            var item = attributes
            for key in [KeychainAttribute.returnData, .returnAttributes, .matchLimit] { item[key] = nil }
            if item[.accessGroup] == nil { item[.accessGroup] = .string(defaultAccessGroup) }
            if item[.synchronizable] == nil { item[.synchronizable] = .bool(false) }
            let primary: [KeychainAttribute] = [.itemClass, .service, .account, .accessGroup, .synchronizable]
            if storage.contains(where: { existing in primary.allSatisfy { existing[$0] == item[$0] } }) {
                return KeychainStatus.duplicateItem
            }
            storage.append(item)
            return KeychainStatus.success
        }
    }

    func update(_ query: KeychainDictionary, _ attributesToUpdate: KeychainDictionary) -> Int32 {
        lock.withLock {
            log.append(.update(query, attributesToUpdate))
            if let forced { return forced }
            if [KeychainAttribute.itemClass, .returnData, .returnAttributes, .matchLimit].contains(where: {
                attributesToUpdate[$0] != nil
            }) {
                return Self.errSecParam
            }
            let indices = storage.indices.filter { matches(storage[$0], query) }
            guard !indices.isEmpty else { return KeychainStatus.itemNotFound }
            for index in indices { storage[index].merge(attributesToUpdate) { $1 } }
            return KeychainStatus.success
        }
    }

    func delete(_ query: KeychainDictionary) -> Int32 {
        lock.withLock {
            log.append(.delete(query))
            if let forced { return forced }
            let before = storage.count
            storage.removeAll { matches($0, query) }
            return storage.count == before ? KeychainStatus.itemNotFound : KeychainStatus.success
        }
    }
}
