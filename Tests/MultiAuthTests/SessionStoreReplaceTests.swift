import Foundation
import MultiAuthSandbox
import Testing

@testable import MultiAuth

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Conditional writes (`SessionStore.replace(_:with:for:)`) in every store MultiAuth ships, and
// the file store's trust rules (Docs/Reliability.md, "Session stores").

/// A fresh temporary directory, removed (permissions restored first) by `remove()`.
struct ScratchDirectory {
    let url: URL
    init(_ name: String = "store") {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("multiauth-\(name)-\(UUID().uuidString)")
    }
    var path: String { url.path }
    func names() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: path).sorted() }
    func temporaryFiles() throws -> [String] { try names().filter(FileSessionStore.isTemporaryFileName) }
    func mode() throws -> Int {
        var info = stat()
        guard stat(path, &info) == 0 else { throw AuthError(.generic, "stat failed") }
        return Int(info.st_mode) & 0o7777
    }
    func remove() {
        chmod(path, 0o700)
        try? FileManager.default.removeItem(at: url)
    }
}

/// Session versions of one provider: version `n` carries the counter `n` in its tokens.
enum Versions {
    static func session(_ counter: Int, provider: AuthProviderID = "p", id: String = "s1", writer: Int = 0)
        -> AuthSession
    {
        AuthSession(
            id: id, provider: provider, user: AuthUser(id: "u-\(id)"),
            credentials: Credentials(
                accessToken: Secret("A\(counter)-w\(writer)"), refreshToken: Secret("R\(counter)-w\(writer)"),
                expiresAt: Date(timeIntervalSince1970: 1_700_003_600.125 + Double(counter))),
            createdAt: Date(timeIntervalSince1970: 1_700_000_000.5))
    }

    static func counter(_ session: AuthSession?) -> Int? {
        guard let token = session?.credentials.accessToken?.reveal(), token.hasPrefix("A"),
            let dash = token.firstIndex(of: "-")
        else {
            return nil
        }
        return Int(token[token.index(after: token.startIndex)..<dash])
    }
}

/// Every shipped store (and the sandbox's failing wrapper), fresh for each test.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case inMemory, file, keychain, failingOverInMemory, failingOverFile
    /// `KeychainSessionStore` over `SecItemKeychain` (what `SystemKeychain` runs) and an
    /// emulated `SecItem` keychain.
    case systemKeychainLogic

    var testDescription: String { rawValue }

    func make(in directory: ScratchDirectory) throws -> any SessionStore {
        switch self {
        case .inMemory: InMemorySessionStore()
        case .file: try FileSessionStore(directory: directory.url)
        case .keychain: KeychainSessionStore(service: "test", keychain: FakeKeychain())
        case .failingOverInMemory: FailingSessionStore(wrapping: InMemorySessionStore())
        case .failingOverFile: FailingSessionStore(wrapping: try FileSessionStore(directory: directory.url))
        case .systemKeychainLogic:
            KeychainSessionStore(
                service: "test", accessGroup: "TEAMID.shared", accessibility: .afterFirstUnlockThisDeviceOnly,
                secItems: EmulatedSecItems())
        }
    }
}

