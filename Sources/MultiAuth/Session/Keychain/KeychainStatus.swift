import Foundation

/// Keychain `OSStatus` values the store interprets (Security framework, `SecBase.h`).
public enum KeychainStatus {
    /// `errSecSuccess`
    public static let success: Int32 = 0
    /// `errSecItemNotFound`: no item, i.e. no session.
    public static let itemNotFound: Int32 = -25300
    /// `errSecDuplicateItem`
    public static let duplicateItem: Int32 = -25299
    /// `errSecInteractionNotAllowed`: the keychain is locked (e.g. background launch before
    /// first unlock). Storage unavailable, not signed out (Docs/Cases.md, B19).
    public static let interactionNotAllowed: Int32 = -25308
}
