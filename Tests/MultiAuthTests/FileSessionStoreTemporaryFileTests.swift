import Foundation
import Testing

@testable import MultiAuth

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The file store's one temporary file (`FileSessionStore.temporaryFileName`): what a crash
// leaves is replaced or removed by name, older random-suffixed leftovers are removed by
// `removeAll`, a planted symbolic link is never written through, and no operation but
// `removeAll` lists the directory (Docs/Reliability.md, "No credential outlives sign-out").

/// The fixed temporary file, as a writer killed mid-write leaves it, and the older form.
@Suite struct FileSessionStoreTemporaryFileTests {
    let directory = ScratchDirectory("temporary")

    var temporaryURL: URL { directory.url.appendingPathComponent(FileSessionStore.temporaryFileName) }

    /// A leftover of the fixed name holding a refresh token: the next save of any provider
    /// replaces it (the write succeeds, nothing of it remains), and `remove(for:)` deletes it.
    @Test func aCrashLeftoverIsReplacedByTheNextSaveAndRemovedBySignOut() async throws {
        defer { directory.remove() }
        let store = try FileSessionStore(directory: directory.url)
        try Data(#"{"refreshToken":"R-SECRET"#.utf8).write(to: temporaryURL)
        try await store.save(Versions.session(1, provider: "other"))
        #expect(try directory.temporaryFiles() == [])
        #expect(try await store.load(for: "other") == Versions.session(1, provider: "other"))

        try Data(#"{"refreshToken":"R-SECRET"#.utf8).write(to: temporaryURL)
        try await store.remove(for: "p")  // no session of p: the leftover still goes
        #expect(try directory.temporaryFiles() == [])
        #expect(try await store.load(for: "other") == Versions.session(1, provider: "other"))
    }

    /// Temporary files of the random-suffixed form earlier versions wrote are not looked for by
    /// open or `remove(for:)` (that would list the directory) and are deleted by `removeAll`.
    @Test func oldStyleLeftoversAreDeletedByRemoveAll() async throws {
        defer { directory.remove() }
        var store = try FileSessionStore(directory: directory.url)
        try await store.save(Versions.session(1))
        let leftovers = ["other.session.json.tmp-99", "p.session.json.tmp-1f2e"]
        for name in leftovers {
            try Data(#"{"refreshToken":"R-SECRET"#.utf8).write(to: directory.url.appendingPathComponent(name))
        }
        store = try FileSessionStore(directory: directory.url)
        try await store.remove(for: "p")
        #expect(try directory.temporaryFiles() == leftovers)
        try await store.removeAll()
        #expect(try directory.temporaryFiles() == [])
        #expect(try directory.names() == [FileSessionStore.lockFileName])
    }

    /// A symbolic link planted at the temporary name, to an existing file or to a path that does
    /// not exist, is replaced, never written through: the target keeps its bytes (or is never
    /// created) and the session lands in its own file.
    @Test(arguments: [true, false])
    func aSymbolicLinkAtTheTemporaryNameIsNotFollowed(_ targetExists: Bool) async throws {
        defer { directory.remove() }
        let outside = ScratchDirectory("outside")
        defer { outside.remove() }
        try FileManager.default.createDirectory(at: outside.url, withIntermediateDirectories: true)
        let target = outside.url.appendingPathComponent("target")
        if targetExists { try Data("ORIGINAL".utf8).write(to: target) }
        let store = try FileSessionStore(directory: directory.url)
        try FileManager.default.createSymbolicLink(at: temporaryURL, withDestinationURL: target)

        try await store.save(Versions.session(1))
        #expect(try await store.replace(Versions.session(1), with: Versions.session(2), for: "p") == .written)

        if targetExists {
            #expect(try Data(contentsOf: target) == Data("ORIGINAL".utf8))
        } else {
            #expect(!FileManager.default.fileExists(atPath: target.path))
        }
        #expect(try directory.temporaryFiles() == [])
        #expect(try await store.load(for: "p") == Versions.session(2))
    }

    /// Something at the temporary name that cannot be unlinked (a non-empty directory) fails the
    /// write with storageFailure; the stored session is unchanged.
    @Test func aDirectoryAtTheTemporaryNameFailsTheWrite() async throws {
        defer { directory.remove() }
        let store = try FileSessionStore(directory: directory.url)
        try await store.save(Versions.session(1))
        try FileManager.default.createDirectory(
            at: temporaryURL.appendingPathComponent("x"), withIntermediateDirectories: true)
        let error = await #expect(throws: AuthError.self) { try await store.save(Versions.session(2)) }
        #expect(error?.code == .storageFailure)
        #expect(try await store.load(for: "p") == Versions.session(1))
    }

    /// Structural, not timed: with 10,000 other entries in the directory, opening a store,
    /// loading, saving, conditional writes and removals, sign-out and a failed write make no
    /// directory listing at all; `removeAll` makes exactly one.
    @Test func onlyRemoveAllListsTheDirectory() async throws {
        defer { directory.remove() }
        try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
        for index in 0..<10_000 {
            let name = index.isMultiple(of: 2) ? "junk-\(index)" : "p\(index).session.json"
            #expect(
                FileManager.default.createFile(atPath: directory.url.appendingPathComponent(name).path, contents: nil))
        }
        let counter = FileSessionStore.ListingCounter()
        try await FileSessionStore.$listingCounter.withValue(counter) {
            let store = try FileSessionStore(directory: directory.url)
            try await store.save(Versions.session(1))
            #expect(try await store.load(for: "p") == Versions.session(1))
            #expect(try await store.replace(Versions.session(1), with: Versions.session(2), for: "p") == .written)
            await store.failNextWrite(at: .rename)
            await #expect(throws: AuthError.self) { try await store.save(Versions.session(3)) }
            #expect(try await store.replace(Versions.session(2), with: nil, for: "p") == .written)
            try await store.save(Versions.session(4))
            try await store.remove(for: "p")
            #expect(try await store.load(for: "p") == nil)
            #expect(counter.count == 0)

            try await store.removeAll()
            #expect(counter.count == 1)
        }
        #expect(try directory.names().filter { $0.hasSuffix(".session.json") } == [])
    }
}
