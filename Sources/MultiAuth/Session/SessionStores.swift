import Foundation

/// The recommended session store of each platform, in one call (Docs/GettingStarted.md,
/// "1. Build the client").
public enum SessionStores {
    /// The store to use unless you have a reason not to:
    /// - Apple platforms: ``KeychainSessionStore`` with `service`, `accessGroup` and the
    ///   default accessibility (after the first unlock, this device only, not synchronizable).
    /// - Elsewhere (Linux): ``FileSessionStore`` in the XDG data directory,
    ///   `$XDG_DATA_HOME/<service>` (when `XDG_DATA_HOME` is set to an absolute path) or
    ///   `~/.local/share/<service>`, created with mode 0700; `accessGroup` is ignored.
    /// - Parameters:
    ///   - service: Your app's identifier, e.g. `"com.example.app.multiauth"`: the keychain
    ///     service, or the directory name; one path component (no `/`, not `.` or `..`).
    ///   - accessGroup: The keychain access group shared with your extensions, or `nil`.
    /// - Throws: `AuthError` `.configuration` when `service` is not a single path component,
    ///   `.storageUnavailable` when there is no data directory (neither `XDG_DATA_HOME` nor
    ///   `HOME` is an absolute path) or it cannot be created.
    public static func platformDefault(service: String, accessGroup: String? = nil) throws -> any SessionStore {
        try platformDefault(
            service: service, accessGroup: accessGroup, environment: ProcessInfo.processInfo.environment)
    }

    /// ``platformDefault(service:accessGroup:)`` with the environment given (tests).
    package static func platformDefault(service: String, accessGroup: String?, environment: [String: String]) throws
        -> any SessionStore
    {
        try checkServiceName(service)
        #if canImport(Security)
        return KeychainSessionStore(service: service, accessGroup: accessGroup)
        #else
        return try FileSessionStore(directory: dataDirectory(service: service, environment: environment))
        #endif
    }

    /// The XDG data directory of `service` under `environment` (XDG Base Directory
    /// Specification 0.8: `$XDG_DATA_HOME` when set, non-empty and absolute, else
    /// `$HOME/.local/share`).
    /// - Throws: `AuthError` `.storageUnavailable` when neither variable is an absolute path.
    package static func dataDirectory(service: String, environment: [String: String]) throws -> URL {
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return URL(fileURLWithPath: data, isDirectory: true).appendingPathComponent(service, isDirectory: true)
        }
        guard let home = environment["HOME"], home.hasPrefix("/") else {
            throw AuthError(
                .storageUnavailable, "no data directory: neither XDG_DATA_HOME nor HOME is an absolute path")
        }
        return URL(fileURLWithPath: home, isDirectory: true)
            .appendingPathComponent(".local/share", isDirectory: true).appendingPathComponent(
                service, isDirectory: true)
    }

    /// Whether ``platformDefault(service:accessGroup:)`` returns the keychain store here.
    package static let prefersKeychain: Bool = {
        #if canImport(Security)
        true
        #else
        false
        #endif
    }()

    /// Refuses a service name that is not one path component.
    package static func checkServiceName(_ service: String) throws {
        guard !service.isEmpty, service != ".", service != "..", !service.contains("/"), !service.contains("\u{0}")
        else {
            throw AuthError(
                .configuration, "the session store service name must be one path component (no '/', not '.' or '..')")
        }
    }
}
