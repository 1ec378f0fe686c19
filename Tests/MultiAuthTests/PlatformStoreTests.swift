import Foundation
import Testing

@testable import MultiAuth

/// The platform-default store and `FileSessionStore`'s data protection class.
@Suite struct PlatformStoreTests {
    let session = AuthSession(
        id: "s1", provider: "portal", user: AuthUser(id: "u1"), credentials: Credentials(accessToken: "T"),
        createdAt: Date(timeIntervalSince1970: 1_700_000_000))

    /// Records what the protection setter saw: the path, the class, the file's size then.
    final class ProtectionLog: @unchecked Sendable {
        private let lock = NSLock()
        private var entries: [(path: String, protection: FileProtectionType, size: Int)] = []
        var failWith: (any Error)?
        func record(_ path: String, _ protection: FileProtectionType) throws {
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? -1
            try lock.withLock {
                entries.append((path, protection, size))
                if let failWith { throw failWith }
            }
        }
        var all: [(path: String, protection: FileProtectionType, size: Int)] { lock.withLock { entries } }
    }

    /// Every write (save, writing replace) gives the still-empty temporary file the class before
    /// any byte is written; the file then lands under the session file name.
    @Test func everyWriteProtectsTheTemporaryFileBeforeWritingIt() async throws {
        let directory = ScratchDirectory()
        defer { directory.remove() }
        let store = try FileSessionStore(
            directory: directory.url, fileProtection: .completeUntilFirstUserAuthentication)
        #expect(store.fileProtection?.rawValue == FileProtectionType.completeUntilFirstUserAuthentication.rawValue)
        let log = ProtectionLog()
        await store.setProtectionSetter { try log.record($0, $1) }
        try await store.save(session)
        var refreshed = session
        refreshed.credentials.accessToken = "T2"
        #expect(try await store.replace(session, with: refreshed, for: "portal") == .written)
        #expect(log.all.count == 2)
        for entry in log.all {
            #expect(entry.protection.rawValue == FileProtectionType.completeUntilFirstUserAuthentication.rawValue)
            #expect(FileSessionStore.isTemporaryFileName((entry.path as NSString).lastPathComponent), "\(entry.path)")
            #expect(entry.path.hasPrefix(directory.url.path))
            #expect(entry.size == 0, "bytes were written before the protection class was set")
        }
        #expect(try await store.load(for: "portal") == refreshed)
    }

    /// A protection class that cannot be set fails the write: storageFailure, the previous file
    /// intact, no temporary file left behind.
    @Test func aClassThatCannotBeSetFailsTheWriteAndKeepsTheOldFile() async throws {
        let directory = ScratchDirectory()
        defer { directory.remove() }
        let store = try FileSessionStore(directory: directory.url, fileProtection: .complete)
        try await store.save(session)
        let log = ProtectionLog()
        log.failWith = CocoaError(.fileWriteNoPermission)
        await store.setProtectionSetter { try log.record($0, $1) }
        var refreshed = session
        refreshed.credentials.accessToken = "T2"
        let error = await #expect(throws: AuthError.self) { try await store.save(refreshed) }
        #expect(error?.code == .storageFailure)
        #expect(try await store.load(for: "portal") == session)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter(
            FileSessionStore.isTemporaryFileName)
        #expect(leftovers.isEmpty)
    }

    /// Without a class (the default on Linux and macOS) nothing is set; with one, the real
    /// attribute call runs (it has no effect on Linux) and the store works.
    @Test func theDefaultClassDependsOnThePlatformAndTheRealCallRuns() async throws {
        if FileSessionStore.dataProtectionIsUniversal {
            #expect(
                FileSessionStore.defaultFileProtection?.rawValue
                    == FileProtectionType.completeUntilFirstUserAuthentication.rawValue)
        } else {
            #expect(FileSessionStore.defaultFileProtection == nil)
        }
        let directory = ScratchDirectory()
        defer { directory.remove() }
        let plain = try FileSessionStore(directory: directory.url, fileProtection: nil)
        let log = ProtectionLog()
        await plain.setProtectionSetter { try log.record($0, $1) }
        try await plain.save(session)
        #expect(log.all.isEmpty)

        let protected = try FileSessionStore(
            directory: directory.url, fileProtection: .completeUntilFirstUserAuthentication)
        var refreshed = session
        refreshed.credentials.accessToken = "T2"
        try await protected.save(refreshed)
        #expect(try await protected.load(for: "portal") == refreshed)
    }

    /// The XDG data directory: `$XDG_DATA_HOME/<service>` when absolute, else
    /// `$HOME/.local/share/<service>`; neither absolute is storageUnavailable.
    @Test func theDataDirectoryFollowsTheXDGRules() throws {
        let service = "com.example.app"
        #expect(
            try SessionStores.dataDirectory(
                service: service, environment: ["XDG_DATA_HOME": "/data", "HOME": "/home/ada"]
            ).path
                == "/data/com.example.app")
        #expect(
            try SessionStores.dataDirectory(service: service, environment: ["HOME": "/home/ada"]).path
                == "/home/ada/.local/share/com.example.app")
        for ignored in ["", "relative/data"] {
            #expect(
                try SessionStores.dataDirectory(
                    service: service, environment: ["XDG_DATA_HOME": ignored, "HOME": "/home/ada"]
                ).path
                    == "/home/ada/.local/share/com.example.app")
        }
        let error = #expect(throws: AuthError.self) {
            _ = try SessionStores.dataDirectory(service: service, environment: ["HOME": "home"])
        }
        #expect(error?.code == .storageUnavailable)
    }

    @Test(arguments: ["", ".", "..", "a/b", "/etc", "a\u{0}b"])
    func aServiceNameThatIsNotOnePathComponentIsAConfigurationError(_ service: String) {
        let error = #expect(throws: AuthError.self) { _ = try SessionStores.platformDefault(service: service) }
        #expect(error?.code == .configuration)
    }

    /// The platform default works end to end: on Linux a file store (mode 0700) in the XDG
    /// data directory of the environment, here a scratch `XDG_DATA_HOME`.
    @Test func thePlatformDefaultIsTheKeychainOnAppleAndAnXDGFileStoreElsewhere() async throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let environment = ["XDG_DATA_HOME": scratch.url.path, "HOME": "/nonexistent"]
        let store = try SessionStores.platformDefault(
            service: "com.example.app", accessGroup: "TEAMID.shared", environment: environment)
        guard !SessionStores.prefersKeychain else {
            #expect(store is KeychainSessionStore)
            return
        }
        let file = try #require(store as? FileSessionStore)
        #expect(
            file.directory.standardizedFileURL
                == scratch.url.appendingPathComponent("com.example.app").standardizedFileURL)
        try await file.save(session)
        #expect(try await file.load(for: "portal") == session)
        let mode = try FileManager.default.attributesOfItem(atPath: file.directory.path)[.posixPermissions] as? Int
        #expect(mode == 0o700)
    }
}