@Suite struct SessionStoreReplaceTests {
    @Test(arguments: StoreKind.allCases)
    func conditionalWritesFollowTheContract(_ kind: StoreKind) async throws {
        let directory = ScratchDirectory()
        defer { directory.remove() }
        let store = try kind.make(in: directory)
        let bystander = Versions.session(7, provider: "other")
        try await store.save(bystander)
        let (v1, v2, v3) = (Versions.session(1), Versions.session(2), Versions.session(3))

        // nil expected: writes only when nothing is stored.
        #expect(try await store.replace(nil, with: v1, for: "p") == .written)
        #expect(try await store.load(for: "p") == v1)
        #expect(try await store.replace(nil, with: v2, for: "p") == .conflict(current: v1))
        #expect(try await store.load(for: "p") == v1)

        // The expected version is stored: written.
        #expect(try await store.replace(v1, with: v2, for: "p") == .written)
        #expect(try await store.load(for: "p") == v2)

        // A stale version, or another user's session of the provider: conflict with what is stored.
        #expect(try await store.replace(v1, with: v3, for: "p") == .conflict(current: v2))
        #expect(try await store.replace(Versions.session(2, id: "s2"), with: v3, for: "p") == .conflict(current: v2))
        #expect(try await store.load(for: "p") == v2)

        // Remove through a nil replacement: only the expected version.
        #expect(try await store.replace(v1, with: nil, for: "p") == .conflict(current: v2))
        #expect(try await store.load(for: "p") == v2)
        #expect(try await store.replace(v2, with: nil, for: "p") == .written)
        #expect(try await store.load(for: "p") == nil)
        #expect(try await store.replace(nil, with: nil, for: "p") == .written)
        #expect(try await store.replace(v2, with: v3, for: "p") == .conflict(current: nil))
        #expect(try await store.load(for: "p") == nil)

        // A replacement of another provider is refused before anything is written.
        let error = await #expect(throws: AuthError.self) {
            _ = try await store.replace(nil, with: Versions.session(1, provider: "q"), for: "p")
        }
        #expect(error?.code == .invalidInput)
        #expect(try await store.load(for: "p") == nil)
        #expect(try await store.load(for: "q") == nil)
        #expect(try await store.load(for: "other") == bystander)
    }

    /// Many tasks racing compare-and-set on one store: each version has exactly one winner and
    /// no update is lost (the final counter equals the number of acknowledged writes). The
    /// non-atomic default `replace` (load, then save) fails this for every store: other tasks'
    /// calls interleave between its two store calls.
    @Test(arguments: StoreKind.allCases)
    func concurrentReplacesHaveOneWinnerPerVersion(_ kind: StoreKind) async throws {
        let directory = ScratchDirectory()
        defer { directory.remove() }
        let store = try kind.make(in: directory)
        try await store.save(Versions.session(0))
        let (writers, attempts) = kind == .file || kind == .failingOverFile ? (8, 12) : (16, 250)
        let won = try await Self.race(stores: [store], writers: writers, attempts: attempts)
        let final = try #require(Versions.counter(try await store.load(for: "p")))
        #expect(final == won.count, "lost update: \(won.count) acknowledged writes, final counter \(final)")
        #expect(won.sorted() == (0..<won.count).map { $0 + 1 }, "a version was written twice or skipped")
        #expect(won.count >= attempts, "every round has a winner")
    }

    /// Two `FileSessionStore`s on one directory (two actors, so truly parallel): the directory
    /// lock makes their compare-and-set atomic with respect to each other.
    @Test func twoFileStoresOnOneDirectoryLoseNoUpdate() async throws {
        let directory = ScratchDirectory()
        defer { directory.remove() }
        let first = try FileSessionStore(directory: directory.url)
        let second = try FileSessionStore(directory: directory.url)
        try await first.save(Versions.session(0))
        let won = try await Self.race(stores: [first, second], writers: 4, attempts: 15)
        let final = try #require(Versions.counter(try await second.load(for: "p")))
        #expect(final == won.count, "lost update: \(won.count) acknowledged writes, final counter \(final)")
        #expect(Set(won).count == won.count, "a version was written twice")
    }

    /// The same race, calling `replace` on each concrete store type rather than through
    /// `any SessionStore`: the call must pick the store's own atomic `replace`, not the
    /// protocol's non-atomic default (a synchronous `replace` would lose that overload
    /// resolution to the `async` default in another module).
    @Test(arguments: [StoreKind.inMemory, .file, .keychain, .failingOverInMemory, .systemKeychainLogic])
    func callsOnTheConcreteTypeUseTheStoresOwnReplace(_ kind: StoreKind) async throws {
        let directory = ScratchDirectory()
        defer { directory.remove() }
        let racer: ReplaceRacer
        switch kind {
        case .inMemory, .failingOverFile:
            let store = InMemorySessionStore()
            racer = ReplaceRacer(
                load: { try await store.load(for: "p") }, replace: { try await store.replace($0, with: $1, for: "p") })
        case .file:
            let store = try FileSessionStore(directory: directory.url)
            racer = ReplaceRacer(
                load: { try await store.load(for: "p") }, replace: { try await store.replace($0, with: $1, for: "p") })
        case .keychain:
            let store = KeychainSessionStore(service: "test", keychain: FakeKeychain())
            racer = ReplaceRacer(
                load: { try await store.load(for: "p") }, replace: { try await store.replace($0, with: $1, for: "p") })
        case .systemKeychainLogic:
            let store = KeychainSessionStore(
                service: "test", accessGroup: "TEAMID.shared", accessibility: .afterFirstUnlockThisDeviceOnly,
                secItems: EmulatedSecItems())
            racer = ReplaceRacer(
                load: { try await store.load(for: "p") }, replace: { try await store.replace($0, with: $1, for: "p") })
        case .failingOverInMemory:
            let store = FailingSessionStore(wrapping: InMemorySessionStore())
            racer = ReplaceRacer(
                load: { try await store.load(for: "p") }, replace: { try await store.replace($0, with: $1, for: "p") })
        }
        let (writers, attempts) = kind == .file ? (8, 12) : (16, 250)
        let won = try await Self.race([racer], writers: writers, attempts: attempts)
        let final = try #require(Versions.counter(try await racer.load()))
        #expect(final == won.count, "lost update: \(won.count) acknowledged writes, final counter \(final)")
        #expect(won.sorted() == (0..<won.count).map { $0 + 1 }, "a version was written twice or skipped")
    }

    /// One writer's view of a store: its `load` and its `replace` for provider "p".
    struct ReplaceRacer: Sendable {
        let load: @Sendable () async throws -> AuthSession?
        let replace: @Sendable (AuthSession?, AuthSession) async throws -> SessionStoreWriteResult

        init(
            load: @escaping @Sendable () async throws -> AuthSession?,
            replace: @escaping @Sendable (AuthSession?, AuthSession) async throws -> SessionStoreWriteResult
        ) {
            self.load = load
            self.replace = replace
        }

        init(_ store: any SessionStore) {
            self.init(
                load: { try await store.load(for: "p") }, replace: { try await store.replace($0, with: $1, for: "p") })
        }
    }

    /// Runs `writers` tasks (spread over `stores`), each making `attempts` compare-and-set
    /// increments of the counter; returns the counter values each acknowledged write stored.
    static func race(stores: [any SessionStore], writers: Int, attempts: Int) async throws -> [Int] {
        try await race(stores.map(ReplaceRacer.init), writers: writers, attempts: attempts)
    }

    static func race(_ racers: [ReplaceRacer], writers: Int, attempts: Int) async throws -> [Int] {
        try await withThrowingTaskGroup(of: [Int].self) { group in
            for writer in 0..<writers {
                let racer = racers[writer % racers.count]
                group.addTask {
                    var won: [Int] = []
                    for _ in 0..<attempts {
                        let current = try await racer.load()
                        let next = (Versions.counter(current) ?? 0) + 1
                        if try await racer.replace(current, Versions.session(next, writer: writer)) == .written {
                            won.append(next)
                        }
                    }
                    return won
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
    }

    @Test(arguments: [StoreKind.failingOverInMemory, .failingOverFile])
    func injectedFailuresLeaveTheStoreUnchanged(_ kind: StoreKind) async throws {
        let directory = ScratchDirectory()
        defer { directory.remove() }
        let store = try #require(try kind.make(in: directory) as? FailingSessionStore)
        let failNext: @Sendable (FailingSessionStore.Operation) async -> Void = { operation in
            await store.failNext(operation)
        }
        let (v1, v2) = (Versions.session(1), Versions.session(2))
        try await store.save(v1)
        for (operation, code, replacement) in [
            (FailingSessionStore.Operation.load, AuthError.Code.storageUnavailable, Optional(v2)),
            (.save, .storageFailure, v2), (.remove, .storageFailure, nil),
        ] {
            await failNext(operation)
            let error = await #expect(throws: AuthError.self) {
                _ = try await store.replace(v1, with: replacement, for: "p")
            }
            #expect(error?.code == code)
            #expect(try await store.load(for: "p") == v1)
        }
        // A pending write failure does not turn a mismatch into an error, and stays pending.
        await failNext(.save)
        #expect(try await store.replace(nil, with: v2, for: "p") == .conflict(current: v1))
        await #expect(throws: AuthError.self) { _ = try await store.replace(v1, with: v2, for: "p") }
        #expect(try await store.replace(v1, with: v2, for: "p") == .written)
        #expect(try await store.load(for: "p") == v2)
    }

    @Test func theFailingStoreRecordsConditionalWritesAsSaves() async throws {
        let saved = SavedIDs()
        let store = FailingSessionStore(wrapping: InMemorySessionStore()) {
            saved.append($0.credentials.accessToken?.reveal() ?? "")
        }
        #expect(try await store.replace(nil, with: Versions.session(1), for: "p") == .written)
        #expect(try await store.replace(nil, with: Versions.session(2), for: "p") != .written)
        #expect(try await store.replace(Versions.session(1), with: nil, for: "p") == .written)
        #expect(await store.savedSessions == [Versions.session(1)])
        #expect(saved.values == ["A1-w0"])
        #expect(await store.callCounts == [.load: 3, .save: 1, .remove: 1])
    }

    @Test(arguments: FileSessionStore.WriteStep.allCases)
    func aFileWriteFailingAtAnyStepLeavesTheSessionAndNoTemporaryFile(_ step: FileSessionStore.WriteStep) async throws {
        let directory = ScratchDirectory()
        defer { directory.remove() }
        let store = try FileSessionStore(directory: directory.url)
        let (v1, v2) = (Versions.session(1), Versions.session(2))
        try await store.save(v1)
        let before = try Data(contentsOf: store.fileURL(for: "p"))

        await store.failNextWrite(at: step)
        let saveError = await #expect(throws: AuthError.self) { try await store.save(v2) }
        #expect(saveError?.code == .storageFailure)
        await store.failNextWrite(at: step)
        let replaceError = await #expect(throws: AuthError.self) { _ = try await store.replace(v1, with: v2, for: "p") }
        #expect(replaceError?.code == .storageFailure)

        #expect(try Data(contentsOf: store.fileURL(for: "p")) == before)
        #expect(try directory.temporaryFiles() == [])
        #expect(try await store.replace(v1, with: v2, for: "p") == .written)
    }

    /// A real (not injected) failure after the temporary file was written: the target path is a
    /// directory, so `rename` fails with `EISDIR`.
    @Test func aRealRenameFailureLeavesNoTemporaryFile() async throws {
        let directory = ScratchDirectory()
        defer { directory.remove() }
        let store = try FileSessionStore(directory: directory.url)
        try FileManager.default.createDirectory(
            at: store.fileURL(for: "p").appendingPathComponent("x"), withIntermediateDirectories: true)
        let error = await #expect(throws: AuthError.self) { try await store.save(Versions.session(1)) }
        #expect(error?.code == .storageFailure)
        #expect(try directory.temporaryFiles() == [])
    }

    @Test func aCorruptFileMakesReplaceUnavailableAndIsKept() async throws {
        let directory = ScratchDirectory()
        defer { directory.remove() }
        let store = try FileSessionStore(directory: directory.url)
        let corrupt = Data(#"{"format":"multiauth.session","version":1,"session":{"id":"#.utf8)
        try corrupt.write(to: store.fileURL(for: "p"))
        for replacement in [Versions.session(1), nil] {
            let error = await #expect(throws: AuthError.self) {
                _ = try await store.replace(nil, with: replacement, for: "p")
            }
            #expect(error?.code == .storageUnavailable)
        }
        #expect(try Data(contentsOf: store.fileURL(for: "p")) == corrupt)
    }
}

/// A thread-safe list for `onSave` callbacks.
final class SavedIDs: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []
    func append(_ value: String) { lock.withLock { stored.append(value) } }
    var values: [String] { lock.withLock { stored } }
}

