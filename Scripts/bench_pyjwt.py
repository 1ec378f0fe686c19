#!/usr/bin/env python3
"""PyJWT verifying the bench's tokens: the peer of multiauth-bench's JWT rows.

The bench passes a fixture on the command line (`--fixture-json`, JSON: a JWKS with RSA and
P-256 keys among decoys, an RS256 and an ES256 token, issuer, audience; `--fixture FILE` reads
the same JSON from a file). Each operation does what JWKSCache.verify does:
read the token's `kid`, take that key from the parsed key set, verify the signature and the
claims (exp, nbf, iss, aud; 60 s leeway). Modes: see bench_peer.py.
Usage: python3 Scripts/bench_pyjwt.py (--fixture-json JSON | --fixture FILE) --algorithm RS256|ES256
       [--serve | --count N]
"""
import argparse
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import bench_peer  # noqa: E402

import jwt  # noqa: E402


def setup(args):
    text = args.fixture_json if args.fixture_json is not None else pathlib.Path(args.fixture).read_text()
    fixture = json.loads(text)
    keys = jwt.PyJWKSet.from_json(fixture["jwks"])
    token = fixture[args.algorithm]
    algorithm = args.algorithm
    issuer, audience = fixture["issuer"], fixture["audience"]

    def operation(count):
        for _ in range(count):
            kid = jwt.get_unverified_header(token)["kid"]
            key = keys[kid]
            claims = jwt.decode(token, key.key, algorithms=[algorithm], audience=audience, issuer=issuer, leeway=60)
            if claims["sub"] != "user-1":
                raise SystemExit("unexpected claims")

    return operation


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--fixture-json")
    source.add_argument("--fixture")
    parser.add_argument("--algorithm", choices=["RS256", "ES256"], required=True)
    bench_peer.run(parser, setup, "PyJWT", jwt.__version__)
