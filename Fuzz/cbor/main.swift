// libFuzzer target: the bounded CBOR decoder (RFC 8949) and the whole WebAuthn parse path on
// top of it: authenticator data (W3C WebAuthn Level 3 §6.1, the credential key read with
// decodePrefix), the attestation object (§6.5.4) and WebAuthnVerifier's registration and
// assertion checks. Properties: any bytes decode or throw (typed: CBORError / WebAuthnError,
// never a crash, a stack overflow or an allocation beyond the input); a decoded value stays
// within the limits it was decoded with; decodePrefix ends inside the input, exactly at its end
// when the whole input is one item; parsed authenticator data keeps its bytes and a credential
// ID of at most 1,023 bytes whose key is one CBOR map. The committed corpus holds real
// registrations (none, packed self, packed x5c), assertions' authenticator data and hostile
// shapes (deep nesting, huge declared lengths, indefinite lengths, duplicate keys).
import MultiAuthCrypto

/// Tight limits, so the corpus's 4 KiB inputs also exercise the depth and item refusals.
let tight = CBORLimits(maximumBytes: 4_096, maximumDepth: 8, maximumItems: 128)

/// The nesting depth and item count of `value`, counted without recursion.
func shape(of value: CBORValue) -> (depth: Int, items: Int) {
    var stack = [(value, 1)]
    var depth = 0
    var items = 0
    while let (current, level) = stack.popLast() {
        items += 1
        depth = max(depth, level)
        switch current {
        case .array(let elements): stack += elements.map { ($0, level + 1) }
        case .map(let members):
            for (key, member) in members { stack += [(key, level + 1), (member, level + 1)] }
        default: break
        }
    }
    return (depth, items)
}

let relyingParty = WebAuthnRelyingParty(id: "example.com", origins: ["https://example.com"])
let verifier = WebAuthnVerifier(relyingParty: relyingParty)
let challenge = [UInt8](repeating: 7, count: 32)
/// Client data that passes every client-data check, so the fuzzed bytes reach the CBOR path.
func clientData(_ type: String) -> [UInt8] {
    Array(
        (#"{"type":""# + type + #"","challenge":""# + Base64URL.encode(challenge)
            + #"","origin":"https://example.com","crossOrigin":false}"#).utf8)
}
let createData = clientData("webauthn.create")
let getData = clientData("webauthn.get")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCBOR(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    for limits in [tight, CBORLimits.webAuthn] {
        let whole = try? CBORValue(decoding: bytes, limits: limits)
        if let whole {
            let (depth, items) = shape(of: whole)
            fuzzCheck(depth <= limits.maximumDepth, "depth \(depth) over \(limits.maximumDepth)")
            fuzzCheck(items <= limits.maximumItems, "\(items) items over \(limits.maximumItems)")
        }
        if let prefix = try? CBORValue.decodePrefix(bytes, from: 0, limits: limits) {
            let end = prefix.end
            fuzzCheck(end > 0 && end <= bytes.count, "prefix end \(end) outside 1...\(bytes.count)")
            fuzzCheck(whole == nil || (end == bytes.count && prefix.value == whole), "prefix and whole decoding differ")
        }
    }
    if let authData = try? WebAuthnAuthenticatorData(parsing: bytes) {
        fuzzCheck(authData.rawValue == bytes, "authenticator data lost bytes")
        if let attested = authData.attestedCredential {
            fuzzCheck(attested.credentialID.count <= 1_023, "credential ID over 1023 bytes")
            guard case .map? = try? CBORValue(decoding: attested.publicKey) else {
                fatalError("fuzz property violated: the credential key is not one CBOR map")
            }
        }
    }
    if let object = try? WebAuthnAttestationObject(parsing: bytes) {
        _ = (object.format, object.statement, object.authenticatorData.signCount)
    }
    runBlocking {
        // The bytes as an attestation object, then as an assertion's authenticator data.
        let registered = try? await verifier.verifyRegistration(
            clientDataJSON: createData, attestationObject: bytes, expectedChallenge: challenge,
            userVerification: .preferred)
        let credential =
            registered
            ?? WebAuthnCredential(
                credentialID: [1], publicKey: Array(bytes.prefix(200)), algorithm: .es256, signCount: 0,
                userHandle: nil,
                backupEligible: false, backedUp: false, attestationFormat: "none",
                aaguid: Array(repeating: 0, count: 16))
        _ = try? await verifier.verifyAssertion(
            credentialID: credential.credentialID, clientDataJSON: getData, authenticatorData: bytes,
            signature: Array(bytes.suffix(72)), userHandle: nil, expectedChallenge: challenge, credential: credential,
            userVerification: .preferred)
    }
    return 0
}