@Suite struct KeychainReplaceTests {
    let keychain = FakeKeychain()
    var store: KeychainSessionStore { KeychainSessionStore(service: "test", keychain: keychain) }

    /// Another process writes a different session between the store's read and its write: the
    /// tagged write fails in the keychain, the store reads again and reports the conflict.
    @Test func aWriterSlippingInBetweenReadAndWriteWins() async throws {
        try await store.save(Versions.session(1))
        let intruder = Versions.session(9, writer: 9)
        let intruderData = try JSONEncoder.multiAuth.encode(intruder)
        keychain.afterNextVersionedRead = { _ = $0.write(service: "test", account: "p", data: intruderData) }
        #expect(
            try await store.replace(Versions.session(1), with: Versions.session(2), for: "p")
                == .conflict(current: intruder))
        #expect(try await store.load(for: "p") == intruder)
    }

    /// The same for a removal through a nil replacement.
    @Test func aRemovalSlippingInIsNotOverwrittenNorReportedAsWritten() async throws {
        try await store.save(Versions.session(1))
        keychain.afterNextVersionedRead = { _ = $0.delete(service: "test", account: "p") }
        #expect(
            try await store.replace(Versions.session(1), with: Versions.session(2), for: "p") == .conflict(current: nil)
        )
        #expect(try await store.load(for: "p") == nil)

        try await store.save(Versions.session(1))
        let intruderData = try JSONEncoder.multiAuth.encode(Versions.session(5))
        keychain.afterNextVersionedRead = { _ = $0.write(service: "test", account: "p", data: intruderData) }
        #expect(
            try await store.replace(Versions.session(1), with: nil, for: "p") == .conflict(current: Versions.session(5))
        )
        #expect(try await store.load(for: "p") == Versions.session(5))
    }

    /// Expected "nothing stored", but another writer adds an item meanwhile: the add fails
    /// with `errSecDuplicateItem` and the store reports the conflict.
    @Test func anAddSlippingInBeforeAnAddWins() async throws {
        let intruderData = try JSONEncoder.multiAuth.encode(Versions.session(4))
        keychain.afterNextVersionedRead = { _ = $0.write(service: "test", account: "p", data: intruderData) }
        #expect(
            try await store.replace(nil, with: Versions.session(1), for: "p") == .conflict(current: Versions.session(4))
        )
    }

    /// The same version rewritten meanwhile (new tag, same session): the store reads again and
    /// writes.
    @Test func theSameVersionRewrittenMeanwhileIsRetried() async throws {
        try await store.save(Versions.session(1))
        let sameData = try JSONEncoder.multiAuth.encode(Versions.session(1))
        keychain.afterNextVersionedRead = { _ = $0.write(service: "test", account: "p", data: sameData) }
        #expect(try await store.replace(Versions.session(1), with: Versions.session(2), for: "p") == .written)
        #expect(try await store.load(for: "p") == Versions.session(2))
    }

    @Test func everyWriteStoresAFreshTagAndAnUntaggedItemIsReplaced() async throws {
        keychain.storeUntagged(try JSONEncoder.multiAuth.encode(Versions.session(1)), account: "p")
        #expect(try await store.load(for: "p") == Versions.session(1))
        #expect(try await store.replace(Versions.session(1), with: Versions.session(2), for: "p") == .written)
        let first = try #require(keychain.tags["p"])
        try await store.save(Versions.session(2))
        #expect(keychain.tags["p"] != first)
        #expect(first.count == 16)
    }

    @Test func lockedOrRefusingKeychainLeavesTheItem() async throws {
        try await store.save(Versions.session(1))
        keychain.readStatus = KeychainStatus.interactionNotAllowed
        let readError = await #expect(throws: AuthError.self) {
            _ = try await store.replace(Versions.session(1), with: Versions.session(2), for: "p")
        }
        #expect(readError?.code == .storageUnavailable)
        #expect(readError?.providerCode == "-25308")
        keychain.readStatus = nil
        keychain.writeStatus = -34018
        for replacement in [Versions.session(2), nil] {
            let writeError = await #expect(throws: AuthError.self) {
                _ = try await store.replace(Versions.session(1), with: replacement, for: "p")
            }
            #expect(writeError?.code == .storageFailure)
            #expect(writeError?.providerCode == "-34018")
        }
        keychain.writeStatus = nil
        #expect(try await store.load(for: "p") == Versions.session(1))
        #expect(keychain.writes == 1 && keychain.deletes == 0)
    }

    /// An access written before version tags existed (only the four original operations) still
    /// works through the protocol's defaults.
    @Test func anAccessWithoutVersionedOperationsStillWorks() async throws {
        let store = KeychainSessionStore(service: "test", keychain: PlainKeychain())
        #expect(try await store.replace(nil, with: Versions.session(1), for: "p") == .written)
        #expect(
            try await store.replace(nil, with: Versions.session(2), for: "p") == .conflict(current: Versions.session(1))
        )
        #expect(try await store.replace(Versions.session(1), with: Versions.session(2), for: "p") == .written)
        #expect(try await store.replace(Versions.session(2), with: nil, for: "p") == .written)
        #expect(try await store.load(for: "p") == nil)
    }
}

