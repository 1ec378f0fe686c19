// Shim module `Security` for Scripts/typecheck_apple.py (never shipped, never linked): exactly
// the Security framework declarations MultiAuth's Apple-only code uses, each written from the
// Apple documentation page cited above it (signature, argument labels, optionality). Bodies are
// placeholders; only the declarations matter.
@_exported import AppleShimBase

// MARK: Keychain items (SystemKeychain)

/// https://developer.apple.com/documentation/security/ksecclass — `let kSecClass: CFString`
public let kSecClass: CFString = shimString("class")
/// https://developer.apple.com/documentation/security/ksecclassgenericpassword — `let kSecClassGenericPassword: CFString`
public let kSecClassGenericPassword: CFString = shimString("genp")
/// https://developer.apple.com/documentation/security/ksecattrservice — `let kSecAttrService: CFString`
public let kSecAttrService: CFString = shimString("svce")
/// https://developer.apple.com/documentation/security/ksecattraccount — `let kSecAttrAccount: CFString`
public let kSecAttrAccount: CFString = shimString("acct")
/// https://developer.apple.com/documentation/security/ksecattraccessgroup — `let kSecAttrAccessGroup: CFString`
public let kSecAttrAccessGroup: CFString = shimString("agrp")
/// https://developer.apple.com/documentation/security/ksecattraccessible — `let kSecAttrAccessible: CFString`
public let kSecAttrAccessible: CFString = shimString("pdmn")
/// https://developer.apple.com/documentation/security/ksecattraccessiblewhenunlocked — `let kSecAttrAccessibleWhenUnlocked: CFString`
public let kSecAttrAccessibleWhenUnlocked: CFString = shimString("ak")
/// https://developer.apple.com/documentation/security/ksecattraccessiblewhenunlockedthisdeviceonly — `let kSecAttrAccessibleWhenUnlockedThisDeviceOnly: CFString`
public let kSecAttrAccessibleWhenUnlockedThisDeviceOnly: CFString = shimString("aku")
/// https://developer.apple.com/documentation/security/ksecattraccessibleafterfirstunlock — `let kSecAttrAccessibleAfterFirstUnlock: CFString`
public let kSecAttrAccessibleAfterFirstUnlock: CFString = shimString("ck")
/// https://developer.apple.com/documentation/security/ksecattraccessibleafterfirstunlockthisdeviceonly — `let kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly: CFString`
public let kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly: CFString = shimString("cku")
/// https://developer.apple.com/documentation/security/ksecattraccessiblewhenpasscodesetthisdeviceonly — `let kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly: CFString`
public let kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly: CFString = shimString("akpu")
/// https://developer.apple.com/documentation/security/ksecattrsynchronizable — `let kSecAttrSynchronizable: CFString`
public let kSecAttrSynchronizable: CFString = shimString("sync")
/// https://developer.apple.com/documentation/security/ksecattrgeneric — `let kSecAttrGeneric: CFString`
public let kSecAttrGeneric: CFString = shimString("gena")
/// https://developer.apple.com/documentation/security/ksecvaluedata — `let kSecValueData: CFString`
public let kSecValueData: CFString = shimString("v_Data")
/// https://developer.apple.com/documentation/security/ksecreturndata — `let kSecReturnData: CFString`
public let kSecReturnData: CFString = shimString("r_Data")
/// https://developer.apple.com/documentation/security/ksecreturnattributes — `let kSecReturnAttributes: CFString`
public let kSecReturnAttributes: CFString = shimString("r_Attributes")
/// https://developer.apple.com/documentation/security/ksecmatchlimit — `let kSecMatchLimit: CFString`
public let kSecMatchLimit: CFString = shimString("m_Limit")
/// https://developer.apple.com/documentation/security/ksecmatchlimitone — `let kSecMatchLimitOne: CFString`
public let kSecMatchLimitOne: CFString = shimString("m_LimitOne")

/// https://developer.apple.com/documentation/security/errsecsuccess — `var errSecSuccess: OSStatus { get }`
public var errSecSuccess: OSStatus { 0 }
/// https://developer.apple.com/documentation/security/errsecitemnotfound — `var errSecItemNotFound: OSStatus { get }`
public var errSecItemNotFound: OSStatus { -25300 }

