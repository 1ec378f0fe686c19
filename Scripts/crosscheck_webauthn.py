#!/usr/bin/env python3
"""Cross-check MultiAuth's WebAuthn verifier and software authenticator against py_webauthn.

Both directions, through ONE `MultiAuthCrossCheck` binary (JSON lines, two batch runs):

  (a) registrations and assertions made by our SoftwareAuthenticator (ES256 and EdDSA, `none`
      and `packed` self attestation, several seeds) are verified by py_webauthn
      (verify_registration_response / verify_authentication_response) and by our
      WebAuthnVerifier;
  (b) registrations and assertions built here by hand (W3C WebAuthn Level 3 §6.1 authenticator
      data, §6.5.4 attestation object, §5.8.1 client data) with `cryptography` keys (ES256,
      EdDSA, RS256) and a `cbor2` encoder are verified by both;
  and tampered variants of both (a flipped signature bit, another origin, another RP ID,
  another challenge, the UP flag cleared, BS without BE, a wrong client data type, a regressed
  sign count) must be refused by both.

Prints the counts ("agreed on N registrations, M assertions, T tampered"); on any
disagreement prints the case and both answers and exits 1.

Usage: python3 Scripts/crosscheck_webauthn.py [--seed N] [--cases N] [--binary PATH]
Needs: pip install -r Scripts/requirements-dev.txt
"""
import argparse
import base64
import hashlib
import json
import os
import random
import struct
import subprocess
import sys

