#!/usr/bin/env python3
"""Cross-check MultiAuthCrypto against independent Python peers.

Generates a few thousand random cases and compares, case by case:
  * TOTP codes (RFC 6238) and ±1-step verification with pyotp,
  * otpauth:// URI parsing with pyotp, in both directions (our canonical URIs parsed by
    pyotp, pyotp's provisioning URIs parsed by us), including names with colons;
  * otpauth labels: fixed cases of the Key URI Format's label split (an encoded colon inside
    the issuer, the issuer-prefix rule), where pyotp is compared and its known differences
    are listed (Docs/Standards.md, "otpauth labels");
  * Steam Guard codes (encoder=steam) with pyotp.contrib.Steam,
  * JWT (RS256, RS512, ES256) verification with PyJWT, on valid, expired, not-yet-valid and
    tampered tokens and tokens checked against the wrong key,
  * the JWT `kid` and `aud` policy with PyJWT: a `kid` that is not a string (a
    number, null, an array, an object, a boolean) is an error on both sides (RFC 7515
    §4.1.4); a `kid` naming no key of the set fails (PyJWT's PyJWKSet lookup); `aud` is
    checked against an expected audience (string or array, missing, empty, wrong type), or
    explicitly not checked (`.anyAudience` / PyJWT `verify_aud=False`),
  * ES256 tokens with a high-S signature (the other encoding of a valid one): both PyJWT and
    MultiAuth accept them (MultiAuth normalises s before verifying, Docs/Security.md). Every
    other ES256 token is compared exactly as PyJWT signed it, low or high S.

All cases go through ONE `MultiAuthCrossCheck` process (JSON lines on stdin/stdout).
Prints "<kind>: N/N agree" per kind; on any disagreement prints the failing input and both
answers and exits 1.

Usage: python3 Scripts/crosscheck_crypto.py [--seed N] [--binary PATH] [--cases N]
Needs: pip install -r Scripts/requirements-dev.txt
"""
import argparse
import base64
import hashlib
import json
import os
import random
import subprocess
import sys
import time

import jwt
import pyotp
from cryptography.hazmat.primitives.asymmetric import ec, rsa

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIGESTS = {"SHA1": hashlib.sha1, "SHA256": hashlib.sha256, "SHA512": hashlib.sha512}
# Label/issuer characters. Both sides split the still-encoded label at its first literal ':'
# and decode the parts, so a ':' inside a name (written %3A) stays in it. The one difference:
# a label with no literal ':' is split at its first %3A by MultiAuth (Google's Key URI Format:
# "a literal or url-encoded colon") and not at all by pyotp; pyotp writes such a label for an
# account with a ':' and no issuer, so those cases expect the Key URI Format's answer.
NAME_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 @.-_~+!$'()*,;=éü日本"
NAME_CHARS_WITH_COLON = NAME_CHARS + "::"
PEER_SPLITS_ONLY_AT_LITERAL_COLON = ("pyotp splits the label only at a literal ':'; the Key URI Format also "
                                     "accepts an encoded one (%3A) as the separator")

# Fixed otpauth label cases: (URI, our expected issuer and account, None when pyotp must read
# the same, else the documented reason it does not). The secrets are 160 bits: pyotp refuses
# fewer than 112.
LABEL_CASES = [
    ("otpauth://totp/Acme%3A%20Payments:alice?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=Acme%3A%20Payments",
     ("Acme: Payments", "alice"), None),
    ("otpauth://totp/Acme%3A%20Payments:alice?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ", ("Acme: Payments", "alice"), None),
    ("otpauth://totp/Acme:a%3Ab?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=Acme", ("Acme", "a:b"), None),
    ("otpauth://totp/Acme%3Ab:c?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ", ("Acme:b", "c"), None),
    ("otpauth://totp/Example+Corp%3Auser%40example.com?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=Microsoft",
     ("Microsoft", "user@example.com"), PEER_SPLITS_ONLY_AT_LITERAL_COLON),
    ("otpauth://totp/Example%3Aalice?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ", ("Example", "alice"), PEER_SPLITS_ONLY_AT_LITERAL_COLON),
    # The Key URI Format's own example of a valid label.
    ("otpauth://totp/Big%20Corporation%3A%20alice%40bigco.com?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ",
     ("Big Corporation", "alice@bigco.com"), PEER_SPLITS_ONLY_AT_LITERAL_COLON),
    ("otpauth://totp/Provider1:Alice%20Smith?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ", ("Provider1", "Alice Smith"), None),
    ("otpauth://totp/Tenant:alice?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=Microsoft", ("Microsoft", "alice"),
     "pyotp refuses a label issuer that differs from the issuer parameter; MultiAuth takes the parameter "
     "and reports issuerMismatch (Microsoft 365 enrolments)"),
    ("otpauth://totp/Acme:%20Payments:alice?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=Acme:%20Payments",
     ("Acme: Payments", "alice"),
     "pyotp does not apply the Key URI Format's rule that a decoded label starting with the issuer "
     "parameter and ':' has the rest as its account, and then refuses the mismatch"),
]


