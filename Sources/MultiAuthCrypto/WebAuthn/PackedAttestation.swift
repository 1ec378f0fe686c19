/// The `packed` attestation statement format (W3C WebAuthn Level 3 §8.2): self attestation
/// (no `x5c`, signed by the credential key) and full attestation (`x5c`, signed by the leaf
/// certificate's key). Trust in the chain is the caller's decision: nothing here checks a
/// root (Docs/Passkeys.md, "Verifying on the server").
enum PackedAttestation {
    /// The most certificates an `x5c` may hold, and the largest one, in bytes.
    static let maximumCertificates = 8
    static let maximumCertificateBytes = 8_192

    /// Verifies a packed statement (§8.2 "Verification procedure") and returns the `x5c`
    /// chain (empty for self attestation).
    ///
    /// - Throws: ``WebAuthnError`` `attestationInvalid` or `unsupportedAttestation` (ECDAA).
    static func verify(
        statement: CBORValue, authenticatorData: WebAuthnAuthenticatorData, clientDataHash: [UInt8],
        credentialKey: COSEKey, aaguid: [UInt8]
    ) throws(WebAuthnError) -> [[UInt8]] {
        guard case .map(let members) = statement, let algValue = statement[text: "alg"]?.intValue,
            let signature = statement[text: "sig"]?.byteString
        else {
            throw WebAuthnError(.attestationInvalid, "packed statement lacks alg or sig")
        }
        guard statement[text: "ecdaaKeyId"] == nil else {
            throw WebAuthnError(.unsupportedAttestation, "ECDAA attestation is not supported")
        }
        let signed = authenticatorData.rawValue + clientDataHash
        guard let x5cValue = statement[text: "x5c"] else {
            // Self attestation: alg must be the credential key's, and that key signs.
            guard members.count == 2 else { throw WebAuthnError(.attestationInvalid, "unexpected packed members") }
            guard algValue == credentialKey.algorithm.rawValue else {
                throw WebAuthnError(.attestationInvalid, "self attestation alg differs from the credential's")
            }
            guard credentialKey.isValidSignature(signature, for: signed) else {
                throw WebAuthnError(.attestationInvalid, "self attestation signature does not verify")
            }
            return []
        }
        guard members.count == 3, case .array(let elements) = x5cValue, !elements.isEmpty,
            elements.count <= maximumCertificates
        else {
            throw WebAuthnError(.attestationInvalid, "x5c is not an array of 1 to 8 certificates")
        }
        var chain: [[UInt8]] = []
        for element in elements {
            guard let der = element.byteString, der.count <= maximumCertificateBytes else {
                throw WebAuthnError(.attestationInvalid, "x5c holds a non-certificate or one over 8192 bytes")
            }
            chain.append(der)
        }
        guard let algorithm = COSEAlgorithm(rawValue: algValue), algorithm != .edDSA else {
            throw WebAuthnError(.attestationInvalid, "x5c alg is not ES256 or RS256")
        }
        let leafKey: PublicKey
        do {
            leafKey = try CertificateBackend.publicKey(certificate: chain[0])
        } catch {
            throw WebAuthnError(.attestationInvalid, "the attestation certificate's key is unusable")
        }
        let valid: Bool
        switch algorithm {
        case .es256:
            valid =
                ECDSASignature.raw(fromDER: signature).map {
                    leafKey.isValidSignature($0, for: signed, algorithm: .es256)
                } ?? false
        case .rs256, .edDSA:
            valid = leafKey.isValidSignature(signature, for: signed, algorithm: .rs256)
        }
        guard valid else { throw WebAuthnError(.attestationInvalid, "x5c attestation signature does not verify") }
        try AttestationCertificate.checkRequirements(chain[0], aaguid: aaguid)
        return chain
    }
}

/// The attestation certificate requirements of W3C WebAuthn Level 3 §8.2.1 that need no trust
/// store, read from the certificate's DER (RFC 5280 §4.1) on every platform.
enum AttestationCertificate {
    static let organizationalUnitOID: [UInt8] = [0x55, 0x04, 0x0B]
    static let countryOID: [UInt8] = [0x55, 0x04, 0x06]
    static let organizationOID: [UInt8] = [0x55, 0x04, 0x0A]
    static let commonNameOID: [UInt8] = [0x55, 0x04, 0x03]
    static let basicConstraintsOID: [UInt8] = [0x55, 0x1D, 0x13]
    /// `id-fido-gen-ce-aaguid`, 1.3.6.1.4.1.45724.1.1.4 (§8.2.1).
    static let aaguidOID: [UInt8] = [0x2B, 0x06, 0x01, 0x04, 0x01, 0x82, 0xE5, 0x1C, 0x01, 0x01, 0x04]

