import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A session store that keeps one JSON file per provider in a directory you choose.
///
/// Format: `<provider>.session.json` holding `{"format": "multiauth.session", "version": 1,
/// "session": {…}}`. Writes are atomic and durable: the JSON goes to a temporary file created
/// with permissions 0600 in the same directory, which is `fsync`ed, `rename`d over the old
/// file, and the directory is `fsync`ed. A reader therefore sees the old or the new session,
/// never a torn one.
///
/// A file that exists but cannot be read, is corrupt, or has an unknown version makes
/// ``load(for:)`` throw `storageUnavailable`; it is never deleted or treated as signed out.
///
/// Concurrency: an actor; calls are serialized. Blocking file I/O runs on the actor.
public actor FileSessionStore: SessionStore {
    /// The format version this store writes and reads.
    public static let formatVersion = 1
    /// The directory holding the files.
    public nonisolated let directory: URL

    /// Creates a store in `directory`, creating it (mode 0700) if needed.
    /// - Throws: `AuthError` `.storageUnavailable` when the directory cannot be created.
    public init(directory: URL) throws {
        self.directory = directory
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw AuthError(.storageUnavailable, "cannot create the session directory", underlying: error)
        }
    }

    private struct Envelope: Codable {
        var format: String
        var version: Int
        var session: AuthSession
    }

    private struct Header: Decodable {
        var format: String?
        var version: Int?
    }

    /// The file that holds `provider`'s session.
    public nonisolated func fileURL(for provider: AuthProviderID) -> URL {
        directory.appendingPathComponent(Self.fileName(for: provider), isDirectory: false)
    }

    /// `<provider>.session.json` with every character outside `[A-Za-z0-9_-]` percent-encoded
    /// (so no provider id can escape the directory).
    static func fileName(for provider: AuthProviderID) -> String {
        var name = ""
        for byte in provider.rawValue.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                name.append(Character(UnicodeScalar(byte)))
            default:
                name += String(format: "%%%02X", byte)
            }
        }
        return name + ".session.json"
    }

    /// - Throws: `AuthError` `.storageUnavailable` when the file exists but cannot be read or
    ///   decoded (the file is left as it is).
    public func load(for provider: AuthProviderID) throws -> AuthSession? {
        let url = fileURL(for: provider)
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch let error as CocoaError where error.code == .fileReadNoSuchFile {
            return nil
        } catch {
            if !FileManager.default.fileExists(atPath: url.path) { return nil }
            throw AuthError(.storageUnavailable, "the session file cannot be read", provider: provider, underlying: error)
        }
        let header = try? JSONDecoder().decode(Header.self, from: data)
        guard let header, header.format == "multiauth.session" else {
            throw AuthError(.storageUnavailable, "the session file is corrupt", provider: provider)
        }
        guard header.version == Self.formatVersion else {
            throw AuthError(
                .storageUnavailable, "the session file has format version \(header.version.map(String.init) ?? "?"), "
                    + "this build reads \(Self.formatVersion)", provider: provider)
        }
        let session: AuthSession
        do {
            session = try JSONDecoder.multiAuth.decode(Envelope.self, from: data).session
        } catch {
            throw AuthError(.storageUnavailable, "the session file is corrupt", provider: provider, underlying: error)
        }
        guard session.provider == provider else {
            throw AuthError(.storageUnavailable, "the session file holds another provider's session", provider: provider)
        }
        return session
    }

    /// Writes atomically and durably (temp file 0600 + fsync + rename + directory fsync).
    /// - Throws: `AuthError` `.storageFailure`; the previous file stays intact.
    public func save(_ session: AuthSession) throws {
        let data: Data
        do {
            data = try JSONEncoder.multiAuth.encode(
                Envelope(format: "multiauth.session", version: Self.formatVersion, session: session))
        } catch {
            throw AuthError(.storageFailure, "the session could not be encoded", provider: session.provider, underlying: error)
        }
        try Self.atomicWrite(data, to: fileURL(for: session.provider), directory: directory, provider: session.provider)
    }

    /// Writes `data` to `url` through a temporary file in `directory`, fsyncing file and
    /// directory. Shared with benchmarks.
    static func atomicWrite(_ data: Data, to url: URL, directory: URL, provider: AuthProviderID?) throws {
        let tempPath = url.path + ".tmp-\(UInt64.random(in: 0...UInt64.max))"
        let fd = open(tempPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw writeError("create", errno, provider) }
        var failure: AuthError?
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = write(fd, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = writeError("write", errno, provider)
                    return
                }
                offset += written
            }
        }
        if failure == nil, fsync(fd) != 0 { failure = writeError("fsync", errno, provider) }
        if close(fd) != 0, failure == nil { failure = writeError("close", errno, provider) }
        if failure == nil, rename(tempPath, url.path) != 0 { failure = writeError("rename", errno, provider) }
        if let failure {
            unlink(tempPath)
            throw failure
        }
        let dirFD = open(directory.path, O_RDONLY | O_CLOEXEC)
        if dirFD >= 0 {
            defer { close(dirFD) }
            if fsync(dirFD) != 0 { throw writeError("fsync directory", errno, provider) }
        }
    }

    private static func writeError(_ step: String, _ code: Int32, _ provider: AuthProviderID?) -> AuthError {
        AuthError(.storageFailure, "session file \(step) failed: \(String(cString: strerror(code)))", provider: provider)
    }

    /// Removes the provider's file; succeeds when there is none.
    /// - Throws: `AuthError` `.storageFailure`.
    public func remove(for provider: AuthProviderID) throws {
        let path = fileURL(for: provider).path
        if unlink(path) != 0 && errno != ENOENT { throw Self.writeError("unlink", errno, provider) }
    }

    /// Removes every `*.session.json` file in the directory.
    /// - Throws: `AuthError` `.storageFailure`.
    public func removeAll() throws {
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: directory.path) } catch {
            throw AuthError(.storageFailure, "the session directory cannot be listed", underlying: error)
        }
        for name in names where name.hasSuffix(".session.json") {
            let path = directory.appendingPathComponent(name).path
            if unlink(path) != 0 && errno != ENOENT { throw Self.writeError("unlink", errno, nil) }
        }
    }
}