def b32(data: bytes) -> str:
    return base64.b32encode(data).decode().rstrip("=")


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


P256_ORDER = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551


def es256_with_s(token, high):
    """The ES256 token with its signature's s in low (s <= n/2) or high (s > n/2) form."""
    header_b64, payload_b64, signature_b64 = token.split(".")
    signature = unb64url(signature_b64)
    r, s = signature[:32], int.from_bytes(signature[32:], "big")
    if (s > P256_ORDER // 2) != high:
        s = P256_ORDER - s
    return ".".join([header_b64, payload_b64, b64url(r + s.to_bytes(32, "big"))])


def sign_raw(header, claims, key, algorithm):
    """A compact JWS with exactly this header (PyJWT's encoder refuses a non-string kid)."""
    signing_input = b64url(json.dumps(header).encode()) + "." + b64url(json.dumps(claims).encode())
    signature = jwt.algorithms.get_default_algorithms()[algorithm].sign(signing_input.encode(), key)
    token = signing_input + "." + b64url(signature)
    return token


def random_name(rng, allow_empty=False, chars=NAME_CHARS):
    length = rng.randint(0 if allow_empty else 1, 24)
    name = "".join(rng.choice(chars) for _ in range(length))
    # Leading spaces of an account are dropped by both sides; keep names unambiguous.
    return name.strip() or "x"


def canonical_b32(secret: str) -> str:
    """The secret re-encoded from its bytes: unused bits of the last character cleared."""
    return b32(base64.b32decode(secret + "=" * (-len(secret) % 8)))


def random_otp_params(rng):
    # pyotp needs at least 112-bit (14-byte) secrets.
    secret = b32(rng.randbytes(rng.choice([14, 15, 16, 20, 25, 32, 40, 64, rng.randint(14, 80)])))
    if rng.random() < 0.3:
        # A last character with non-zero unused bits (like Docs/Cases.md B02's "...ZXV"): both sides must
        # ignore those bits for codes, and a parsed URI must keep the secret as given.
        secret = secret[:-1] + rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
    algorithm = rng.choice(list(DIGESTS))
    digits = rng.choice([6, 7, 8])
    # pyotp accepts periods of 1...120 s only.
    period = rng.choice([15, 30, 30, 60, 90, rng.randint(1, 120)])
    return secret, algorithm, digits, period


def totp_cases(rng, count):
    requests, expected = [], []
    for _ in range(count):
        secret, algorithm, digits, period = random_otp_params(rng)
        t = rng.choice([rng.randint(0, 2**31), rng.randint(0, 2**34), rng.randint(0, 10**6)])
        peer = pyotp.TOTP(secret, digits=digits, digest=DIGESTS[algorithm], interval=period)
        requests.append({"op": "totp", "secret": secret, "algorithm": algorithm, "digits": digits,
                         "period": period, "time": t})
        expected.append(("code", peer.at(t)))
    return requests, expected


def verify_cases(rng, count):
    requests, expected = [], []
    for _ in range(count):
        secret, algorithm, digits, period = random_otp_params(rng)
        t = rng.randint(10**6, 2**33)
        peer = pyotp.TOTP(secret, digits=digits, digest=DIGESTS[algorithm], interval=period)
        # A code from -2..+2 steps away (±1 must pass, ±2 must fail unless codes collide),
        # or a random code.
        offset = rng.choice([-2, -1, 0, 1, 2, None])
        code = peer.at(t + offset * period) if offset is not None else str(rng.randrange(10**digits)).zfill(digits)
        requests.append({"op": "verify", "secret": secret, "algorithm": algorithm, "digits": digits,
                         "period": period, "time": t, "code": code, "window": 1})
        expected.append(("valid", peer.verify(code, for_time=t, valid_window=1)))
    return requests, expected


COLON_NAMES = {"with ':'": 0, "no literal ':' in the label": 0}


def uri_cases(rng, count):
    """Half: pyotp builds, we parse. Half: we build (canonical), pyotp parses."""
    requests, expected = [], []
    for index in range(count):
        secret, algorithm, digits, period = random_otp_params(rng)
        # pyotp's builder takes names with ':' (it writes them as %3A); ours refuses them, as
        # the Key URI Format asks, so only the pyotp-builds direction uses them.
        chars = NAME_CHARS_WITH_COLON if index % 2 == 0 else NAME_CHARS
        issuer = random_name(rng, chars=chars) if rng.random() < 0.8 else None
        account = random_name(rng, chars=chars)
        fields = {"secret": secret, "issuer": issuer, "account": account, "algorithm": algorithm,
                  "digits": digits, "period": period}
        if index % 2 == 0:
            peer = pyotp.TOTP(secret, digits=digits, digest=DIGESTS[algorithm], interval=period,
                              issuer=issuer, name=account)
            requests.append({"op": "uri_parse", "uri": peer.provisioning_uri()})
            COLON_NAMES["with ':'"] += ":" in account or ":" in (issuer or "")
            if issuer is None and ":" in account:
                COLON_NAMES["no literal ':' in the label"] += 1
                # No literal ':' in the label: the Key URI Format splits at the first %3A.
                prefix, rest = account.split(":", 1)
                rest = rest.lstrip(" ")
                split = dict(fields, issuer=prefix or None, account=rest)
                expected.append(("fields", split if rest else {"error": "missing parameter 'account'"}))
            else:
                expected.append(("fields", fields))
        else:
            requests.append({"op": "uri_build", **fields})
            # Built from the decoded bytes, so the URI carries the canonical encoding.
            expected.append(("peer_parse", dict(fields, secret=canonical_b32(secret))))
    return requests, expected


def label_cases():
    """The fixed label cases: ours must give the expected fields; pyotp must agree unless a
    documented reason says why it does not."""
    requests, expected = [], []
    for uri, (issuer, account), reason in LABEL_CASES:
        requests.append({"op": "uri_parse", "uri": uri})
        expected.append(("label", (uri, issuer, account, reason)))
    return requests, expected


def peer_label(uri):
    try:
        otp = pyotp.parse_uri(uri)
        return {"issuer": otp.issuer, "account": otp.name}
    except ValueError as error:
        return {"error": str(error)}


def steam_cases(rng, count):
    requests, expected = [], []
    for _ in range(count):
        secret = b32(rng.randbytes(rng.choice([14, 20, 20, 32])))
        t = rng.choice([rng.randint(0, 2**31), rng.randint(0, 2**34), rng.randint(0, 10**6)])
        requests.append({"op": "steam", "secret": secret, "time": t})
        expected.append(("code", pyotp.contrib.Steam(secret).at(t)))
    # An encoder=steam URI from pyotp's parser is a Steam generator on both sides.
    uri = "otpauth://totp/Steam:alice?secret=FMXNK4QEGKVPULRTADY6JIDK5VHUBGZW&issuer=Steam&encoder=steam"
    requests.append({"op": "uri_parse", "uri": uri})
    expected.append(("encoder", "steam" if isinstance(pyotp.parse_uri(uri), pyotp.contrib.Steam) else None))
    return requests, expected


def peer_parse(uri):
    otp = pyotp.parse_uri(uri)
    return {"secret": otp.secret.upper().rstrip("="), "issuer": otp.issuer, "account": otp.name,
            "algorithm": otp.digest().name.upper(), "digits": otp.digits,
            "period": otp.interval}


class Keys:
    def __init__(self):
        self.rsa = [rsa.generate_private_key(public_exponent=65537, key_size=2048) for _ in range(3)]
        self.ec = [ec.generate_private_key(ec.SECP256R1()) for _ in range(3)]

    def pick(self, rng, algorithm):
        return rng.choice(self.rsa if algorithm.startswith("RS") else self.ec)

    @staticmethod
    def jwk(private_key, kid):
        public = private_key.public_key()
        cls = jwt.algorithms.RSAAlgorithm if isinstance(public, rsa.RSAPublicKey) else jwt.algorithms.ECAlgorithm
        value = json.loads(cls.to_jwk(public))
        value["kid"] = kid
        return value


def jwt_cases(rng, count, keys, now):
    requests, expected = [], []
    modes = ["valid", "valid", "expired", "future_nbf", "past_nbf", "payload", "signature", "wrong_key",
             "other_type_key", "alg_none", "alg_swap", "audience"]
    for _ in range(count):
        algorithm = rng.choice(["RS256", "RS512", "ES256"])
        key = keys.pick(rng, algorithm)
        mode = rng.choice(modes)
        leeway = rng.choice([0, 0, 30, 60, 300])
        audience = "client-%d" % rng.randint(1, 3)
        claims = {"iss": "https://issuer.example", "sub": "user-%d" % rng.randint(1, 10**6),
                  "aud": audience if rng.random() < 0.5 else [audience, "other"],
                  "iat": int(now) - rng.randint(0, 3600),
                  "exp": int(now) + rng.randint(120, 86400)}
        if mode == "expired":
            # Clearly outside or clearly inside the leeway, never within 60 s of a boundary.
            claims["exp"] = int(now) - leeway - rng.randint(60, 86400) if rng.random() < 0.7 else int(now) - leeway + 120
        if mode == "future_nbf":
            claims["nbf"] = int(now) + leeway + rng.randint(60, 3600)
        if mode == "past_nbf":
            claims["nbf"] = int(now) + leeway - rng.randint(60, 3600)
        token = jwt.encode(claims, key, algorithm=algorithm, headers={"kid": "k1"})
        header_b64, payload_b64, signature_b64 = token.split(".")
        verify_key = key
        if mode == "payload":
            forged = dict(claims, sub="admin")
            token = ".".join([header_b64, b64url(json.dumps(forged).encode()), signature_b64])
        elif mode == "signature":
            signature = bytearray(unb64url(signature_b64))
            signature[rng.randrange(len(signature))] ^= 1 << rng.randrange(8)
            token = ".".join([header_b64, payload_b64, b64url(bytes(signature))])
        elif mode == "wrong_key":
            while verify_key is key:
                verify_key = keys.pick(rng, algorithm)
        elif mode == "other_type_key":
            verify_key = keys.pick(rng, "ES256" if algorithm.startswith("RS") else "RS256")
        elif mode == "alg_none":
            header = b64url(json.dumps({"alg": "none", "kid": "k1"}).encode())
            token = ".".join([header, payload_b64, ""])
        elif mode == "alg_swap" and algorithm != "ES256":
            other = "RS512" if algorithm == "RS256" else "RS256"
            header = b64url(json.dumps({"alg": other, "kid": "k1", "typ": "JWT"}).encode())
            token = ".".join([header, payload_b64, signature_b64])
        expected_audience = audience if mode != "audience" else "someone-else"
        jwk = Keys.jwk(verify_key, "k1")
        requests.append({"op": "jwt", "token": token, "jwk": jwk, "now": now, "leeway": leeway,
                         "audience": expected_audience})
        expected.append(("jwt", (token, verify_key, algorithm, leeway, expected_audience)))
    return requests, expected


KID_VARIANTS = [("k1", True), ("k2", True), (None, False), (1, True), (None, True), (["k1"], True), ({"k": "k1"}, True),
                (True, True), ("", True)]
AUD_VARIANTS = ["client-1", ["client-1", "other"], ["other"], "other", None, "", [], 7, ["client-1", 7], {"a": 1}]


def kid_aud_cases(rng, count, keys, now):
    """Tokens whose header kid and claim aud vary; checked against a one-key JWKS (kid k1)
    with an expected audience or none (explicit opt-out)."""
    requests, expected = [], []
    for _ in range(count):
        algorithm = rng.choice(["RS256", "ES256"])
        key = keys.pick(rng, algorithm)
        kid, has_kid = rng.choice(KID_VARIANTS)
        aud = rng.choice(AUD_VARIANTS)
        claims = {"iss": "https://issuer.example", "sub": "user-1", "exp": int(now) + 3600}
        if aud is not None:
            claims["aud"] = aud
        header = {"alg": algorithm, "typ": "JWT"}
        if has_kid:
            header["kid"] = kid
        token = sign_raw(header, claims, key, algorithm)
        # A malformed aud is only paired with an expected audience: PyJWT does not look at
        # aud at all when told not to verify it, while MultiAuth still type-checks the claim.
        aud_well_typed = aud is None or isinstance(aud, str) or (isinstance(aud, list) and all(isinstance(a, str) for a in aud))
        audience = "client-1" if (rng.random() < 0.6 or not aud_well_typed) else None
        request = {"op": "jwt", "token": token, "jwk": Keys.jwk(key, "k1"), "now": now, "leeway": 0}
        if audience is None:
            request["any_audience"] = True
        else:
            request["audience"] = audience
        requests.append(request)
        expected.append(("jwks", (token, key, algorithm, audience)))
    return requests, expected


def peer_jwks_valid(token, key, algorithm, audience):
    """PyJWT with PyJWKClient-style key selection: the header's kid must name the set's key."""
    try:
        header = jwt.get_unverified_header(token)  # refuses a kid that is not a string
        if "kid" in header and header["kid"] != "k1":
            return False
        options = {} if audience is not None else {"verify_aud": False}
        jwt.decode(token, key.public_key(), algorithms=[algorithm], audience=audience, options=options)
        return True
    except (jwt.PyJWTError, ValueError, TypeError):
        return False


def high_s_cases(rng, count, keys, now):
    """Valid ES256 tokens with the signature's s in its high form."""
    requests, expected = [], []
    for _ in range(count):
        key = keys.pick(rng, "ES256")
        claims = {"sub": "user-1", "aud": "client-1", "exp": int(now) + 3600}
        token = es256_with_s(jwt.encode(claims, key, algorithm="ES256", headers={"kid": "k1"}), high=True)
        requests.append({"op": "jwt", "token": token, "jwk": Keys.jwk(key, "k1"), "now": now, "leeway": 0, "audience": "client-1"})
        expected.append(("high_s", (token, key)))
    return requests, expected


def peer_jwt_valid(token, verify_key, algorithm, leeway, audience):
    try:
        jwt.decode(token, verify_key.public_key(), algorithms=[algorithm], audience=audience, leeway=leeway)
        return True
    except jwt.PyJWTError:
        return False
    except (ValueError, TypeError):
        return False


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=int(os.environ.get("CROSSCHECK_SEED", "20240601")))
    parser.add_argument("--cases", type=int, default=3000, help="TOTP cases; other kinds scale from it")
    parser.add_argument("--binary", help="path to a built MultiAuthCrossCheck (default: swift run)")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    now = time.time()

    totp_req, totp_exp = totp_cases(rng, args.cases)
    verify_req, verify_exp = verify_cases(rng, args.cases // 2)
    uri_req, uri_exp = uri_cases(rng, args.cases // 2)
    keys = Keys()
    jwt_req, jwt_exp = jwt_cases(rng, args.cases // 3, keys, now)
    label_req, label_exp = label_cases()
    steam_req, steam_exp = steam_cases(rng, args.cases // 3)
    kid_aud_req, kid_aud_exp = kid_aud_cases(rng, args.cases // 3, keys, now)
    high_s_req, high_s_exp = high_s_cases(rng, max(10, args.cases // 50), keys, now)

    kinds = [("totp", totp_req, totp_exp), ("totp verify ±1", verify_req, verify_exp),
             ("otpauth uri", uri_req, uri_exp), ("otpauth labels", label_req, label_exp),
             ("steam guard", steam_req, steam_exp), ("jwt", jwt_req, jwt_exp), ("jwt kid/aud", kid_aud_req, kid_aud_exp),
             ("es256 high-S", high_s_req, high_s_exp)]
    requests = []
    for _, reqs, _ in kinds:
        for request in reqs:
            request["id"] = len(requests)
            requests.append(request)

    command = [args.binary] if args.binary else ["swift", "run", "-c", "debug", "--package-path", ROOT, "MultiAuthCrossCheck"]
    stdin = "".join(json.dumps(r) + "\n" for r in requests)
    result = subprocess.run(command, input=stdin, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        sys.stderr.write(result.stderr)
        sys.exit("MultiAuthCrossCheck exited with %d" % result.returncode)
    answers = {}
    for line in result.stdout.splitlines():
        if not line.startswith("{"):
            continue  # build progress that `swift run` may print before the program starts
        answer = json.loads(line)
        answers[answer["id"]] = answer

    failures = 0
    peer_differences = []
    for name, reqs, exps in kinds:
        agree = 0
        accepted = 0
        for request, (kind, value) in zip(reqs, exps):
            ours = answers.get(request["id"], {"error": "no answer"})
            if kind == "code":
                peer, mine = value, ours.get("code", ours)
            elif kind == "valid":
                peer, mine = value, ours.get("valid", ours)
            elif kind == "fields":
                peer = dict(value)
                if "error" in peer:
                    mine = {"error": ours.get("error")}
                else:
                    mine = {k: ours.get(k) for k in peer} if "error" not in ours else ours
            elif kind == "encoder":
                peer, mine = value, ours.get("encoder", ours)
            elif kind == "label":
                uri, issuer, account, reason = value
                peer = {"issuer": issuer, "account": account}
                mine = {k: ours.get(k) for k in peer} if "error" not in ours else ours
                theirs = peer_label(uri)
                if reason is None and theirs != peer:
                    mine = dict(mine, pyotp=theirs)  # pyotp must agree here: count it as a failure
                elif reason is not None:
                    peer_differences.append("  %s\n    ours:  %s\n    pyotp: %s\n    why:   %s" % (
                        uri, json.dumps(peer, ensure_ascii=False), json.dumps(theirs, ensure_ascii=False), reason))
            elif kind == "peer_parse":
                uri = ours.get("uri")
                try:
                    parsed = peer_parse(uri) if uri else {"error": ours}
                except ValueError as error:
                    parsed = {"error": str(error)}
                peer, mine = dict(value), parsed
                request = dict(request, uri=uri)
            elif kind == "jwks":
                peer, mine = peer_jwks_valid(*value), ours.get("valid", ours)
            elif kind == "high_s":
                token, key = value
                accepted_by_pyjwt = peer_jwks_valid(token, key, "ES256", "client-1")
                # Both sides accept the high-S encoding (it must verify in PyJWT too).
                peer, mine = (True, True), (accepted_by_pyjwt, ours.get("valid", ours))
            else:
                peer, mine = peer_jwt_valid(*value), ours.get("valid", ours)
            if peer == mine:
                agree += 1
                accepted += peer is True
            else:
                failures += 1
                if failures <= 10:
                    print("DISAGREE %s\n  input: %s\n  peer:  %s\n  ours:  %s" % (name, json.dumps(request, ensure_ascii=False),
                                                                            json.dumps(peer, ensure_ascii=False),
                                                                            json.dumps(mine, ensure_ascii=False)))
        detail = " (%d accepted, %d rejected by both)" % (accepted, agree - accepted) if name in ("totp verify ±1", "jwt", "jwt kid/aud") else ""
        if name == "otpauth uri":
            detail = " (pyotp-built URIs with a ':' in a name: %d, of which %d have no literal ':' in the label " \
                     "and expect the Key URI Format's split at %%3A)" % (COLON_NAMES["with ':'"], COLON_NAMES["no literal ':' in the label"])
        print("%s: %d/%d agree%s" % (name, agree, len(reqs), detail))
    if peer_differences:
        print("otpauth labels where pyotp differs (documented in Docs/Standards.md; ours is the Key URI Format's answer):")
        print("\n".join(peer_differences))
    if failures:
        print("cross-check FAILED: %d disagreement(s) (seed %d)" % (failures, args.seed))
        sys.exit(1)
    print("cross-check passed (seed %d)" % args.seed)


if __name__ == "__main__":
    main()
