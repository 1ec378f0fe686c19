#!/usr/bin/env python3
"""pyotp's TOTP verification with a ±1 window: the peer of multiauth-bench's TOTP row.

Same inputs as the bench (key "12345678901234567890", SHA-1, 6 digits, 30 s steps, the code
005924 verified at t = 1234567890 and 1234567891 alternately). Modes: see bench_peer.py.
Usage: python3 Scripts/bench_pyotp.py [--serve | --count N | --iterations N]
"""
import argparse
import base64
import importlib.metadata
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import bench_peer  # noqa: E402

import pyotp  # noqa: E402


def setup(_args):
    totp = pyotp.TOTP(base64.b32encode(b"12345678901234567890").decode())
    t = 1234567890
    code = totp.at(t)
    assert code == "005924"

    def operation(count):
        for i in range(count):
            if not totp.verify(code, for_time=t + (i & 1), valid_window=1):
                raise SystemExit("pyotp rejected the code")

    return operation


if __name__ == "__main__":
    bench_peer.run(argparse.ArgumentParser(description=__doc__), setup, "pyotp", importlib.metadata.version("pyotp"))