/// A keychain access implementing only the four original operations.
final class PlainKeychain: KeychainItemAccess, @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String: Data] = [:]
    func read(service: String, account: String) -> (status: Int32, data: Data?) {
        lock.withLock { items[account].map { (0, $0) } ?? (KeychainStatus.itemNotFound, nil) }
    }
    func write(service: String, account: String, data: Data) -> Int32 {
        lock.withLock {
            items[account] = data
            return 0
        }
    }
    func delete(service: String, account: String) -> Int32 {
        lock.withLock { items.removeValue(forKey: account) == nil ? KeychainStatus.itemNotFound : 0 }
    }
    func deleteAll(service: String) -> Int32 {
        lock.withLock {
            items.removeAll()
            return 0
        }
    }
}

/// The file store's trust rules: what it refuses to read, what it tightens, what it cleans.
@Suite struct FileSessionStoreTrustTests {
    let directory = ScratchDirectory("trust")

    @Test func aSymlinkedSessionFileIsUnavailableAndItsTargetIsNotRead() async throws {
        defer { directory.remove() }
        let outside = ScratchDirectory("outside")
        defer { outside.remove() }
        let crafted = try FileSessionStore(directory: outside.url)
        try await crafted.save(Versions.session(66))
        let store = try FileSessionStore(directory: directory.url)
        try FileManager.default.createSymbolicLink(
            at: store.fileURL(for: "p"), withDestinationURL: crafted.fileURL(for: "p"))

        let loadError = await #expect(throws: AuthError.self) { _ = try await store.load(for: "p") }
        #expect(loadError?.code == .storageUnavailable)
        let replaceError = await #expect(throws: AuthError.self) {
            _ = try await store.replace(Versions.session(66), with: Versions.session(67), for: "p")
        }
        #expect(replaceError?.code == .storageUnavailable)
        #expect(try await crafted.load(for: "p") == Versions.session(66))
        #expect(
            try FileManager.default.destinationOfSymbolicLink(atPath: store.fileURL(for: "p").path)
                == crafted.fileURL(for: "p").path)
    }

    @Test func aFIFOADirectoryOrAnOversizedFileIsUnavailable() async throws {
        defer { directory.remove() }
        let store = try FileSessionStore(directory: directory.url)
        #expect(mkfifo(store.fileURL(for: "fifo").path, 0o600) == 0)
        try FileManager.default.createDirectory(at: store.fileURL(for: "dir"), withIntermediateDirectories: false)
        // A valid session followed by whitespace up to the limit + 1 byte: it would decode.
        try await store.save(Versions.session(1, provider: "big"))
        var big = try Data(contentsOf: store.fileURL(for: "big"))
        big.append(Data(repeating: 0x20, count: FileSessionStore.maximumFileSize + 1 - big.count))
        try big.write(to: store.fileURL(for: "big"))
        for provider: AuthProviderID in ["fifo", "dir", "big"] {
            let error = await #expect(throws: AuthError.self) { _ = try await store.load(for: provider) }
            #expect(error?.code == .storageUnavailable, "\(provider)")
        }
    }

    @Test(.enabled(if: geteuid() == 0, "only root can give a file to another user"))
    func aFileOwnedByAnotherUserIsUnavailable() async throws {
        defer { directory.remove() }
        let store = try FileSessionStore(directory: directory.url)
        try await store.save(Versions.session(1))
        #expect(chown(store.fileURL(for: "p").path, 65534, 65534) == 0)
        let error = await #expect(throws: AuthError.self) { _ = try await store.load(for: "p") }
        #expect(error?.code == .storageUnavailable)
        #expect(FileManager.default.fileExists(atPath: store.fileURL(for: "p").path))
    }

    @Test(arguments: [0o777, 0o770, 0o722, 0o702])
    func aDirectoryWritableByOthersIsTightened(_ mode: Int) async throws {
        defer { directory.remove() }
        try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
        #expect(chmod(directory.path, mode_t(mode)) == 0)
        _ = try FileSessionStore(directory: directory.url)
        #expect(try directory.mode() == 0o700)
    }

    @Test func aReadOnlySharedDirectoryIsLeftAsItIs() throws {
        defer { directory.remove() }
        try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
        #expect(chmod(directory.path, 0o755) == 0)
        _ = try FileSessionStore(directory: directory.url)
        #expect(try directory.mode() == 0o755)
    }

    @Test func aStickySharedDirectoryIsRefused() throws {
        defer { directory.remove() }
        try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
        #expect(chmod(directory.path, 0o1777) == 0)
        let error = #expect(throws: AuthError.self) { _ = try FileSessionStore(directory: directory.url) }
        #expect(error?.code == .storageUnavailable)
        #expect(try directory.mode() == 0o1777)
    }

    @Test(.enabled(if: geteuid() == 0, "only root can give a directory to another user"))
    func aDirectoryOfAnotherUserWritableByOthersIsRefused() throws {
        defer { directory.remove() }
        try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
        #expect(chmod(directory.path, 0o777) == 0)
        #expect(chown(directory.path, 65534, 65534) == 0)
        let error = #expect(throws: AuthError.self) { _ = try FileSessionStore(directory: directory.url) }
        #expect(error?.code == .storageUnavailable)
        #expect(try directory.mode() == 0o777)
    }

    /// The README's promise: a directory that exists but cannot be searched is "unavailable",
    /// not "signed out". Root bypasses the permission check, so this runs only for other users;
    /// `openErrorsOtherThanNoSuchFileAreUnavailable` covers the errno mapping everywhere and
    /// `aDirectoryReplacedByAFileIsUnavailable` a real non-ENOENT open failure as root.
    @Test(.enabled(if: geteuid() != 0, "root bypasses permission checks (chmod 000 cannot be staged)"))
    func anUnsearchableDirectoryIsUnavailableNotSignedOut() async throws {
        defer { directory.remove() }
        let store = try FileSessionStore(directory: directory.url)
        try await store.save(Versions.session(1))
        #expect(chmod(directory.path, 0o000) == 0)
        let error = await #expect(throws: AuthError.self) { _ = try await store.load(for: "p") }
        #expect(error?.code == .storageUnavailable)
        chmod(directory.path, 0o700)
        #expect(try await store.load(for: "p") == Versions.session(1))
    }

    @Test func openErrorsOtherThanNoSuchFileAreUnavailable() {
        #expect(FileSessionStore.loadError(errno: ENOENT, provider: "p") == nil)
        for code in [EACCES, EPERM, ELOOP, ENOTDIR, EIO, EMFILE, ENAMETOOLONG, EOVERFLOW] {
            #expect(
                FileSessionStore.loadError(errno: code, provider: "p")?.code == .storageUnavailable, "errno \(code)")
        }
    }

    @Test func aDirectoryReplacedByAFileIsUnavailable() async throws {
        defer { directory.remove() }
        let store = try FileSessionStore(directory: directory.url)
        try FileManager.default.removeItem(at: directory.url)
        try Data("x".utf8).write(to: directory.url)
        let error = await #expect(throws: AuthError.self) { _ = try await store.load(for: "p") }
        #expect(error?.code == .storageUnavailable)
        try FileManager.default.removeItem(at: directory.url)
        #expect(try await store.load(for: "p") == nil)  // gone entirely: no session
    }

    @Test func aSymlinkedLockFileIsRefusedAndNotFollowed() async throws {
        defer { directory.remove() }
        let store = try FileSessionStore(directory: directory.url)
        let lock = directory.url.appendingPathComponent(FileSessionStore.lockFileName)
        let elsewhere = FileManager.default.temporaryDirectory.appendingPathComponent(
            "multiauth-lock-\(UUID().uuidString)")
        try FileManager.default.removeItem(at: lock)
        try FileManager.default.createSymbolicLink(at: lock, withDestinationURL: elsewhere)
        let error = await #expect(throws: AuthError.self) { try await store.save(Versions.session(1)) }
        #expect(error?.code == .storageFailure)
        #expect(!FileManager.default.fileExists(atPath: elsewhere.path))
        #expect(try await store.load(for: "p") == nil)
    }

    @Test(.enabled(if: geteuid() == 0, "only root can give the lock file to another user"))
    func aLockFileOfAnotherUserIsRefused() async throws {
        defer { directory.remove() }
        let store = try FileSessionStore(directory: directory.url)
        #expect(chown(directory.url.appendingPathComponent(FileSessionStore.lockFileName).path, 65534, 65534) == 0)
        let error = await #expect(throws: AuthError.self) { try await store.save(Versions.session(1)) }
        #expect(error?.code == .storageFailure)
        #expect(try await store.load(for: "p") == nil)
    }

    enum Cleanup: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case open, remove, removeAll, replaceWithNil
        var testDescription: String { rawValue }
    }

    /// The temporary file holding a refresh token, as a writer killed mid-write leaves it, is
    /// deleted on open, on remove (sign-out), on removeAll and on a conditional removal.
    @Test(arguments: Cleanup.allCases)
    func leftoverTemporaryFilesAreDeleted(_ cleanup: Cleanup) async throws {
        defer { directory.remove() }
        var store = try FileSessionStore(directory: directory.url)
        try await store.save(Versions.session(1))
        let leftover = FileSessionStore.temporaryFileName
        try Data(#"{"refreshToken":"R-SECRET"#.utf8).write(to: directory.url.appendingPathComponent(leftover))
        _ = try await store.load(for: "p")
        #expect(try directory.temporaryFiles() == [leftover])  // reads never delete
        switch cleanup {
        case .open: store = try FileSessionStore(directory: directory.url)
        case .remove: try await store.remove(for: "p")
        case .removeAll: try await store.removeAll()
        case .replaceWithNil: #expect(try await store.replace(Versions.session(1), with: nil, for: "p") == .written)
        }
        #expect(try directory.temporaryFiles() == [])
        #expect(try await store.load(for: "p") == (cleanup == .open ? Versions.session(1) : nil))
    }

    /// A file of format version 1, byte for byte as version-1 builds write it (every field set), loads.
    @Test func aVersionOneFileStillLoads() async throws {
        defer { directory.remove() }
        let store = try FileSessionStore(directory: directory.url)
        try Data(Self.versionOneFile.utf8).write(to: store.fileURL(for: "dynamic"))
        let session = try #require(try await store.load(for: "dynamic"))
        #expect(session.id == "3f0c9a52-5b7e-4c1e-9d6a-0b1c2d3e4f50")
        #expect(session.user.email?.identityKey == "user@example.com")
        #expect(session.credentials.refreshToken == "REFRESH")
        #expect(session.credentials.expiresAt == Date(timeIntervalSince1970: 1_700_003_600.123))
        #expect(try await store.replace(session, with: nil, for: "dynamic") == .written)
    }

    static let versionOneFile = #"""
        {"format":"multiauth.session","session":{"createdAt":1700000000.5,"credentials":{"accessToken":"ACCESS","expiresAt":1700003600.123,"extra":{"values":{"minifiedJWT":"M"}},"refreshToken":"REFRESH","scopes":["openid"],"tokenType":"Bearer"},"id":"3f0c9a52-5b7e-4c1e-9d6a-0b1c2d3e4f50","maximumLifetimeEndsAt":1700604800,"provider":"dynamic","user":{"attributes":{},"email":"User@Example.com","id":"u1","identities":[{"kind":"email","value":"user@example.com","verified":true}]}},"version":1}
        """#
}
