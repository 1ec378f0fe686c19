// Shim module `CryptoKit` for Scripts/typecheck_apple.py (never shipped, never linked): exactly
// the CryptoKit declarations MultiAuthCrypto's Apple backend uses, each written from the Apple
// documentation page cited above it (generic constraints, labels, `throws`). Bodies are
// placeholders.
@_exported import Foundation

/// https://developer.apple.com/documentation/cryptokit/digest
/// `protocol Digest : ContiguousBytes, CustomStringConvertible, Hashable, Sequence where Self.Element == UInt8`
public protocol Digest: ContiguousBytes, CustomStringConvertible, Hashable, Sequence where Element == UInt8 {
    /// https://developer.apple.com/documentation/cryptokit/digest/bytecount
    static var byteCount: Int { get }
}

/// https://developer.apple.com/documentation/cryptokit/hashfunction
/// `protocol HashFunction` with `associatedtype Digest : Digest`
public protocol HashFunction {
    /// https://developer.apple.com/documentation/cryptokit/hashfunction/digest
    associatedtype Digest: CryptoKit.Digest
    /// https://developer.apple.com/documentation/cryptokit/hashfunction/init()
    init()
}

extension HashFunction {
    /// https://developer.apple.com/documentation/cryptokit/hashfunction/hash(data:)
    /// `static func hash<D>(data: D) -> Self.Digest where D : DataProtocol`
    public static func hash<D: DataProtocol>(data: D) -> Self.Digest { fatalError() }
}

/// The shared shape of the shim digests (each real digest is its own struct).
public struct ShimDigest<Tag>: CryptoKit.Digest {
    public static var byteCount: Int { fatalError() }
    public var description: String { fatalError() }
    public func makeIterator() -> Array<UInt8>.Iterator { fatalError() }
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { fatalError() }
    public static func == (lhs: Self, rhs: Self) -> Bool { fatalError() }
    public func hash(into hasher: inout Hasher) {}
}

/// https://developer.apple.com/documentation/cryptokit/sha256 — `struct SHA256`
public struct SHA256: HashFunction {
    /// https://developer.apple.com/documentation/cryptokit/sha256digest
    public typealias Digest = SHA256Digest
    public init() {}
}
/// https://developer.apple.com/documentation/cryptokit/sha256digest — `struct SHA256Digest`
public typealias SHA256Digest = ShimDigest<SHA256>

/// https://developer.apple.com/documentation/cryptokit/sha512 — `struct SHA512`
public struct SHA512: HashFunction {
    /// https://developer.apple.com/documentation/cryptokit/sha512digest
    public typealias Digest = SHA512Digest
    public init() {}
}
/// https://developer.apple.com/documentation/cryptokit/sha512digest — `struct SHA512Digest`
public typealias SHA512Digest = ShimDigest<SHA512>

/// https://developer.apple.com/documentation/cryptokit/insecure — `enum Insecure`
public enum Insecure {
    /// https://developer.apple.com/documentation/cryptokit/insecure/sha1 — `struct SHA1`
    public struct SHA1: HashFunction {
        /// https://developer.apple.com/documentation/cryptokit/insecure/sha1digest
        public typealias Digest = Insecure.SHA1Digest
        public init() {}
    }
    /// https://developer.apple.com/documentation/cryptokit/insecure/sha1digest — `struct SHA1Digest`
    public typealias SHA1Digest = ShimDigest<SHA1>
}

/// https://developer.apple.com/documentation/cryptokit/symmetrickey — `struct SymmetricKey`
public struct SymmetricKey: ContiguousBytes {
    /// https://developer.apple.com/documentation/cryptokit/symmetrickey/init(data:)
    /// `init<D>(data: D) where D : ContiguousBytes`
    public init<D: ContiguousBytes>(data: D) { fatalError() }
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { fatalError() }
}