import cbor2
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa
from webauthn import verify_authentication_response, verify_registration_response

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RP_ID = "example.com"
ORIGIN = "https://example.com"


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def run(binary, requests):
    for index, request in enumerate(requests):
        request["id"] = index
    command = [binary] if binary else ["swift", "run", "-c", "debug", "--package-path", ROOT, "MultiAuthCrossCheck"]
    stdin = "".join(json.dumps(r) + "\n" for r in requests)
    result = subprocess.run(command, input=stdin, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        sys.stderr.write(result.stderr)
        sys.exit("MultiAuthCrossCheck exited with %d" % result.returncode)
    answers = {}
    for line in result.stdout.splitlines():
        if line.startswith("{"):
            answer = json.loads(line)
            answers[answer["id"]] = answer
    return [answers.get(r["id"], {"error": "no answer"}) for r in requests]


# MARK: The peer

def peer_register(client_data, attestation_object, challenge, credential_id, uv_required=True, rp_id=RP_ID):
    """py_webauthn's verdict: (True, (public key, sign count)) or (False, reason)."""
    credential = {"id": b64(credential_id), "rawId": b64(credential_id), "type": "public-key",
                  "response": {"clientDataJSON": b64(client_data), "attestationObject": b64(attestation_object)}}
    try:
        verified = verify_registration_response(credential=credential, expected_challenge=challenge,
                                                expected_rp_id=rp_id, expected_origin=ORIGIN,
                                                require_user_verification=uv_required)
        return True, (verified.credential_public_key, verified.sign_count)
    except Exception as error:  # py_webauthn raises several exception types for a refusal
        return False, str(error)


def peer_assert(assertion, challenge, public_key, stored_count, uv_required=True, rp_id=RP_ID):
    response = {"clientDataJSON": b64(assertion["client_data"]), "authenticatorData": b64(assertion["authenticator_data"]),
                "signature": b64(assertion["signature"])}
    if assertion.get("user_handle") is not None:
        response["userHandle"] = b64(assertion["user_handle"])
    credential = {"id": b64(assertion["credential_id"]), "rawId": b64(assertion["credential_id"]), "type": "public-key",
                  "response": response}
    try:
        verified = verify_authentication_response(credential=credential, expected_challenge=challenge,
                                                  expected_rp_id=rp_id, expected_origin=ORIGIN,
                                                  credential_public_key=public_key,
                                                  credential_current_sign_count=stored_count,
                                                  require_user_verification=uv_required)
        return True, verified.new_sign_count
    except Exception as error:
        return False, str(error)


# MARK: Requests for our side

def ours_register(client_data, attestation_object, challenge, uv_required=True, rp_id=RP_ID):
    return {"op": "webauthn_register", "rp_id": rp_id, "origins": [ORIGIN], "challenge": b64(challenge),
            "client_data": b64(client_data), "attestation_object": b64(attestation_object), "uv_required": uv_required}


def ours_assert(assertion, challenge, public_key, alg, stored_count, uv_required=True, rp_id=RP_ID):
    return {"op": "webauthn_assert", "rp_id": rp_id, "origins": [ORIGIN], "challenge": b64(challenge),
            "credential_id": b64(assertion["credential_id"]), "client_data": b64(assertion["client_data"]),
            "authenticator_data": b64(assertion["authenticator_data"]), "signature": b64(assertion["signature"]),
            "user_handle": b64(assertion["user_handle"]) if assertion.get("user_handle") is not None else None,
            "public_key": b64(public_key), "alg": alg, "sign_count": stored_count, "uv_required": uv_required}


def ours_accepts(answer):
    """Our verdict in py_webauthn's terms: it refuses a counter that did not advance."""
    return answer.get("valid") is True and not answer.get("regressed", False)


# MARK: Hand-built responses (b)

class Authenticator:
    """A minimal authenticator written here, independent of ours: one key, one credential."""

    def __init__(self, rng, alg, rsa_keys):
        self.alg = alg
        self.credential_id = bytes(rng.getrandbits(8) for _ in range(rng.choice([16, 32, 64])))
        if alg == -7:
            self.key = ec.derive_private_key(rng.randrange(1, 2 ** 255), ec.SECP256R1())
            numbers = self.key.public_key().public_numbers()
            cose = {1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32, "big"), -3: numbers.y.to_bytes(32, "big")}
        elif alg == -8:
            self.key = ed25519.Ed25519PrivateKey.from_private_bytes(bytes(rng.getrandbits(8) for _ in range(32)))
            raw = self.key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
            cose = {1: 1, 3: -8, -1: 6, -2: raw}
        else:
            self.key = rng.choice(rsa_keys)
            numbers = self.key.public_key().public_numbers()
            cose = {1: 3, 3: -257, -1: numbers.n.to_bytes(256, "big"), -2: numbers.e.to_bytes(3, "big")}
        self.cose_key = cbor2.dumps(cose, canonical=True)
        self.count = rng.randrange(0, 1000)

    def sign(self, message):
        if self.alg == -7:
            return self.key.sign(message, ec.ECDSA(hashes.SHA256()))  # DER, as WebAuthn wants (§6.5.5)
        if self.alg == -8:
            return self.key.sign(message)
        return self.key.sign(message, padding.PKCS1v15(), hashes.SHA256())

    @staticmethod
    def client_data(kind, challenge):
        return json.dumps({"type": kind, "challenge": b64(challenge), "origin": ORIGIN, "crossOrigin": False},
                          separators=(",", ":")).encode()

    def register(self, challenge, fmt, flags=0x45, rp_id=RP_ID):
        client_data = self.client_data("webauthn.create", challenge)
        auth_data = (hashlib.sha256(rp_id.encode()).digest() + bytes([flags]) + struct.pack(">I", self.count)
                     + bytes(16) + struct.pack(">H", len(self.credential_id)) + self.credential_id + self.cose_key)
        statement = {}
        if fmt == "packed":
            statement = {"alg": self.alg, "sig": self.sign(auth_data + hashlib.sha256(client_data).digest())}
        attestation_object = cbor2.dumps({"fmt": fmt, "attStmt": statement, "authData": auth_data}, canonical=True)
        return client_data, attestation_object

    def assertion(self, challenge, flags=0x05, kind="webauthn.get", rp_id=RP_ID, step=1):
        self.count += step
        client_data = self.client_data(kind, challenge)
        auth_data = hashlib.sha256(rp_id.encode()).digest() + bytes([flags]) + struct.pack(">I", self.count)
        return {"credential_id": self.credential_id, "client_data": client_data, "authenticator_data": auth_data,
                "signature": self.sign(auth_data + hashlib.sha256(client_data).digest()), "user_handle": None}


def flip(data, index):
    data = bytearray(data)
    data[index % len(data)] ^= 0x01
    return bytes(data)


