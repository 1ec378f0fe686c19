import Foundation

/// Keychain `OSStatus` values the store interprets (Security framework, `SecBase.h`).
package enum KeychainStatus {
    /// `errSecSuccess`
    package static let success: Int32 = 0
    /// `errSecItemNotFound`: no item, i.e. no session.
    package static let itemNotFound: Int32 = -25300
    /// `errSecDuplicateItem`
    package static let duplicateItem: Int32 = -25299
    /// `errSecInteractionNotAllowed`: the keychain is locked (e.g. background launch before
    /// first unlock). Storage unavailable, not signed out (Docs/Cases.md, B19).
    package static let interactionNotAllowed: Int32 = -25308
}
