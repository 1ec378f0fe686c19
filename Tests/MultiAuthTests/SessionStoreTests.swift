import Foundation
import MultiAuthSandbox
import Testing

@testable import MultiAuth

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite struct FileSessionStoreTests {
    let directory: URL
    let session: AuthSession

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "multiauth-tests-\(UUID().uuidString)")
        session = AuthSession(
            id: "s1", provider: "dynamic",
            user: AuthUser(
                id: "u1", email: try EmailAddress("User@Example.com"),
                identities: [.init(kind: "email", value: "user@example.com", verified: true)]),
            credentials: Credentials(
                accessToken: "ACCESS", refreshToken: "REFRESH",
                expiresAt: Date(timeIntervalSince1970: 1_700_003_600.123)),
            createdAt: Date(timeIntervalSince1970: 1_700_000_000.5))
    }

    @Test func roundTripsExactlyWithPrivatePermissions() async throws {
        let store = try FileSessionStore(directory: directory)
        #expect(try await store.load(for: "dynamic") == nil)
        try await store.save(session)
        #expect(try await store.load(for: "dynamic") == session)
        let attributes = try FileManager.default.attributesOfItem(atPath: store.fileURL(for: "dynamic").path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(names == [FileSessionStore.lockFileName, "dynamic.session.json"])
        let lockAttributes = try FileManager.default.attributesOfItem(
            atPath: directory.appendingPathComponent(FileSessionStore.lockFileName).path)
        #expect((lockAttributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect((lockAttributes[.size] as? NSNumber)?.intValue == 0)
        let json = try String(contentsOf: store.fileURL(for: "dynamic"), encoding: .utf8)
        #expect(json.contains(#""version":1"#))
        #expect(json.contains(#""format":"multiauth.session""#))
    }

    @Test func replacingKeepsOneFileAndTheNewSession() async throws {
        let store = try FileSessionStore(directory: directory)
        try await store.save(session)
        var updated = session
        updated.credentials.accessToken = "ACCESS-2"
        try await store.save(updated)
        #expect(try await store.load(for: "dynamic")?.credentials.accessToken == "ACCESS-2")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == [
                FileSessionStore.lockFileName, "dynamic.session.json",
            ])
    }

    @Test(arguments: [
        Data("not json".utf8), Data(#"{"format":"multiauth.session","version":1,"session":{"id":3}}"#.utf8),
        Data(#"{"format":"multiauth.session","version":99,"session":{}}"#.utf8), Data(),
    ])
    func corruptOrUnknownFilesAreUnavailableAndKept(_ contents: Data) async throws {
        let store = try FileSessionStore(directory: directory)
        let url = store.fileURL(for: "dynamic")
        try contents.write(to: url)
        let error = await #expect(throws: AuthError.self) { _ = try await store.load(for: "dynamic") }
        #expect(error?.code == .storageUnavailable)
        #expect(try Data(contentsOf: url) == contents)
    }

    /// The one-pass reading of a stored file reports what the header-then-envelope reading did:
    /// a file that is not an object, or whose header is malformed or of another format, is
    /// corrupt with no underlying error; another version names it; a session that does not
    /// decode is corrupt with the decoding error underneath.
    @Test(arguments: [
        (#"[1,2]"#, "the session file is corrupt", false),
        (#"{"version":1,"session":{}}"#, "the session file is corrupt", false),
        (#"{"format":5,"version":1,"session":{}}"#, "the session file is corrupt", false),
        (#"{"format":"other","version":1,"session":{}}"#, "the session file is corrupt", false),
        (#"{"format":"multiauth.session","version":"1","session":{}}"#, "the session file is corrupt", false),
        (#"{"format":"multiauth.session","version":2,"session":{}}"#, "format version 2, this build reads 1", false),
        (#"{"format":"multiauth.session","version":null,"session":{}}"#, "format version ?, this build reads 1", false),
        (#"{"format":"multiauth.session","version":1}"#, "the session file is corrupt", true),
        (#"{"format":"multiauth.session","version":1,"session":{"id":3}}"#, "the session file is corrupt", true),
    ])
    func malformedFilesReportWhatIsWrong(_ json: String, _ message: String, _ hasUnderlying: Bool) async throws {
        let store = try FileSessionStore(directory: directory)
        try Data(json.utf8).write(to: store.fileURL(for: "dynamic"))
        let error = await #expect(throws: AuthError.self) { _ = try await store.load(for: "dynamic") }
        #expect(error?.code == .storageUnavailable)
        #expect(error?.message.contains(message) == true)
        #expect((error?.underlying != nil) == hasUnderlying)
    }

    /// A store created on an existing directory (which it no longer passes to `createDirectory`)
    /// still tightens a group- or world-writable one, and one on a missing path creates it 0700.
    @Test func existingAndMissingDirectoriesEndPrivate() throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        chmod(directory.path, 0o777)
        _ = try FileSessionStore(directory: directory)
        let existing = try FileManager.default.attributesOfItem(atPath: directory.path)
        #expect((existing[.posixPermissions] as? NSNumber)?.intValue == 0o700)
        let nested = directory.appendingPathComponent("a/b", isDirectory: true)
        _ = try FileSessionStore(directory: nested)
        let created = try FileManager.default.attributesOfItem(atPath: nested.path)
        #expect((created[.posixPermissions] as? NSNumber)?.intValue == 0o700)
    }

    @Test(
        .enabled(
            if: geteuid() != 0,
            "root reads everything; the permission case cannot be staged (see FileSessionStoreTrustTests)"))
    func unreadableFileIsUnavailable() async throws {
        let store = try FileSessionStore(directory: directory)
        try await store.save(session)
        chmod(store.fileURL(for: "dynamic").path, 0o000)
        let error = await #expect(throws: AuthError.self) { _ = try await store.load(for: "dynamic") }
        #expect(error?.code == .storageUnavailable)
    }

    @Test func aFailedWriteThrowsStorageFailureAndLeavesNoTemporaryFile() async throws {
        let store = try FileSessionStore(directory: directory)
        try await store.save(session)
        var unwritable = session
        unwritable.provider = AuthProviderID(String(repeating: "p", count: 300))  // over NAME_MAX
        let error = await #expect(throws: AuthError.self) { try await store.save(unwritable) }
        #expect(error?.code == .storageFailure)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == [
                FileSessionStore.lockFileName, "dynamic.session.json",
            ])
        #expect(try await store.load(for: "dynamic") == session)
    }

    @Test func aDirectoryThatCannotBeCreatedIsUnavailable() throws {
        let file = directory.appendingPathComponent("file")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data("x".utf8).write(to: file)
        #expect(throws: AuthError.self) { _ = try FileSessionStore(directory: file.appendingPathComponent("sub")) }
    }

    @Test func removeIsIdempotentAndRemoveAllClears() async throws {
        let store = try FileSessionStore(directory: directory)
        try await store.save(session)
        var other = session
        other.provider = "portal"
        try await store.save(other)
        try await store.remove(for: "dynamic")
        try await store.remove(for: "dynamic")
        #expect(try await store.load(for: "dynamic") == nil)
        #expect(try await store.load(for: "portal") == other)
        try await store.removeAll()
        #expect(try await store.load(for: "portal") == nil)
    }

    @Test func aFileHoldingAnotherProvidersSessionIsUnavailable() async throws {
        let store = try FileSessionStore(directory: directory)
        try await store.save(session)
        try FileManager.default.copyItem(at: store.fileURL(for: "dynamic"), to: store.fileURL(for: "portal"))
        let error = await #expect(throws: AuthError.self) { _ = try await store.load(for: "portal") }
        #expect(error?.code == .storageUnavailable)
    }

    @Test func providerIDsCannotEscapeTheDirectory() {
        #expect(FileSessionStore.fileName(for: "../../etc/passwd") == "%2E%2E%2F%2E%2E%2Fetc%2Fpasswd.session.json")
        #expect(FileSessionStore.fileName(for: "otp-less_1") == "otp-less_1.session.json")
    }

    @Test func concurrentSavesLeaveOneValidFile() async throws {
        let store = try FileSessionStore(directory: directory)
        let base = session
        await withThrowingTaskGroup(of: Void.self) { group in
            for n in 0..<20 {
                group.addTask {
                    var copy = base
                    copy.credentials.accessToken = Secret("A\(n)")
                    try await store.save(copy)
                }
            }
        }
        let loaded = try #require(try await store.load(for: "dynamic"))
        #expect(loaded.credentials.accessToken?.reveal().hasPrefix("A") == true)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == [
                FileSessionStore.lockFileName, "dynamic.session.json",
            ])
    }
}

/// A keychain fake returning chosen statuses (Docs/Cases.md, B19), with version tags whose conditional
/// operations are atomic under its lock, as the keychain's are.
final class FakeKeychain: KeychainItemAccess, @unchecked Sendable {
    private let lock = NSLock()
    var items: [String: Data] = [:]
    var tags: [String: Data] = [:]
    var readStatus: Int32?
    /// When set, every write and delete fails with this status and changes nothing.
    var writeStatus: Int32?
    var writes = 0
    var deletes = 0
    /// Run once, outside the lock, right after the next versioned read: another writer
    /// slipping in between a conditional write's read and its write.
    var afterNextVersionedRead: (@Sendable (FakeKeychain) -> Void)?

    func read(service: String, account: String) -> (status: Int32, data: Data?) {
        let (status, data, _) = readVersioned(service: service, account: account, runHook: false)
        return (status, data)
    }
    func readVersioned(service: String, account: String) -> (status: Int32, data: Data?, tag: Data?) {
        readVersioned(service: service, account: account, runHook: true)
    }
    private func readVersioned(service: String, account: String, runHook: Bool) -> (
        status: Int32, data: Data?, tag: Data?
    ) {
        lock.lock()
        let result: (Int32, Data?, Data?)
        if let readStatus {
            result = (readStatus, nil, nil)
        } else if let data = items[account] {
            result = (0, data, tags[account])
        } else {
            result = (KeychainStatus.itemNotFound, nil, nil)
        }
        let hook = runHook ? afterNextVersionedRead : nil
        if runHook { afterNextVersionedRead = nil }
        lock.unlock()
        hook?(self)
        return result
    }
    func write(service: String, account: String, data: Data) -> Int32 {
        write(service: service, account: account, data: data, tag: KeychainSessionStore.newVersionTag(), if: .always)
    }
    func write(service: String, account: String, data: Data, tag: Data, if condition: KeychainWriteCondition) -> Int32 {
        lock.lock()
        defer { lock.unlock() }
        if let writeStatus { return writeStatus }
        switch condition {
        case .always: break
        case .absent: if items[account] != nil { return KeychainStatus.duplicateItem }
        case .tagged(let expected):
            if items[account] == nil || tags[account] != expected { return KeychainStatus.itemNotFound }
        }
        writes += 1
        items[account] = data
        tags[account] = tag
        return 0
    }
    func delete(service: String, account: String) -> Int32 {
        lock.lock()
        defer { lock.unlock() }
        if let writeStatus { return writeStatus }
        deletes += 1
        tags[account] = nil
        return items.removeValue(forKey: account) == nil ? KeychainStatus.itemNotFound : 0
    }
    func delete(service: String, account: String, ifTagged tag: Data) -> Int32 {
        lock.lock()
        defer { lock.unlock() }
        if let writeStatus { return writeStatus }
        guard items[account] != nil, tags[account] == tag else { return KeychainStatus.itemNotFound }
        deletes += 1
        items[account] = nil
        tags[account] = nil
        return 0
    }
    func deleteAll(service: String) -> Int32 {
        lock.lock()
        defer { lock.unlock() }
        items.removeAll()
        tags.removeAll()
        return 0
    }
    /// Stores `data` without a tag, as a build before version tags did.
    func storeUntagged(_ data: Data, account: String) {
        lock.lock()
        defer { lock.unlock() }
        items[account] = data
        tags[account] = nil
    }
}

@Suite struct KeychainSessionStoreTests {
    let session = AuthSession(
        id: "s1", provider: "portal", user: AuthUser(id: "u1"), credentials: Credentials(accessToken: "T"),
        createdAt: Date(timeIntervalSince1970: 1_700_000_000))

    /// Docs/Cases.md, B19: -25308 → storageUnavailable, item kept; after unlock the session is read; -25300 → nil.
    @Test func lockedKeychainIsUnavailableNotSignedOut() async throws {
        let keychain = FakeKeychain()
        let store = KeychainSessionStore(service: "test", keychain: keychain)
        try await store.save(session)
        keychain.readStatus = -25308
        let error = await #expect(throws: AuthError.self) { _ = try await store.load(for: "portal") }
        #expect(error?.code == .storageUnavailable)
        #expect(error?.providerCode == "-25308")
        #expect(keychain.deletes == 0 && keychain.writes == 1)
        keychain.readStatus = nil
        #expect(try await store.load(for: "portal") == session)
        keychain.readStatus = -25300
        #expect(try await store.load(for: "portal") == nil)
    }

    /// B19 through the client: a locked keychain makes no network call and deletes nothing.
    @Test func lockedKeychainMakesNoRefreshCall() async throws {
        let keychain = FakeKeychain()
        let store = KeychainSessionStore(service: "test", keychain: keychain)
        let fixture = ClientWorld()
        var expired = FakeProvider.session(
            provider: "fake", access: "A1", refresh: "R1", at: Date(timeIntervalSince1970: 1_600_000_000))
        expired.id = "s1"
        try await store.save(expired)
        keychain.readStatus = KeychainStatus.interactionNotAllowed
        let client = try AuthClient(
            providers: [fixture.provider], store: store, transport: NoNetworkTransport(), time: fixture.clock.timeSource
        )
        let error = await #expect(throws: AuthError.self) { _ = try await client.validSession(for: "fake") }
        #expect(error?.code == .storageUnavailable)
        #expect(await fixture.server.totalCalls == 0)
        #expect(keychain.deletes == 0)
        keychain.readStatus = nil
        #expect(try await store.load(for: "fake") == expired)
    }

    @Test func otherStatusesAreFailures() async throws {
        let keychain = FakeKeychain()
        keychain.readStatus = -34018
        let store = KeychainSessionStore(service: "test", keychain: keychain)
        let error = await #expect(throws: AuthError.self) { _ = try await store.load(for: "portal") }
        #expect(error?.code == .storageUnavailable)
        try await store.remove(for: "portal")
    }
}

/// Injected failures over the in-memory store (`FailingSessionStore`, what the client tests use).
@Suite struct InjectedStoreFailureTests {
    @Test func injectedFailuresAreTypedAndOneShot() async throws {
        let session = AuthSession(
            provider: "p", user: AuthUser(id: "u"), credentials: Credentials(),
            createdAt: Date(timeIntervalSince1970: 0))
        let store = FailingSessionStore(wrapping: InMemorySessionStore())
        await store.failNext(.save)
        let saveError = await #expect(throws: AuthError.self) { try await store.save(session) }
        #expect(saveError?.code == .storageFailure)
        try await store.save(session)
        await store.failNext(.load, count: 2)
        for _ in 0..<2 {
            let loadError = await #expect(throws: AuthError.self) { _ = try await store.load(for: "p") }
            #expect(loadError?.code == .storageUnavailable)
        }
        #expect(try await store.load(for: "p") == session)
        #expect(await store.callCounts[.load] == 3)
    }
}
