#!/usr/bin/env python3
"""Prints the packed-attestation certificate fixtures of Tests/MultiAuthCryptoTests/WebAuthnFixtures.swift.

One P-256 attestation key (a fixed scalar, so the key repeats) and four self-signed leaf
certificates built with `cryptography` (Scripts/requirements-dev.txt): one that meets the
attestation certificate requirements of W3C WebAuthn Level 3 §8.2.1 (version 3, subject C, O,
OU "Authenticator Attestation", CN, basic constraints CA false, the AAGUID extension
1.3.6.1.4.1.45724.1.1.4), one with another OU, one that is a CA and one without the AAGUID
extension. ECDSA certificate signatures are randomized, so a rerun prints other (equally valid)
certificates. Usage: python3 Scripts/generate_webauthn_fixtures.py
"""
import base64
import datetime

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID, ObjectIdentifier

KEY = ec.derive_private_key(0x5EED << 240 | 1, ec.SECP256R1())
AAGUID = bytes(range(0x10, 0x20))
AAGUID_OID = ObjectIdentifier("1.3.6.1.4.1.45724.1.1.4")


def certificate(ou="Authenticator Attestation", ca=False, aaguid=AAGUID):
    name = x509.Name([
        x509.NameAttribute(NameOID.COUNTRY_NAME, "US"),
        x509.NameAttribute(NameOID.ORGANIZATION_NAME, "MultiAuth Test"),
        x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, ou),
        x509.NameAttribute(NameOID.COMMON_NAME, "MultiAuth Test Attestation"),
    ])
    builder = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(KEY.public_key())
               .serial_number(1).not_valid_before(datetime.datetime(2024, 1, 1))
               .not_valid_after(datetime.datetime(2044, 1, 1))
               .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
    if aaguid is not None:
        # extnValue holds an OCTET STRING of the 16-byte AAGUID (§8.2.1).
        builder = builder.add_extension(x509.UnrecognizedExtension(AAGUID_OID, b"\x04\x10" + aaguid), critical=False)
    return builder.sign(KEY, hashes.SHA256()).public_bytes(serialization.Encoding.DER)


def main():
    print(KEY.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
                            serialization.NoEncryption()).decode())
    for label, der in [("good", certificate()), ("wrongOU", certificate(ou="Other")), ("ca", certificate(ca=True)),
                       ("noAAGUID", certificate(aaguid=None))]:
        print(label, base64.b64encode(der).decode())


if __name__ == "__main__":
    main()
