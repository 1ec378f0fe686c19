#!/usr/bin/env python3
"""Measures pyotp's TOTP verification with a ±1 window, the peer figure for multiauth-bench.

Same inputs as `multiauth-bench` (key "12345678901234567890", SHA-1, 6 digits, 30 s,
t = 1234567890 and +1): prints the median nanoseconds per verification over 5 repeats.
Usage: python3 Scripts/bench_pyotp.py [--iterations N]
"""
import argparse
import base64
import statistics
import time

import pyotp


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--iterations", type=int, default=50_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    secret = base64.b32encode(b"12345678901234567890").decode()
    totp = pyotp.TOTP(secret)
    t = 1234567890
    code = totp.at(t)
    samples = []
    for _ in range(args.repeats):
        start = time.perf_counter_ns()
        for i in range(args.iterations):
            assert totp.verify(code, for_time=t + (i & 1), valid_window=1)
        samples.append((time.perf_counter_ns() - start) / args.iterations)
    median = statistics.median(samples)
    print(f"pyotp {pyotp.__version__ if hasattr(pyotp, '__version__') else ''} verify ±1 window: {median:.0f} ns/op "
          f"({1e9 / median:.0f}/s), median of {args.repeats} × {args.iterations}")


if __name__ == "__main__":
    main()
