import Foundation
import Testing

@testable import MultiAuth

/// Session files written by MultiAuth before tokens became ``Secret``s
/// (`Tests/Fixtures/Session`, one per built-in provider, saved by that version's
/// `FileSessionStore`) are read by today's store with every token unchanged, and saving a
/// session again writes the same bytes, through `SessionFileWriter` and through `JSONEncoder`.
@Suite struct SessionFileCompatibilityTests {
    /// The fixtures' directory.
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Session")

    static let providers: [AuthProviderID] = ["dynamic", "otpless", "passkeys", "portal", "truecaller"]

    /// The fixture's bytes for `provider`.
    static func fixture(_ provider: AuthProviderID) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent("\(provider.rawValue).session.json"))
    }

    /// A fresh store whose directory holds `provider`'s fixture, and that file's URL.
    static func store(with provider: AuthProviderID) throws -> (FileSessionStore, URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "multiauth-compat-\(UUID().uuidString)")
        let store = try FileSessionStore(directory: directory)
        let file = directory.appendingPathComponent("\(provider.rawValue).session.json")
        try fixture(provider).write(to: file)
        return (store, file)
    }

    @Test(arguments: providers)
    func fileWrittenBeforeSecretIsReadBack(_ provider: AuthProviderID) async throws {
        let (store, file) = try Self.store(with: provider)
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let session = try #require(try await store.load(for: provider))
        let json = try #require(
            try JSONSerialization.jsonObject(with: Self.fixture(provider)) as? [String: Any])
        let stored = try #require((json["session"] as? [String: Any])?["credentials"] as? [String: Any])
        #expect(session.credentials.accessToken?.reveal() == stored["accessToken"] as? String)
        #expect(session.credentials.idToken?.reveal() == stored["idToken"] as? String)
        #expect(session.credentials.refreshToken?.reveal() == stored["refreshToken"] as? String)
        #expect(session.credentials.accessToken != nil)
        let extra = try #require((stored["extra"] as? [String: Any])?["values"] as? [String: String])
        #expect(session.credentials.extra.values.mapValues { $0.reveal() } == extra)
    }

    @Test(arguments: providers)
    func savingTheSessionAgainWritesTheSameBytes(_ provider: AuthProviderID) async throws {
        let (store, file) = try Self.store(with: provider)
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let session = try #require(try await store.load(for: provider))
        try await store.save(session)
        #expect(try Data(contentsOf: file) == (try Self.fixture(provider)))
        #expect(Data(try FileSessionStore.encodeWithJSONEncoder(session)) == (try Self.fixture(provider)))
    }
}
