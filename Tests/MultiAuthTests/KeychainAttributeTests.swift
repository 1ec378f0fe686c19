import Foundation
import Testing

@testable import MultiAuth

/// `KeychainSessionStore`'s access group and accessibility, checked through the
/// `SecItem` dictionaries `SystemKeychain` sends (its logic, `SecItemKeychain`, runs here over
/// an emulated keychain; only the mapping to `kSec…` constants is Apple-only).
@Suite struct KeychainAttributeTests {
    let session = AuthSession(
        id: "s1", provider: "portal", user: AuthUser(id: "u1"), credentials: Credentials(accessToken: "T"),
        createdAt: Date(timeIntervalSince1970: 1_700_000_000))

    func store(
        _ secItems: EmulatedSecItems, group: String? = nil,
        accessibility: KeychainAccessibility = .afterFirstUnlockThisDeviceOnly
    )
        -> KeychainSessionStore
    {
        KeychainSessionStore(
            service: "com.example.app.multiauth", accessGroup: group, accessibility: accessibility, secItems: secItems)
    }

    /// Every operation of the store, once.
    func exercise(_ store: KeychainSessionStore) async throws {
        try await store.save(session)
        _ = try await store.load(for: "portal")
        var refreshed = session
        refreshed.credentials.accessToken = "T2"
        #expect(try await store.replace(session, with: refreshed, for: "portal") == .written)
        #expect(try await store.replace(refreshed, with: nil, for: "portal") == .written)
        try await store.save(session)
        try await store.remove(for: "portal")
        try await store.removeAll()
    }

    /// By default: after first unlock, this device only, not synchronizable, the version tag in
    /// `kSecAttrGeneric`, no access group in any query (the app's default group).
    @Test func defaultItemsAreAfterFirstUnlockThisDeviceOnlyAndNeverSynchronizable() async throws {
        let secItems = EmulatedSecItems()
        let store = store(secItems)
        try await store.save(session)
        let item = try #require(secItems.items.first)
        #expect(item[.accessible] == .accessibility(.afterFirstUnlockThisDeviceOnly))
        #expect(item[.synchronizable] == .bool(false))
        #expect(item[.accessGroup] == .string(secItems.defaultAccessGroup))
        guard case .data(let tag)? = item[.generic] else {
            Issue.record("no version tag")
            return
        }
        #expect(tag.count == 16)
        try await exercise(store)
        for call in secItems.calls {
            #expect(call.query[.itemClass] == .genericPassword, "\(call)")
            #expect(call.query[.service] == .string("com.example.app.multiauth"), "\(call)")
            #expect(call.query[.synchronizable] == .bool(false), "\(call)")
            #expect(call.query[.accessGroup] == nil, "\(call)")
        }
    }

    /// With an access group, every query and every new item names it; a second store (an app
    /// extension) in the same group reads the session, a store in another group does not.
    @Test func anAccessGroupIsInEveryQueryAndEveryItem() async throws {
        let secItems = EmulatedSecItems()
        let app = store(secItems, group: "ABCDE12345.com.example.shared")
        try await exercise(app)
        #expect(!secItems.calls.isEmpty)
        for call in secItems.calls {
            #expect(call.query[.accessGroup] == .string("ABCDE12345.com.example.shared"), "\(call)")
        }
        try await app.save(session)
        #expect(secItems.items.map { $0[.accessGroup] } == [.string("ABCDE12345.com.example.shared")])
        let widget = store(secItems, group: "ABCDE12345.com.example.shared")
        #expect(try await widget.load(for: "portal") == session)
        let stranger = store(secItems, group: "ABCDE12345.com.example.other")
        #expect(try await stranger.load(for: "portal") == nil)
        try await stranger.save(session)
        #expect(secItems.items.count == 2, "another group holds its own item")
    }

    /// The chosen accessibility is set when the item is added and again on every update.
    @Test(arguments: KeychainAccessibility.allCases)
    func theChosenAccessibilityIsSetOnAddAndUpdate(_ accessibility: KeychainAccessibility) async throws {
        let secItems = EmulatedSecItems()
        let store = store(secItems, accessibility: accessibility)
        try await store.save(session)
        try await store.save(session)
        var refreshed = session
        refreshed.credentials.accessToken = "T2"
        _ = try await store.replace(session, with: refreshed, for: "portal")
        let writes = secItems.calls.compactMap { call -> KeychainDictionary? in
            switch call {
            case .add(let attributes): attributes
            case .update(_, let attributes): attributes
            default: nil
            }
        }
        #expect(writes.count >= 3)
        for attributes in writes { #expect(attributes[.accessible] == .accessibility(accessibility)) }
        #expect(secItems.items.first?[.accessible] == .accessibility(accessibility))
    }

    /// Compare-and-set through the `SecItem` calls: the conditional update matches the tag it
    /// read, so a writer slipping in between (another process) makes it fail and the store
    /// reports the conflict; a removal slipping in is not overwritten.
    @Test func aWriterSlippingInBetweenReadAndWriteWins() async throws {
        let secItems = EmulatedSecItems()
        let store = store(secItems, group: "ABCDE12345.com.example.shared")
        // The extension's process, writing through its own keychain access (synchronous calls).
        let other = SecItemKeychain(
            accessGroup: "ABCDE12345.com.example.shared", accessibility: .afterFirstUnlockThisDeviceOnly,
            calls: secItems)
        try await store.save(session)
        var intruder = session
        intruder.credentials.accessToken = "from-the-extension"
        var mine = session
        mine.credentials.accessToken = "mine"
        let intruderData = try JSONEncoder.multiAuth.encode(intruder)
        secItems.afterNextCopy = {
            _ = other.write(service: "com.example.app.multiauth", account: "portal", data: intruderData)
        }
        #expect(try await store.replace(session, with: mine, for: "portal") == .conflict(current: intruder))
        #expect(try await store.load(for: "portal") == intruder)
        let tagged = secItems.calls.contains { call in
            if case .update(let query, _) = call { return query[.generic] != nil }
            return false
        }
        #expect(tagged, "the conditional write did not match the version tag")

        secItems.afterNextCopy = { _ = other.delete(service: "com.example.app.multiauth", account: "portal") }
        #expect(try await store.replace(intruder, with: mine, for: "portal") == .conflict(current: nil))
        #expect(try await store.load(for: "portal") == nil)
    }

    /// A locked keychain (`errSecInteractionNotAllowed` from every call) is unavailable, not
    /// signed out, and nothing is written.
    @Test func aLockedKeychainIsUnavailableNotSignedOut() async throws {
        let secItems = EmulatedSecItems()
        let store = store(secItems)
        try await store.save(session)
        secItems.forcedStatus = KeychainStatus.interactionNotAllowed
        let error = await #expect(throws: AuthError.self) { _ = try await store.load(for: "portal") }
        #expect(error?.code == .storageUnavailable)
        #expect(error?.providerCode == "-25308")
        secItems.forcedStatus = nil
        #expect(try await store.load(for: "portal") == session)
    }
}
