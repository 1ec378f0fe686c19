// Shim module for Scripts/typecheck_apple.py (never shipped, never linked): the CoreFoundation
// and MacTypes names the Apple-only sources use, shared by the Security and Network shims so
// each name is declared once. On Apple platforms these come from CoreFoundation (re-exported by
// Foundation); CF types are toll-free bridged with their NS counterparts, which is what the
// type aliases below express, so `dictionary as CFDictionary`, `kSecClass as String` and
// `cfData as Data?` type-check as they do with the real SDK.
@_exported import Foundation

/// https://developer.apple.com/documentation/corefoundation/cfstring (toll-free bridged with NSString)
public typealias CFString = NSString
/// https://developer.apple.com/documentation/corefoundation/cfdata (toll-free bridged with NSData)
public typealias CFData = NSData
/// https://developer.apple.com/documentation/corefoundation/cfdictionary (toll-free bridged with NSDictionary)
public typealias CFDictionary = NSDictionary
/// https://developer.apple.com/documentation/corefoundation/cferror (toll-free bridged with NSError)
public typealias CFError = NSError
/// https://developer.apple.com/documentation/corefoundation/cftyperef — `typealias CFTypeRef = AnyObject`
public typealias CFTypeRef = AnyObject
/// https://developer.apple.com/documentation/corefoundation/cfallocator — `class CFAllocator` (a CF type)
public final class CFAllocator {
    private init() {}
}
/// https://developer.apple.com/documentation/kernel/osstatus — `typealias OSStatus = Int32`
public typealias OSStatus = Int32

/// A CFString constant for the shims' `let` declarations (the values are never used).
package func shimString(_ value: String) -> CFString { NSString(string: value) }