/// https://developer.apple.com/documentation/cryptokit/messageauthenticationcode
/// `protocol MessageAuthenticationCode : ContiguousBytes, CustomStringConvertible, Hashable, Sequence where Self.Element == UInt8`
public protocol MessageAuthenticationCode: ContiguousBytes, CustomStringConvertible, Hashable, Sequence where Element == UInt8 {}

/// https://developer.apple.com/documentation/cryptokit/hashedauthenticationcode
/// `struct HashedAuthenticationCode<H> where H : HashFunction`
public struct HashedAuthenticationCode<H: HashFunction>: MessageAuthenticationCode {
    public var description: String { fatalError() }
    public func makeIterator() -> Array<UInt8>.Iterator { fatalError() }
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { fatalError() }
    public static func == (lhs: Self, rhs: Self) -> Bool { fatalError() }
    public func hash(into hasher: inout Hasher) {}
}

/// https://developer.apple.com/documentation/cryptokit/hmac — `struct HMAC<H> where H : HashFunction`
public struct HMAC<H: HashFunction> {
    /// https://developer.apple.com/documentation/cryptokit/hmac/authenticationcode(for:using:)
    /// `static func authenticationCode<D>(for data: D, using key: SymmetricKey) -> HashedAuthenticationCode<H> where D : DataProtocol`
    public static func authenticationCode<D: DataProtocol>(for data: D, using key: SymmetricKey) -> HashedAuthenticationCode<H> {
        fatalError()
    }
}

/// https://developer.apple.com/documentation/cryptokit/p256 — `enum P256`
public enum P256 {
    /// https://developer.apple.com/documentation/cryptokit/p256/signing — `enum Signing`
    public enum Signing {
        /// https://developer.apple.com/documentation/cryptokit/p256/signing/publickey
        public struct PublicKey {
            /// https://developer.apple.com/documentation/cryptokit/p256/signing/publickey/init(x963representation:)
            /// `init<Bytes>(x963Representation: Bytes) throws where Bytes : ContiguousBytes`
            public init<Bytes: ContiguousBytes>(x963Representation: Bytes) throws { fatalError() }
            /// https://developer.apple.com/documentation/cryptokit/p256/signing/publickey/init(derrepresentation:)
            /// `init<Bytes>(derRepresentation: Bytes) throws where Bytes : RandomAccessCollection, Bytes.Element == UInt8`
            public init<Bytes: RandomAccessCollection>(derRepresentation: Bytes) throws where Bytes.Element == UInt8 { fatalError() }
            /// https://developer.apple.com/documentation/cryptokit/p256/signing/publickey/derrepresentation — `var derRepresentation: Data { get }`
            public var derRepresentation: Data { fatalError() }
            /// https://developer.apple.com/documentation/cryptokit/p256/signing/publickey/x963representation — `var x963Representation: Data { get }`
            public var x963Representation: Data { fatalError() }
            /// https://developer.apple.com/documentation/cryptokit/p256/signing/publickey/isvalidsignature(_:for:)
            /// `func isValidSignature<D>(_ signature: P256.Signing.ECDSASignature, for data: D) -> Bool where D : DataProtocol`
            public func isValidSignature<D: DataProtocol>(_ signature: P256.Signing.ECDSASignature, for data: D) -> Bool { fatalError() }
        }

