import Foundation

/// When a keychain item may be read (the Security framework's `kSecAttrAccessible` values),
/// for the items ``KeychainSessionStore`` writes through `SystemKeychain`.
///
/// The default, ``afterFirstUnlockThisDeviceOnly``, lets background refresh read a session
/// after the first unlock following a restart, and keeps the item on this device: it is not
/// in backups restored to another device and never syncs through iCloud Keychain (Apple,
/// "Restricting keychain item accessibility").
public enum KeychainAccessibility: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `kSecAttrAccessibleWhenUnlocked`: only while the device is unlocked; migrates to a new
    /// device through an encrypted backup.
    case whenUnlocked
    /// `kSecAttrAccessibleWhenUnlockedThisDeviceOnly`: only while unlocked; stays on this device.
    case whenUnlockedThisDeviceOnly
    /// `kSecAttrAccessibleAfterFirstUnlock`: after the first unlock since restart; migrates
    /// through an encrypted backup.
    case afterFirstUnlock
    /// `kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly` (the default): after the first unlock
    /// since restart; stays on this device.
    case afterFirstUnlockThisDeviceOnly
    /// `kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly`: only while unlocked and only while a
    /// passcode is set (removing the passcode deletes the item); stays on this device.
    case whenPasscodeSetThisDeviceOnly

    /// The constant's name without the `kSecAttrAccessible` prefix, e.g.
    /// `AfterFirstUnlockThisDeviceOnly`.
    public var description: String {
        switch self {
        case .whenUnlocked: "WhenUnlocked"
        case .whenUnlockedThisDeviceOnly: "WhenUnlockedThisDeviceOnly"
        case .afterFirstUnlock: "AfterFirstUnlock"
        case .afterFirstUnlockThisDeviceOnly: "AfterFirstUnlockThisDeviceOnly"
        case .whenPasscodeSetThisDeviceOnly: "WhenPasscodeSetThisDeviceOnly"
        }
    }
}
