import Foundation
import MultiAuthLocking

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A session store that keeps one JSON file per provider in a directory you choose; safe to
/// share between processes (an app and its extensions).
///
/// Format: `<provider>.session.json` holding `{"format": "multiauth.session", "version": 1,
/// "session": {…}}`. Writes are atomic and durable: the JSON goes to the directory's one
/// temporary file `.multiauth.session.json.tmp-0` (created with permissions 0600, `O_EXCL`, never through
/// a symbolic link), which is `fsync`ed and `rename`d over the old file, and the directory is
/// `fsync`ed. A reader therefore sees the old or the new session, never a torn one.
///
/// Writers (``save(_:)``, ``remove(for:)``, ``removeAll()``, ``replace(_:with:for:)``) hold an
/// exclusive advisory lock (`flock`) on the lock file ``lockFileName`` in the directory, so two
/// processes, or two stores on one directory, never interleave a read-check-write; the kernel
/// releases the lock when a process dies. Readers take no lock.
///
/// No credential outlives sign-out: every write holds the lock while its temporary file exists,
/// so one fixed name is enough, and a writer that died mid-write leaves at most that one file.
/// It is deleted by exact name (under the lock, so a live writer is never disturbed) when a
/// store is created, on ``remove(for:)``, on ``removeAll()`` and when ``replace(_:with:for:)``
/// removes a session, and the next write replaces it; a failed write truncates and deletes its
/// own temporary file. None of these lists the directory, so their cost does not grow with the
/// number of files in it. Temporary files of the form earlier versions wrote
/// (`<provider>.session.json.tmp-<random>`) are deleted by ``removeAll()``, which lists the
/// directory anyway.
///
/// Trust rules (Docs/Reliability.md, "Session stores"): ``load(for:)`` opens with `O_NOFOLLOW`
/// and accepts only a regular file owned by the process's effective user, at most
/// ``maximumFileSize`` bytes; a symbolic link, a directory, a FIFO, another user's file, a file
/// that exists but cannot be opened (any error other than "no such file", e.g. `EACCES` on a
/// directory that cannot be searched), a corrupt file or an unknown format version throws
/// `storageUnavailable`. None of these is ever deleted or treated as signed out.
///
/// Data protection (Apple platforms): every session file gets the ``fileProtection`` class
/// (`FileProtectionType.completeUntilFirstUserAuthentication` by default on iOS, tvOS,
/// watchOS and visionOS) through its `FileAttributeKey.protectionKey` attribute, set on the
/// temporary file right after it is created and before any byte is written, so the session is
/// never on disk under a weaker class. Apple documents the classes in "Encrypting Your App's
/// Files" (https://developer.apple.com/documentation/uikit/encrypting-your-app-s-files) and the
/// attribute at https://developer.apple.com/documentation/foundation/fileattributekey/protectionkey;
/// `Data.WritingOptions.completeFileProtectionUntilFirstUserAuthentication` does not apply
/// because the store writes with `open`/`write`/`rename`, not `Data.write(to:options:)`. On
/// Linux the attribute has no effect and the default is `nil`. On Apple platforms prefer
/// ``KeychainSessionStore`` (`SessionStores.platformDefault(service:accessGroup:)`).
///
/// Concurrency: an actor; calls on one store are serialized. Blocking file I/O (and waiting for
/// the lock while another process writes) runs on the actor.
public actor FileSessionStore: SessionStore {
    /// The format version this store writes and reads.
    public static let formatVersion = 1
    /// The `format` field of every session file.
    static let formatName = "multiauth.session"
    /// The name of the lock file writers hold (`flock`, exclusive) in ``directory``. It is
    /// never deleted: deleting a lock file would let two writers lock different files.
    public static let lockFileName = ".multiauth.lock"
    /// The name of the temporary file every atomic write goes through, in ``directory``. Writers
    /// hold the directory lock while it exists, so one name serves every provider. It contains
    /// `.session.json.tmp-`, the pattern earlier versions delete as a leftover, so a store of an
    /// earlier version sharing the directory cleans it up too.
    package static let temporaryFileName = ".multiauth.session.json.tmp-0"
    /// The largest session file ``load(for:)`` reads, in bytes (1 MiB); larger files are
    /// `storageUnavailable`.
    public static let maximumFileSize = 1 << 20
    /// The directory holding the files.
    public nonisolated let directory: URL
    /// `directory.path`, computed once (`URL.path` is slow on Linux).
    private nonisolated let directoryPath: String
    /// The path of the lock file ``lockFileName`` in ``directory``, computed once.
    private nonisolated let lockPath: String
    /// The path of the temporary file ``temporaryFileName`` in ``directory``, computed once.
    private nonisolated let temporaryPath: String
    /// The raw value of ``fileProtection`` (a `String`, so the actor can hold it nonisolated).
    private nonisolated let fileProtectionRawValue: String?

    /// The data protection class every session file gets before its bytes are written; `nil`
    /// leaves the system's default class.
    public nonisolated var fileProtection: FileProtectionType? {
        fileProtectionRawValue.map(FileProtectionType.init(rawValue:))
    }

    /// The class new stores use: `.completeUntilFirstUserAuthentication` on iOS, tvOS,
    /// watchOS and visionOS (readable after the first unlock since restart, so background
    /// refresh works; Apple, `FileProtectionType.completeUntilFirstUserAuthentication`),
    /// `nil` on macOS and Linux.
    public static var defaultFileProtection: FileProtectionType? {
        dataProtectionIsUniversal ? .completeUntilFirstUserAuthentication : nil
    }

    /// Whether every file of an app has a data protection class on this platform (iOS, tvOS,
    /// watchOS, visionOS). The only line here that depends on the platform, so the rest
    /// type-checks everywhere.
    package static let dataProtectionIsUniversal: Bool = {
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        true
        #else
        false
        #endif
    }()

    /// Test seam: replaces setting the protection attribute (path of the temporary file, class).
    private var protectionSetter: (@Sendable (String, FileProtectionType) throws -> Void)?

    /// Test seam: the write step the next atomic write fails at (with `EIO`), if any.
    private var pendingWriteFault: WriteStep?

    /// The provider whose session file path ``cachedPath`` is: a store mostly serves one
    /// provider, so its path is built once, not on every call.
    private var cachedProvider: AuthProviderID?
    /// ``filePath(for:)`` of ``cachedProvider``.
    private var cachedPath = ""

    /// Creates a store in `directory`, creating it (mode 0700) if needed, and deletes the
    /// temporary file a writer that died mid-write left behind (by name: the directory is not
    /// listed).
    ///
    /// An existing directory that is group- or world-writable is tightened to 0700 when it
    /// belongs to the process's effective user; one owned by another user, or a shared sticky
    /// directory such as `/tmp`, is refused.
    /// - Parameters:
    ///   - directory: Where the files live.
    ///   - fileProtection: The data protection class of every session file (Apple platforms);
    ///     `nil` keeps the system default.
    /// - Throws: `AuthError` `.storageUnavailable` when the directory cannot be created, is not
    ///   a directory, or is writable by other users and cannot be tightened.
    public init(directory: URL, fileProtection: FileProtectionType? = FileSessionStore.defaultFileProtection) throws {
        self.directory = directory
        self.fileProtectionRawValue = fileProtection?.rawValue
        let directoryPath = directory.path
        self.directoryPath = directoryPath
        self.lockPath = Self.path(Self.lockFileName, in: directoryPath)
        self.temporaryPath = Self.path(Self.temporaryFileName, in: directoryPath)
        // An existing directory (every launch after the first) needs no `createDirectory`, which
        // would only find it there: skipping it saves a fresh process that call's one-time
        // set-up (about a fifth of a millisecond before the first `authStates()` element).
        if !Self.isExistingDirectory(directoryPath) {
            do {
                try FileManager.default.createDirectory(
                    at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw AuthError(.storageUnavailable, "cannot create the session directory", underlying: error)
            }
        }
        try Self.secureDirectory(directoryPath)
        // Best effort: a directory we cannot lock now fails the next write instead, and loads do
        // not depend on it.
        let temporaryPath = self.temporaryPath
        _ = try? Self.withLock(at: lockPath, failure: .storageUnavailable, provider: nil) {
            try Self.removeTemporaryFile(at: temporaryPath)
        }
    }

    /// The file ``save(_:)`` writes (``StoredFile`` reads it back).
    private struct Envelope: Encodable {
        var format: String
        var version: Int
        var session: AuthSession
    }

    /// A stored file as ``load(for:)`` reads it, in one decoding pass: the header (`format` and
    /// `version`, each optional), and the session only when the header is this format and
    /// version. Decoding throws only when the top level is not a JSON object, so the caller
    /// tells such a file from a session that does not decode, as the two-pass reading (a header
    /// decode, then an `Envelope` decode) did. Plain stored properties, no tuple or `Result`:
    /// their generic metadata would cost a fresh process more than the pass it saves.
    private struct StoredFile: Decodable {
        /// Whether `format` and `version` decoded (each may be absent or `null`); `false` when
        /// either is of the wrong type, which makes the file corrupt.
        var headerDecoded = true
        /// The `format` field.
        var format: String?
        /// The `version` field.
        var version: Int?
        /// The session, decoded only when the header is this format and version.
        var session: AuthSession?
        /// Why the session did not decode, when it was decoded and failed.
        var sessionError: (any Error)?

        private enum CodingKeys: String, CodingKey {
            case format, version, session
        }

        /// Decodes the header, then the session when the header is `multiauth.session` at
        /// ``FileSessionStore/formatVersion``. Throws only when the top level is not an object.
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            do {
                format = try container.decodeIfPresent(String.self, forKey: .format)
                version = try container.decodeIfPresent(Int.self, forKey: .version)
            } catch {
                headerDecoded = false
                return
            }
            guard format == FileSessionStore.formatName, version == FileSessionStore.formatVersion else { return }
            do {
                session = try container.decode(AuthSession.self, forKey: .session)
            } catch {
                sessionError = error
            }
        }
    }

    /// The file that holds `provider`'s session.
    public nonisolated func fileURL(for provider: AuthProviderID) -> URL {
        directory.appendingPathComponent(Self.fileName(for: provider), isDirectory: false)
    }

    /// The path of ``fileURL(for:)`` (`fileURL(for: provider).path`), made by appending
    /// ``fileName(for:)`` to the directory's path computed once, without `URL` work.
    nonisolated func filePath(for provider: AuthProviderID) -> String {
        Self.path(Self.fileName(for: provider), in: directoryPath)
    }

    /// ``filePath(for:)``, remembered for the last provider asked for. Ids are compared by
    /// their UTF-8 bytes, as the file name encodes them: `==` on `String` treats `"é"` and
    /// `"e\u{301}"` as equal, and their files differ.
    private func sessionPath(for provider: AuthProviderID) -> String {
        if let cachedProvider, cachedProvider.rawValue.utf8.elementsEqual(provider.rawValue.utf8) { return cachedPath }
        let path = filePath(for: provider)
        cachedProvider = provider
        cachedPath = path
        return path
    }

    /// `name` in the directory at `directoryPath`: the two joined by one `/` (none added when
    /// the directory's path already ends with one, as `/` does).
    static func path(_ name: String, in directoryPath: String) -> String {
        directoryPath.utf8.last == UInt8(ascii: "/") ? directoryPath + name : directoryPath + "/" + name
    }

    /// `<provider>.session.json` with every character outside `[A-Za-z0-9_-]` percent-encoded
    /// (so no provider id can escape the directory).
    static func fileName(for provider: AuthProviderID) -> String {
        let hex: StaticString = "0123456789ABCDEF"
        var name: [UInt8] = []
        name.reserveCapacity(provider.rawValue.utf8.count + 13)
        for byte in provider.rawValue.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                name.append(byte)
            default:
                name += [UInt8(ascii: "%"), hex.utf8Start[Int(byte >> 4)], hex.utf8Start[Int(byte & 0xF)]]
            }
        }
        name += ".session.json".utf8
        return String(decoding: name, as: UTF8.self)
    }

    /// Whether `name` is a temporary file of an atomic write: `temporaryFileName`, or
    /// `<provider>.session.json.tmp-<random>` as earlier versions named it.
    package static func isTemporaryFileName(_ name: String) -> Bool { name.contains(".session.json.tmp-") }

    // MARK: - SessionStore

    /// Reads the provider's file without taking the lock (writes replace files atomically).
    /// - Throws: `AuthError` `.storageUnavailable` when the file exists but cannot be opened,
    ///   is not a regular file owned by this user, is too large, or cannot be decoded (the file
    ///   is left as it is).
    public func load(for provider: AuthProviderID) throws -> AuthSession? {
        try Self.readSession(at: sessionPath(for: provider), provider: provider)
    }

    /// Writes atomically and durably (temp file 0600 + fsync + rename + directory fsync) under
    /// the directory lock.
    /// - Throws: `AuthError` `.storageFailure`, also before anything is written for a session
    ///   whose file would exceed ``maximumFileSize`` (which `load` would refuse); the previous
    ///   file stays intact and no temporary file is left (except when only the final directory
    ///   fsync fails: the new file is then already in place).
    public func save(_ session: AuthSession) throws {
        let bytes = try Self.encode(session)
        let path = sessionPath(for: session.provider)
        let fault = takeWriteFault()
        let protect = protection()
        try Self.withLock(at: lockPath, failure: .storageFailure, provider: session.provider) {
            try Self.atomicWrite(
                bytes, to: path, temporaryPath: temporaryPath, directoryPath: directoryPath,
                provider: session.provider, failingAt: fault, protect: protect)
        }
    }

    /// Removes the provider's file and a leftover temporary file (by name, without listing the
    /// directory), under the directory lock; succeeds when there is no file.
    /// - Throws: `AuthError` `.storageFailure`.
    public func remove(for provider: AuthProviderID) throws {
        let path = sessionPath(for: provider)
        try Self.withLock(at: lockPath, failure: .storageFailure, provider: provider) {
            try Self.unlinkSessionFile(path, provider: provider)
            try Self.removeTemporaryFile(at: temporaryPath)
        }
    }

    /// Removes every `*.session.json` file and every leftover temporary file (including those
    /// earlier versions named `<provider>.session.json.tmp-<random>`), under the directory lock.
    /// The only operation that lists the directory.
    /// - Throws: `AuthError` `.storageFailure`.
    public func removeAll() throws {
        try Self.withLock(at: lockPath, failure: .storageFailure, provider: nil) {
            for name in try Self.listDirectory(directoryPath) {
                let path = Self.path(name, in: directoryPath)
                if name.hasSuffix(".session.json") {
                    try Self.unlinkSessionFile(path, provider: nil)
                } else if Self.isTemporaryFileName(name) && unlink(path) != 0 && errno != ENOENT {
                    throw Self.writeError("unlink of a temporary file", errno, nil)
                }
            }
        }
    }

    /// Compare-and-set under the directory lock: reads the stored file, compares it with
    /// `expected` (``AuthSession/isSameVersion(as:)``), and only then writes `replacement`
    /// atomically (or removes the file and a leftover temporary file). Atomic across
    /// processes and across stores sharing the directory.
    /// - Throws: `AuthError` `.storageUnavailable` when the lock cannot be taken or the stored
    ///   file cannot be read (nothing is written), `.storageFailure` when the write fails (the
    ///   stored file is unchanged), `.invalidInput` when `replacement` belongs to another
    ///   provider.
    public func replace(_ expected: AuthSession?, with replacement: AuthSession?, for provider: AuthProviderID)
        async throws
        -> SessionStoreWriteResult
    {
        try SessionStoreWriteResult.checkReplacement(replacement, for: provider)
        let bytes = try replacement.map(Self.encode)
        let path = sessionPath(for: provider)
        let fault = bytes == nil ? nil : takeWriteFault()
        let protect = protection()
        return try Self.withLock(at: lockPath, failure: .storageUnavailable, provider: provider) {
            let current = try Self.readSession(at: path, provider: provider)
            guard AuthSession.isSameVersion(current, expected) else { return .conflict(current: current) }
            if let bytes {
                try Self.atomicWrite(
                    bytes, to: path, temporaryPath: temporaryPath, directoryPath: directoryPath, provider: provider,
                    failingAt: fault, protect: protect)
            } else {
                try Self.unlinkSessionFile(path, provider: provider)
                try Self.removeTemporaryFile(at: temporaryPath)
            }
            return .written
        }
    }

    // MARK: - Test seam

    /// The steps of an atomic write a test can make fail.
    package enum WriteStep: Sendable, Hashable, CaseIterable {
        /// Creating the temporary file.
        case create
        /// Writing the bytes (after the temporary file was created).
        case write
        /// `fsync` of the temporary file.
        case fsync
        /// `rename` over the session file.
        case rename
    }

    /// Makes the next write (``save(_:)`` or a writing ``replace(_:with:for:)``) fail at `step`
    /// as if the system call had returned `EIO`.
    package func failNextWrite(at step: WriteStep) { pendingWriteFault = step }

    private func takeWriteFault() -> WriteStep? {
        defer { pendingWriteFault = nil }
        return pendingWriteFault
    }

    /// Replaces the call that sets the protection class on a temporary file (it receives the
    /// path and the class; throwing makes the write fail).
    package func setProtectionSetter(_ setter: (@Sendable (String, FileProtectionType) throws -> Void)?) {
        protectionSetter = setter
    }

    /// Counts directory listings made while it is bound (test seam: shows which operations list
    /// the directory; task-local, so tests running in parallel do not see each other's).
    package final class ListingCounter: Sendable {
        private let value = Locked(0)
        /// Creates a counter at zero.
        package init() {}
        /// The listings counted so far.
        package var count: Int { value.withLock { $0 } }
        func increment() { value.withLock { $0 += 1 } }
    }

    /// The counter directory listings made by the current task are counted in (test seam).
    @TaskLocal package static var listingCounter: ListingCounter?

    /// What a write does to protect its temporary file: `nil` without a protection class.
    private func protection() -> (@Sendable (String) throws -> Void)? {
        guard let rawValue = fileProtectionRawValue else { return nil }
        let setter = protectionSetter ?? Self.setProtection
        return { path in try setter(path, FileProtectionType(rawValue: rawValue)) }
    }

    /// Gives the file at `path` the data protection class `protection` through its
    /// `FileAttributeKey.protectionKey` attribute (Apple: `FileManager.setAttributes(_:ofItemAtPath:)`;
    /// no effect on Linux).
    static func setProtection(_ path: String, _ protection: FileProtectionType) throws {
        try FileManager.default.setAttributes([.protectionKey: protection], ofItemAtPath: path)
    }

    // MARK: - Files

    /// The session file's bytes for `session`: ``SessionFileWriter``'s, or, for a session it
    /// cannot write exactly as `JSONEncoder.multiAuth` does (a date it leaves to the encoder),
    /// the encoder's. Both are the same bytes for the same session.
    /// A file larger than ``maximumFileSize`` is refused here, before anything is written:
    /// `load` would refuse it, so the stored session would be unreadable from then on (the file
    /// already stored stays as it was).
    static func encode(_ session: AuthSession) throws -> [UInt8] {
        let bytes =
            try SessionFileWriter.encode(session, format: formatName, version: formatVersion)
            ?? encodeWithJSONEncoder(session)
        guard bytes.count <= maximumFileSize else {
            throw AuthError(
                .storageFailure,
                "the session file would be \(bytes.count) bytes, more than the \(maximumFileSize) a load reads; nothing was written",
                provider: session.provider)
        }
        return bytes
    }

    /// The session file's bytes for `session` as `JSONEncoder.multiAuth` writes them: the
    /// reference ``SessionFileWriter`` must equal.
    static func encodeWithJSONEncoder(_ session: AuthSession) throws -> [UInt8] {
        do {
            return [UInt8](
                try JSONEncoder.multiAuth.encode(
                    Envelope(format: formatName, version: formatVersion, session: session)))
        } catch {
            throw AuthError(
                .storageFailure, "the session could not be encoded", provider: session.provider, underlying: error)
        }
    }

    /// The error `load` reports when opening the session file fails with `code`: `nil` (no
    /// session) only for `ENOENT`; every other error (`EACCES` on a directory that cannot be
    /// searched, `ELOOP` for a symbolic link, `ENOTDIR`, `EIO`, …) is `storageUnavailable`.
    package static func loadError(errno code: Int32, provider: AuthProviderID?) -> AuthError? {
        guard code != ENOENT else { return nil }
        let reason = code == ELOOP ? "it is a symbolic link" : String(cString: strerror(code))
        return AuthError(.storageUnavailable, "the session file cannot be opened: \(reason)", provider: provider)
    }

    /// Opens `path` without following a symbolic link, checks it is a regular file owned by the
    /// effective user and not too large, and decodes it; `nil` when there is no file.
    static func readSession(at path: String, provider: AuthProviderID) throws -> AuthSession? {
        // O_NONBLOCK: a FIFO planted in the directory must not block the open; it is refused below.
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            if let error = loadError(errno: errno, provider: provider) { throw error }
            return nil
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw AuthError(
                .storageUnavailable, "the session file cannot be inspected: \(String(cString: strerror(errno)))",
                provider: provider)
        }
        guard isRegularFile(info) else {
            throw AuthError(.storageUnavailable, "the session file is not a regular file", provider: provider)
        }
        guard info.st_uid == geteuid() else {
            throw AuthError(.storageUnavailable, "the session file belongs to another user", provider: provider)
        }
        guard Int(info.st_size) <= maximumFileSize else {
            throw AuthError(
                .storageUnavailable, "the session file is larger than \(maximumFileSize) bytes", provider: provider)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(info.st_size))
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw AuthError(
                    .storageUnavailable, "the session file cannot be read: \(String(cString: strerror(errno)))",
                    provider: provider)
            }
            if count == 0 { break }
            bytes.append(contentsOf: buffer[0..<count])
            guard bytes.count <= maximumFileSize else {
                throw AuthError(
                    .storageUnavailable, "the session file is larger than \(maximumFileSize) bytes", provider: provider)
            }
        }
        return try decode(Data(bytes), provider: provider)
    }

    /// Decodes a stored file in one pass (``StoredFile``): a file that is not a JSON object, or
    /// whose header is malformed or of another format, is corrupt (no underlying error); another
    /// format version is reported with its number; a session that does not decode is corrupt
    /// with the decoding error as the underlying error.
    private static func decode(_ data: Data, provider: AuthProviderID) throws -> AuthSession {
        let file = try? JSONDecoder.multiAuth.decode(StoredFile.self, from: data)
        guard let file, file.headerDecoded, file.format == formatName else {
            throw AuthError(.storageUnavailable, "the session file is corrupt", provider: provider)
        }
        guard file.version == formatVersion else {
            throw AuthError(
                .storageUnavailable,
                "the session file has format version \(file.version.map(String.init) ?? "?"), "
                    + "this build reads \(formatVersion)", provider: provider)
        }
        guard let session = file.session else {
            throw AuthError(
                .storageUnavailable, "the session file is corrupt", provider: provider, underlying: file.sessionError)
        }
        guard session.provider == provider else {
            throw AuthError(
                .storageUnavailable, "the session file holds another provider's session", provider: provider)
        }
        return session
    }

    /// Whether `path` is a directory (following a symbolic link, as `createDirectory` does).
    private static func isExistingDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && isDirectory(info)
    }

    private static func isRegularFile(_ info: stat) -> Bool { Int(info.st_mode) & Int(S_IFMT) == Int(S_IFREG) }
    private static func isDirectory(_ info: stat) -> Bool { Int(info.st_mode) & Int(S_IFMT) == Int(S_IFDIR) }

    /// Checks the directory: it must be a directory; when group- or world-writable it is
    /// tightened to 0700 if the effective user owns it and it is not a sticky shared
    /// directory, and refused otherwise.
    static func secureDirectory(_ path: String) throws {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw AuthError(
                .storageUnavailable, "the session directory cannot be inspected: \(String(cString: strerror(errno)))")
        }
        guard isDirectory(info) else {
            throw AuthError(.storageUnavailable, "the session directory is not a directory")
        }
        let mode = Int(info.st_mode)
        guard mode & 0o022 != 0 else { return }
        guard info.st_uid == geteuid() else {
            throw AuthError(
                .storageUnavailable, "the session directory is writable by other users and belongs to another user")
        }
        guard mode & Int(S_ISVTX) == 0 else {
            throw AuthError(
                .storageUnavailable, "the session directory is a shared sticky directory; use a private subdirectory")
        }
        guard chmod(path, 0o700) == 0 else {
            throw AuthError(
                .storageUnavailable,
                "the session directory is writable by other users and cannot be tightened: \(String(cString: strerror(errno)))"
            )
        }
    }

    /// Runs `body` holding an exclusive `flock` on the directory's lock file (created 0600,
    /// never followed through a symbolic link, and required to be a regular file of the
    /// effective user). Waits while another process or store holds it; the lock is released
    /// when `body` returns or throws (and by the kernel when the process dies).
    static func withLock<T>(
        at path: String, failure code: AuthError.Code, provider: AuthProviderID?, _ body: () throws -> T
    ) throws -> T {
        let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw AuthError(
                code, "the session lock file cannot be opened: \(String(cString: strerror(errno)))", provider: provider)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, isRegularFile(info), info.st_uid == geteuid() else {
            throw AuthError(code, "the session lock file is not a regular file of this user", provider: provider)
        }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else {
                throw AuthError(
                    code, "the session lock cannot be taken: \(String(cString: strerror(errno)))", provider: provider)
            }
        }
        return try body()
    }

    /// Deletes the temporary file `temporaryFileName` at `path` (in the directory), if any (one
    /// `unlink`, whatever the number of files). Call only while holding the lock: every live
    /// writer holds it while its temporary file exists, so a file found here was left by a
    /// writer that died.
    static func removeTemporaryFile(at path: String) throws {
        if unlink(path) != 0 && errno != ENOENT { throw writeError("unlink of a temporary file", errno, nil) }
    }

    /// The names in the directory at `path` (counted in `listingCounter`).
    static func listDirectory(_ path: String) throws -> [String] {
        listingCounter?.increment()
        do { return try FileManager.default.contentsOfDirectory(atPath: path) } catch {
            throw AuthError(.storageFailure, "the session directory cannot be listed", underlying: error)
        }
    }

    /// Creates the temporary file at `path` (0600, `O_EXCL`, `O_NOFOLLOW`); a file left there by
    /// a writer that died, or anything else planted there (a symbolic link is unlinked, never
    /// followed), is deleted first and the creation tried once more. Returns the descriptor, or
    /// -1 with `errno` set.
    private static func createTemporaryFile(_ path: String) -> Int32 {
        let flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC
        let fd = open(path, flags, 0o600)
        guard fd < 0, errno == EEXIST else { return fd }
        guard unlink(path) == 0 || errno == ENOENT else { return -1 }
        return open(path, flags, 0o600)
    }

    private static func unlinkSessionFile(_ path: String, provider: AuthProviderID?) throws {
        if unlink(path) != 0 && errno != ENOENT { throw writeError("unlink", errno, provider) }
    }

    /// Writes `bytes` to `path` through the temporary file at `tempPath` (``temporaryFileName``
    /// in the directory at `directoryPath`), fsyncing file and directory. `protect` (the data protection class) runs on the new, still empty temporary
    /// file before any byte is written. On failure the temporary file is truncated (so even if
    /// deleting it failed it would hold no token) and deleted. `fault` makes one step fail with
    /// `EIO` (test seam). The caller holds the directory lock.
    static func atomicWrite(
        _ bytes: [UInt8], to path: String, temporaryPath tempPath: String, directoryPath: String,
        provider: AuthProviderID?, failingAt fault: WriteStep? = nil, protect: ((String) throws -> Void)? = nil
    ) throws {
        let fd = fault == .create ? -1 : createTemporaryFile(tempPath)
        guard fd >= 0 else { throw writeError("create", fault == .create ? EIO : errno, provider) }
        var failure: AuthError?
        if let protect {
            do { try protect(tempPath) } catch {
                failure = AuthError(
                    .storageFailure, "the session file's data protection class could not be set", provider: provider,
                    underlying: error)
            }
        }
        if failure == nil && fault == .write {
            _ = bytes.prefix(8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }  // a partial write
            failure = writeError("write", EIO, provider)
        } else if failure == nil {
            bytes.withUnsafeBytes { raw in
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
        }
        if failure == nil {
            if fault == .fsync {
                failure = writeError("fsync", EIO, provider)
            } else if fsync(fd) != 0 {
                failure = writeError("fsync", errno, provider)
            }
        }
        if failure == nil {
            if fault == .rename {
                failure = writeError("rename", EIO, provider)
            } else if rename(tempPath, path) != 0 {
                failure = writeError("rename", errno, provider)
            }
        }
        if let failure {
            _ = ftruncate(fd, 0)
            close(fd)
            unlink(tempPath)
            throw failure
        }
        close(fd)  // the bytes are fsynced and renamed into place; a late close error changes nothing
        let dirFD = open(directoryPath, O_RDONLY | O_CLOEXEC)
        if dirFD >= 0 {
            defer { close(dirFD) }
            if fsync(dirFD) != 0 { throw writeError("fsync directory", errno, provider) }
        }
    }

    private static func writeError(_ step: String, _ code: Int32, _ provider: AuthProviderID?) -> AuthError {
        AuthError(
            .storageFailure, "session file \(step) failed: \(String(cString: strerror(code)))", provider: provider)
    }
}