        /// https://developer.apple.com/documentation/cryptokit/p256/signing/privatekey
        public struct PrivateKey {
            /// https://developer.apple.com/documentation/cryptokit/p256/signing/privatekey/init(compactrepresentable:)
            /// `init(compactRepresentable: Bool = true)`
            public init(compactRepresentable: Bool = true) { fatalError() }
            /// https://developer.apple.com/documentation/cryptokit/p256/signing/privatekey/init(derrepresentation:)
            /// `init<Bytes>(derRepresentation: Bytes) throws where Bytes : RandomAccessCollection, Bytes.Element == UInt8`
            public init<Bytes: RandomAccessCollection>(derRepresentation: Bytes) throws where Bytes.Element == UInt8 { fatalError() }
            /// https://developer.apple.com/documentation/cryptokit/p256/signing/privatekey/init(rawrepresentation:)
            /// `init<Bytes>(rawRepresentation data: Bytes) throws where Bytes : ContiguousBytes`
            public init<Bytes: ContiguousBytes>(rawRepresentation data: Bytes) throws { fatalError() }
            /// https://developer.apple.com/documentation/cryptokit/p256/signing/privatekey/publickey — `var publicKey: P256.Signing.PublicKey { get }`
            public var publicKey: P256.Signing.PublicKey { fatalError() }
            /// https://developer.apple.com/documentation/cryptokit/p256/signing/privatekey/signature(for:)
            /// `func signature<D>(for data: D) throws -> P256.Signing.ECDSASignature where D : DataProtocol`
            public func signature<D: DataProtocol>(for data: D) throws -> P256.Signing.ECDSASignature { fatalError() }
        }

        /// https://developer.apple.com/documentation/cryptokit/p256/signing/ecdsasignature
        public struct ECDSASignature {
            /// https://developer.apple.com/documentation/cryptokit/p256/signing/ecdsasignature/init(rawrepresentation:)
            /// `init<D>(rawRepresentation: D) throws where D : DataProtocol`
            public init<D: DataProtocol>(rawRepresentation: D) throws { fatalError() }
            /// https://developer.apple.com/documentation/cryptokit/p256/signing/ecdsasignature/rawrepresentation — `var rawRepresentation: Data`
            public var rawRepresentation: Data { fatalError() }
        }
    }
}

/// https://developer.apple.com/documentation/cryptokit/curve25519 — `enum Curve25519`
public enum Curve25519 {
    /// https://developer.apple.com/documentation/cryptokit/curve25519/signing — `enum Signing`
    public enum Signing {
        /// https://developer.apple.com/documentation/cryptokit/curve25519/signing/publickey
        public struct PublicKey {
            /// https://developer.apple.com/documentation/cryptokit/curve25519/signing/publickey/init(rawrepresentation:)
            /// `init<D>(rawRepresentation data: D) throws where D : ContiguousBytes`
            public init<D: ContiguousBytes>(rawRepresentation data: D) throws { fatalError() }
            /// https://developer.apple.com/documentation/cryptokit/curve25519/signing/publickey/rawrepresentation — `var rawRepresentation: Data { get }`
            public var rawRepresentation: Data { fatalError() }
            /// https://developer.apple.com/documentation/cryptokit/curve25519/signing/publickey/isvalidsignature(_:for:)
            /// `func isValidSignature<S, D>(_ signature: S, for data: D) -> Bool where S : DataProtocol, D : DataProtocol`
            public func isValidSignature<S: DataProtocol, D: DataProtocol>(_ signature: S, for data: D) -> Bool { fatalError() }
        }

        /// https://developer.apple.com/documentation/cryptokit/curve25519/signing/privatekey
        public struct PrivateKey {
            /// https://developer.apple.com/documentation/cryptokit/curve25519/signing/privatekey/init(rawrepresentation:)
            /// `init<D>(rawRepresentation data: D) throws where D : ContiguousBytes`
            public init<D: ContiguousBytes>(rawRepresentation data: D) throws { fatalError() }
            /// https://developer.apple.com/documentation/cryptokit/curve25519/signing/privatekey/publickey — `var publicKey: Curve25519.Signing.PublicKey { get }`
            public var publicKey: Curve25519.Signing.PublicKey { fatalError() }
            /// https://developer.apple.com/documentation/cryptokit/curve25519/signing/privatekey/signature(for:)
            /// `func signature<D>(for data: D) throws -> Data where D : DataProtocol`
            public func signature<D: DataProtocol>(for data: D) throws -> Data { fatalError() }
        }
    }
}
