/// Parsed authenticator data (W3C WebAuthn Level 3 §6.1): the RP ID hash, the flags, the
/// signature counter, and on registration the attested credential data (§6.5.1).
///
/// Parsing checks structure only (lengths, the COSE key and extensions being one CBOR item
/// each, no trailing bytes); ``WebAuthnVerifier`` checks the values. Concurrency: an
/// immutable value.
public struct WebAuthnAuthenticatorData: Sendable, Hashable {
    /// The attested credential data of a registration (§6.5.1).
    public struct AttestedCredential: Sendable, Hashable {
        /// The authenticator's AAGUID, 16 bytes.
        public let aaguid: [UInt8]
        /// The credential ID, at most 1,023 bytes.
        public let credentialID: [UInt8]
        /// The credential public key's COSE_Key CBOR bytes, exactly as they appear.
        public let publicKey: [UInt8]
    }

    /// The largest credential ID, in bytes (§7.1 step 26).
    public static let maximumCredentialIDBytes = 1_023

    /// The bytes parsed.
    public let rawValue: [UInt8]
    /// `SHA-256` of the RP ID the authenticator used, 32 bytes.
    public let rpIDHash: [UInt8]
    /// The flags byte: bit 0 UP, bit 2 UV, bit 3 BE, bit 4 BS, bit 6 AT, bit 7 ED (§6.1).
    public let flags: UInt8
    /// The signature counter, big-endian in the data (§6.1.1).
    public let signCount: UInt32
    /// The attested credential data when the AT flag is set.
    public let attestedCredential: AttestedCredential?
    /// The extension outputs (one CBOR map's bytes) when the ED flag is set.
    public let extensions: [UInt8]?

    /// UP: the user was present.
    public var userPresent: Bool { flags & 0x01 != 0 }
    /// UV: the user was verified.
    public var userVerified: Bool { flags & 0x04 != 0 }
    /// BE: the credential may be backed up.
    public var backupEligible: Bool { flags & 0x08 != 0 }
    /// BS: the credential is backed up.
    public var backedUp: Bool { flags & 0x10 != 0 }

    /// Parses authenticator data.
    ///
    /// - Parameter bytes: the authenticator data, 37 bytes or more.
    /// - Throws: ``WebAuthnError`` `malformed` (too short, a bad length, a COSE key or
    ///   extensions that are not one CBOR map, bytes left over), `tooLarge` (a credential ID
    ///   over 1,023 bytes, or input over 65,536 bytes). Concurrency: pure.
    public init(parsing bytes: [UInt8]) throws(WebAuthnError) {
        guard bytes.count <= CBORLimits.webAuthn.maximumBytes else {
            throw WebAuthnError(.tooLarge, "authenticator data is too large")
        }
        guard bytes.count >= 37 else { throw WebAuthnError(.malformed, "authenticator data is too short") }
        rawValue = bytes
        rpIDHash = Array(bytes[0..<32])
        flags = bytes[32]
        signCount = bytes[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        var index = 37
        if flags & 0x40 != 0 {
            guard bytes.count - index >= 18 else {
                throw WebAuthnError(.malformed, "attested credential data is truncated")
            }
            let aaguid = Array(bytes[index..<index + 16])
            let length = Int(bytes[index + 16]) << 8 | Int(bytes[index + 17])
            index += 18
            guard length <= Self.maximumCredentialIDBytes else {
                throw WebAuthnError(.tooLarge, "credential ID is longer than 1023 bytes")
            }
            guard length >= 1, bytes.count - index >= length else {
                throw WebAuthnError(.malformed, "credential ID is truncated")
            }
            let credentialID = Array(bytes[index..<index + length])
            index += length
            let keyStart = index
            index = try Self.mapItem(bytes, at: index, what: "credential public key")
            attestedCredential = AttestedCredential(
                aaguid: aaguid, credentialID: credentialID, publicKey: Array(bytes[keyStart..<index]))
        } else {
            attestedCredential = nil
        }
        if flags & 0x80 != 0 {
            let start = index
            index = try Self.mapItem(bytes, at: index, what: "extensions")
            extensions = Array(bytes[start..<index])
        } else {
            extensions = nil
        }
        guard index == bytes.count else {
            throw WebAuthnError(.malformed, "authenticator data has bytes left over")
        }
    }

    /// The end of the one CBOR map at `offset`.
    private static func mapItem(_ bytes: [UInt8], at offset: Int, what: String) throws(WebAuthnError) -> Int {
        let decoded: (value: CBORValue, end: Int)
        do {
            decoded = try CBORValue.decodePrefix(bytes, from: offset)
        } catch {
            throw WebAuthnError(.malformed, "\(what): \(error)")
        }
        guard case .map = decoded.value else { throw WebAuthnError(.malformed, "\(what) is not a CBOR map") }
        return decoded.end
    }
}

/// A parsed attestation object (W3C WebAuthn Level 3 §6.5.4): `{fmt, attStmt, authData}` as
/// one CBOR map, nothing after it.
///
/// Concurrency: an immutable value.
public struct WebAuthnAttestationObject: Sendable, Hashable {
    /// The attestation statement format, e.g. `none` or `packed` (§8).
    public let format: String
    /// The attestation statement, a CBOR map whose members depend on ``format``.
    public let statement: CBORValue
    /// The authenticator data.
    public let authenticatorData: WebAuthnAuthenticatorData

    /// Parses an attestation object.
    ///
    /// - Parameter bytes: the CBOR bytes, at most 65,536.
    /// - Throws: ``WebAuthnError`` `malformed` (not one CBOR map, a missing or mistyped
    ///   member, bad authenticator data) or `tooLarge`. Concurrency: pure.
    public init(parsing bytes: [UInt8]) throws(WebAuthnError) {
        guard bytes.count <= CBORLimits.webAuthn.maximumBytes else {
            throw WebAuthnError(.tooLarge, "attestation object is too large")
        }
        let value: CBORValue
        do {
            value = try CBORValue(decoding: bytes)
        } catch {
            throw WebAuthnError(.malformed, "attestation object: \(error)")
        }
        guard case .text(let format)? = value[text: "fmt"], let statement = value[text: "attStmt"],
            case .map = statement, case .bytes(let authData)? = value[text: "authData"]
        else {
            throw WebAuthnError(.malformed, "attestation object lacks fmt, attStmt or authData")
        }
        self.format = format
        self.statement = statement
        self.authenticatorData = try WebAuthnAuthenticatorData(parsing: authData)
    }
}