def tampered_assertions(rng, assertion, challenge):
    """(label, assertion, expected challenge, rp id) variants both sides must refuse."""
    sig = assertion["signature"]
    yield "signature bit", dict(assertion, signature=flip(sig, rng.randrange(len(sig)))), challenge, RP_ID
    yield "signed count", dict(assertion, authenticator_data=flip(assertion["authenticator_data"], 36)), challenge, RP_ID
    yield "other challenge", assertion, bytes(rng.getrandbits(8) for _ in range(32)), RP_ID
    yield "other rp id", assertion, challenge, "other.example"
    client = json.loads(assertion["client_data"])
    client["origin"] = "https://evil.example"
    yield "other origin", dict(assertion, client_data=json.dumps(client).encode()), challenge, RP_ID
    client = json.loads(assertion["client_data"])
    client["type"] = "webauthn.create"
    yield "create type", dict(assertion, client_data=json.dumps(client).encode()), challenge, RP_ID
    data = bytearray(assertion["authenticator_data"])
    data[32] &= 0xFE
    yield "UP cleared", dict(assertion, authenticator_data=bytes(data)), challenge, RP_ID


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=int(os.environ.get("CROSSCHECK_SEED", "20240601")))
    parser.add_argument("--cases", type=int, default=40, help="credentials per direction and kind")
    parser.add_argument("--binary", help="path to a built MultiAuthCrossCheck (default: swift run)")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    counts = {"registrations": 0, "assertions": 0, "tampered": 0}
    failures = []

    def check(kind, label, peer, ours, expected):
        """Both verdicts must equal `expected` (True accepts, False refuses)."""
        if peer[0] == expected and ours == expected:
            counts[kind] += 1
        else:
            failures.append("%s (%s): expected %s, py_webauthn %s, ours %s" % (kind, label, expected, peer, ours))

    # (a) Our authenticator -> py_webauthn and our verifier.
    makes = []
    for index in range(args.cases):
        for alg in (-7, -8):
            for attestation in ("none", "packed"):
                makes.append({"op": "webauthn_make", "seed": rng.randrange(1, 2 ** 62), "alg": alg,
                              "attestation": attestation, "rp_id": RP_ID, "origin": ORIGIN,
                              "user_handle": b64(bytes([index % 256, alg & 0xFF])),
                              "challenge": b64(bytes(rng.getrandbits(8) for _ in range(32))),
                              "assertion_challenges": [b64(bytes(rng.getrandbits(8) for _ in range(32))) for _ in range(2)]})
    made = run(args.binary, makes)
    second = []  # (kind, label, expected, peer verdict, request for ours)
    for request, answer in zip(makes, made):
        if "registration" not in answer:
            failures.append("make failed: %s -> %s" % (request, answer))
            continue
        registration = answer["registration"]
        client_data, attestation_object = unb64(registration["client_data"]), unb64(registration["attestation_object"])
        challenge = unb64(request["challenge"])
        peer = peer_register(client_data, attestation_object, challenge, unb64(registration["credential_id"]))
        second.append(("registrations", "ours %s %s" % (request["alg"], request["attestation"]), True, peer,
                       ours_register(client_data, attestation_object, challenge)))
        if not peer[0]:
            continue
        public_key, stored = peer[1]
        for number, (text, raw) in enumerate(zip(request["assertion_challenges"], answer["assertions"])):
            assertion = {key: (unb64(value) if isinstance(value, str) else value) for key, value in raw.items()}
            assertion_challenge = unb64(text)
            # py_webauthn is stateless: check each assertion against the count before it.
            count = stored + number
            second.append(("assertions", "ours %s" % request["alg"], True,
                           peer_assert(assertion, assertion_challenge, public_key, count),
                           ours_assert(assertion, assertion_challenge, public_key, request["alg"], count)))
            for label, variant, expected_challenge, rp_id in tampered_assertions(rng, assertion, assertion_challenge):
                second.append(("tampered", "ours %s %s" % (request["alg"], label), False,
                               peer_assert(variant, expected_challenge, public_key, count, rp_id=rp_id),
                               ours_assert(variant, expected_challenge, public_key, request["alg"], count, rp_id=rp_id)))
            # The same assertion again: its counter did not advance (a clone, §7.2 step 23).
            second.append(("tampered", "ours %s regressed count" % request["alg"], False,
                           peer_assert(assertion, assertion_challenge, public_key, count + 1),
                           ours_assert(assertion, assertion_challenge, public_key, request["alg"], count + 1)))

    # (b) Hand-built responses -> py_webauthn and our verifier.
    rsa_keys = [rsa.generate_private_key(public_exponent=65537, key_size=2048) for _ in range(2)]
    for _ in range(args.cases):
        for alg in (-7, -8, -257):
            for fmt in ("none", "packed"):
                authenticator = Authenticator(rng, alg, rsa_keys)
                challenge = bytes(rng.getrandbits(8) for _ in range(32))
                client_data, attestation_object = authenticator.register(challenge, fmt)
                peer = peer_register(client_data, attestation_object, challenge, authenticator.credential_id)
                second.append(("registrations", "python %s %s" % (alg, fmt), True, peer,
                               ours_register(client_data, attestation_object, challenge)))
                # Registration variants: BS without BE, UP cleared, another RP ID, a broken packed signature.
                variants = [("BS without BE", authenticator.register(challenge, fmt, flags=0x55), RP_ID),
                            ("UP cleared", authenticator.register(challenge, fmt, flags=0x44), RP_ID),
                            ("other rp id", (client_data, attestation_object), "other.example")]
                if fmt == "packed":
                    decoded = cbor2.loads(attestation_object)
                    decoded["attStmt"]["sig"] = flip(decoded["attStmt"]["sig"], rng.randrange(8, 64))
                    variants.append(("packed signature bit", (client_data, cbor2.dumps(decoded, canonical=True)), RP_ID))
                for label, (variant_client, variant_object), rp_id in variants:
                    second.append(("tampered", "python %s %s %s" % (alg, fmt, label), False,
                                   peer_register(variant_client, variant_object, challenge, authenticator.credential_id,
                                                 rp_id=rp_id),
                                   ours_register(variant_client, variant_object, challenge, rp_id=rp_id)))
                stored = authenticator.count
                assertion_challenge = bytes(rng.getrandbits(8) for _ in range(32))
                assertion = authenticator.assertion(assertion_challenge)
                second.append(("assertions", "python %s" % alg, True,
                               peer_assert(assertion, assertion_challenge, authenticator.cose_key, stored),
                               ours_assert(assertion, assertion_challenge, authenticator.cose_key, alg, stored)))
                for label, variant, expected_challenge, rp_id in tampered_assertions(rng, assertion, assertion_challenge):
                    second.append(("tampered", "python %s %s" % (alg, label), False,
                                   peer_assert(variant, expected_challenge, authenticator.cose_key, stored, rp_id=rp_id),
                                   ours_assert(variant, expected_challenge, authenticator.cose_key, alg, stored,
                                               rp_id=rp_id)))

    verdicts = run(args.binary, [request for *_, request in second])
    refusals = {}
    for (kind, label, expected, peer, request), answer in zip(second, verdicts):
        if "error" in answer and "valid" not in answer:
            failures.append("%s (%s): our side failed: %s" % (kind, label, answer["error"]))
            continue
        check(kind, label, peer, ours_accepts(answer), expected)
        if kind == "tampered":
            reason = answer.get("error") or ("signCountRegressed (reported)" if answer.get("regressed") else "accepted")
            variant = label.split(" ", 2)[-1]
            refusals.setdefault(variant, {}).setdefault(reason, 0)
            refusals[variant][reason] += 1

    print("agreed on %d registrations, %d assertions, %d tampered (refused by both)" % (
        counts["registrations"], counts["assertions"], counts["tampered"]))
    for variant in sorted(refusals):
        print("  %-28s ours: %s" % (variant, ", ".join("%s %d" % item for item in sorted(refusals[variant].items()))))
    if failures:
        for failure in failures[:20]:
            print("DISAGREE " + failure)
        print("cross-check FAILED: %d disagreement(s) (seed %d)" % (len(failures), args.seed))
        sys.exit(1)
    print("cross-check passed (seed %d)" % args.seed)


if __name__ == "__main__":
    main()