/// https://developer.apple.com/documentation/security/secitemcopymatching(_:_:)
/// `func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus`
public func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus { fatalError() }
/// https://developer.apple.com/documentation/security/secitemadd(_:_:)
/// `func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus`
public func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus { fatalError() }
/// https://developer.apple.com/documentation/security/secitemupdate(_:_:)
/// `func SecItemUpdate(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus`
public func SecItemUpdate(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus { fatalError() }
/// https://developer.apple.com/documentation/security/secitemdelete(_:)
/// `func SecItemDelete(_ query: CFDictionary) -> OSStatus`
public func SecItemDelete(_ query: CFDictionary) -> OSStatus { fatalError() }

// MARK: Randomness (MultiAuthCrypto's Apple backend)

/// https://developer.apple.com/documentation/security/secrandomref — `typealias SecRandomRef = OpaquePointer`
public typealias SecRandomRef = OpaquePointer
/// https://developer.apple.com/documentation/security/ksecrandomdefault — `let kSecRandomDefault: SecRandomRef`
public let kSecRandomDefault: SecRandomRef = OpaquePointer(bitPattern: 1)!
/// https://developer.apple.com/documentation/security/secrandomcopybytes(_:_:_:)
/// `func SecRandomCopyBytes(_ rnd: SecRandomRef?, _ count: Int, _ bytes: UnsafeMutableRawPointer) -> Int32`
public func SecRandomCopyBytes(_ rnd: SecRandomRef?, _ count: Int, _ bytes: UnsafeMutableRawPointer) -> Int32 { fatalError() }

// MARK: Keys (MultiAuthCrypto's Apple backend)

/// https://developer.apple.com/documentation/security/seckey — `class SecKey` (a CF type)
public final class SecKey {
    private init() {}
}

/// https://developer.apple.com/documentation/security/seckeyalgorithm — `struct SecKeyAlgorithm`
/// (`RawRepresentable` with a `CFString` raw value)
public struct SecKeyAlgorithm: RawRepresentable, Hashable {
    /// https://developer.apple.com/documentation/security/seckeyalgorithm/init(rawvalue:)
    public init(rawValue: CFString) { self.rawValue = rawValue }
    /// The raw value.
    public let rawValue: CFString
    /// https://developer.apple.com/documentation/security/seckeyalgorithm/rsasignaturemessagepkcs1v15sha256
    /// `static let rsaSignatureMessagePKCS1v15SHA256: SecKeyAlgorithm`
    public static let rsaSignatureMessagePKCS1v15SHA256 = SecKeyAlgorithm(rawValue: shimString("algid:sign:RSA:message-PKCS1v15:SHA256"))
    /// https://developer.apple.com/documentation/security/seckeyalgorithm/rsasignaturemessagepkcs1v15sha512
    /// `static let rsaSignatureMessagePKCS1v15SHA512: SecKeyAlgorithm`
    public static let rsaSignatureMessagePKCS1v15SHA512 = SecKeyAlgorithm(rawValue: shimString("algid:sign:RSA:message-PKCS1v15:SHA512"))
}

/// https://developer.apple.com/documentation/security/ksecattrkeytype — `let kSecAttrKeyType: CFString`
public let kSecAttrKeyType: CFString = shimString("type")
/// https://developer.apple.com/documentation/security/ksecattrkeytypersa — `let kSecAttrKeyTypeRSA: CFString`
public let kSecAttrKeyTypeRSA: CFString = shimString("42")
/// https://developer.apple.com/documentation/security/ksecattrkeyclass — `let kSecAttrKeyClass: CFString`
public let kSecAttrKeyClass: CFString = shimString("kcls")
/// https://developer.apple.com/documentation/security/ksecattrkeyclasspublic — `let kSecAttrKeyClassPublic: CFString`
public let kSecAttrKeyClassPublic: CFString = shimString("0")
/// https://developer.apple.com/documentation/security/ksecattrkeyclassprivate — `let kSecAttrKeyClassPrivate: CFString`
public let kSecAttrKeyClassPrivate: CFString = shimString("1")
/// https://developer.apple.com/documentation/security/ksecattrkeysizeinbits — `let kSecAttrKeySizeInBits: CFString`
public let kSecAttrKeySizeInBits: CFString = shimString("bsiz")

/// https://developer.apple.com/documentation/security/seckeycreatewithdata(_:_:_:)
/// `func SecKeyCreateWithData(_ keyData: CFData, _ attributes: CFDictionary, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> SecKey?`
public func SecKeyCreateWithData(_ keyData: CFData, _ attributes: CFDictionary, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?)
    -> SecKey?
{ fatalError() }
/// https://developer.apple.com/documentation/security/seckeygetblocksize(_:)
/// `func SecKeyGetBlockSize(_ key: SecKey) -> Int`
public func SecKeyGetBlockSize(_ key: SecKey) -> Int { fatalError() }
/// https://developer.apple.com/documentation/security/seckeycreaterandomkey(_:_:)
/// `func SecKeyCreateRandomKey(_ parameters: CFDictionary, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> SecKey?`
public func SecKeyCreateRandomKey(_ parameters: CFDictionary, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> SecKey? {
    fatalError()
}
/// https://developer.apple.com/documentation/security/seckeycopypublickey(_:)
/// `func SecKeyCopyPublicKey(_ key: SecKey) -> SecKey?`
public func SecKeyCopyPublicKey(_ key: SecKey) -> SecKey? { fatalError() }
/// https://developer.apple.com/documentation/security/seckeycopyexternalrepresentation(_:_:)
/// `func SecKeyCopyExternalRepresentation(_ key: SecKey, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> CFData?`
public func SecKeyCopyExternalRepresentation(_ key: SecKey, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> CFData? {
    fatalError()
}
/// https://developer.apple.com/documentation/security/seckeyverifysignature(_:_:_:_:_:)
/// `func SecKeyVerifySignature(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ signedData: CFData, _ signature: CFData, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> Bool`
public func SecKeyVerifySignature(
    _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ signedData: CFData, _ signature: CFData, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> Bool { fatalError() }
/// https://developer.apple.com/documentation/security/seckeycreatesignature(_:_:_:_:)
/// `func SecKeyCreateSignature(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ dataToSign: CFData, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> CFData?`
public func SecKeyCreateSignature(
    _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ dataToSign: CFData, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? { fatalError() }

// MARK: Certificates (MultiAuthCrypto's WebAuthn packed attestation)

/// https://developer.apple.com/documentation/security/seccertificate — `class SecCertificate` (a CF type)
public final class SecCertificate {
    private init() {}
}

/// https://developer.apple.com/documentation/security/seccertificatecreatewithdata(_:_:)
/// `func SecCertificateCreateWithData(_ allocator: CFAllocator?, _ data: CFData) -> SecCertificate?`
public func SecCertificateCreateWithData(_ allocator: CFAllocator?, _ data: CFData) -> SecCertificate? { fatalError() }

/// https://developer.apple.com/documentation/security/seccertificatecopykey(_:)
/// `func SecCertificateCopyKey(_ certificate: SecCertificate) -> SecKey?`
public func SecCertificateCopyKey(_ certificate: SecCertificate) -> SecKey? { fatalError() }