    /// Version 3; subject C, O, CN present and OU `Authenticator Attestation`; basic
    /// constraints CA false (or absent); an AAGUID extension, when present, not critical and
    /// equal to `aaguid`.
    ///
    /// - Throws: ``WebAuthnError`` `attestationInvalid` naming the requirement.
    static func checkRequirements(_ der: [UInt8], aaguid: [UInt8]) throws(WebAuthnError) {
        func fail(_ message: String) -> WebAuthnError { WebAuthnError(.attestationInvalid, message) }
        guard let certificate = DER.element(in: der, at: 0), certificate.tag == 0x30,
            let parts = DER.children(of: certificate, in: der), parts.count == 3, parts[0].tag == 0x30,
            let tbs = DER.children(of: parts[0], in: der), tbs.count >= 7
        else {
            throw fail("attestation certificate is not DER X.509")
        }
        // version [0] EXPLICIT INTEGER 2 (v3).
        guard tbs[0].tag == 0xA0, Array(der[tbs[0].contents]) == [0x02, 0x01, 0x02] else {
            throw fail("attestation certificate is not version 3")
        }
        // serial, signature, issuer, validity, subject, subjectPublicKeyInfo, …
        let subject = tbs[5]
        guard subject.tag == 0x30, let attributes = names(subject, in: der) else {
            throw fail("attestation certificate subject is malformed")
        }
        guard attributes[organizationalUnitOID] == Array("Authenticator Attestation".utf8) else {
            throw fail("attestation certificate subject OU is not Authenticator Attestation")
        }
        guard attributes[countryOID] != nil, attributes[organizationOID] != nil, attributes[commonNameOID] != nil
        else {
            throw fail("attestation certificate subject lacks C, O or CN")
        }
        guard let extensionsWrapper = tbs.dropFirst(7).first(where: { $0.tag == 0xA3 }) else { return }
        guard let wrapped = DER.children(of: extensionsWrapper, in: der), wrapped.count == 1, wrapped[0].tag == 0x30,
            let extensions = DER.children(of: wrapped[0], in: der)
        else {
            throw fail("attestation certificate extensions are malformed")
        }
        for item in extensions {
            guard item.tag == 0x30, let fields = DER.children(of: item, in: der), (2...3).contains(fields.count),
                fields[0].tag == 0x06, let value = fields.last, value.tag == 0x04
            else {
                throw fail("attestation certificate extension is malformed")
            }
            let critical = fields.count == 3 && Array(der[fields[1].contents]) == [0xFF]
            switch Array(der[fields[0].contents]) {
            case basicConstraintsOID:
                guard let constraints = DER.element(in: der, at: value.contents.lowerBound), constraints.tag == 0x30,
                    let members = DER.children(of: constraints, in: der)
                else {
                    throw fail("basic constraints are malformed")
                }
                if let first = members.first, first.tag == 0x01, Array(der[first.contents]) != [0x00] {
                    throw fail("attestation certificate is a CA")
                }
            case aaguidOID:
                guard !critical else { throw fail("AAGUID extension is critical") }
                guard let inner = DER.element(in: der, at: value.contents.lowerBound), inner.tag == 0x04,
                    inner.end == value.contents.upperBound, Array(der[inner.contents]) == aaguid
                else {
                    throw fail("AAGUID extension differs from the authenticator data's")
                }
            default:
                continue
            }
        }
    }

    /// The attributes of a Name (`SEQUENCE OF SET OF SEQUENCE { OID, value }`) as OID bytes to
    /// value bytes.
    private static func names(_ name: DER.Element, in der: [UInt8]) -> [[UInt8]: [UInt8]]? {
        guard let sets = DER.children(of: name, in: der) else { return nil }
        var result: [[UInt8]: [UInt8]] = [:]
        for set in sets {
            guard set.tag == 0x31, let pairs = DER.children(of: set, in: der) else { return nil }
            for pair in pairs {
                guard pair.tag == 0x30, let fields = DER.children(of: pair, in: der), fields.count == 2,
                    fields[0].tag == 0x06
                else { return nil }
                result[Array(der[fields[0].contents])] = Array(der[fields[1].contents])
            }
        }
        return result
    }
}
