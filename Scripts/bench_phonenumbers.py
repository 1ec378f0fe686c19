#!/usr/bin/env python3
"""python `phonenumbers` parsing the bench's inputs: the peer of multiauth-bench's phone row.

The bench passes its inputs (`--inputs`, a JSON list of [text, region or null]). Each operation
does what PhoneNumber(_:defaultRegion:) does for one input, cycling through them: parse (calling
code, trunk prefix, length checks), the region, the E.164 string. Modes: see bench_peer.py.
Usage: python3 Scripts/bench_phonenumbers.py --inputs JSON [--serve | --count N]
"""
import argparse
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import bench_peer  # noqa: E402

import phonenumbers  # noqa: E402


def setup(args):
    inputs = json.loads(args.inputs)
    # Warm the library's lazily loaded metadata for every region the inputs touch.
    for text, region in inputs:
        phonenumbers.region_code_for_number(phonenumbers.parse(text, region))

    def operation(count):
        total = 0
        n = len(inputs)
        for i in range(count):
            text, region = inputs[i % n]
            number = phonenumbers.parse(text, region)
            e164 = phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)
            found = phonenumbers.region_code_for_number(number)
            total += len(e164) + len(found or "")
        return total

    return operation


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--inputs", required=True)
    bench_peer.run(parser, setup, "phonenumbers", phonenumbers.__version__)
