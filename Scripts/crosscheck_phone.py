#!/usr/bin/env python3
"""Cross-checks MultiAuth's PhoneNumber parser against libphonenumber (PyPI `phonenumbers`).

For the example number of every number type of every region (and of every non-geographic
calling code), our E.164 output must equal phonenumbers' for the number written:
  - in international format ("+44 20 7946 0958"), without a default region;
  - in E.164 ("+442079460958"), without a default region;
  - in national format ("020 7946 0958"), with the region as default region.
The B31 inputs of Docs/Cases.md are checked against their expected E.164 too.
Two fixed groups (Docs/Standards.md):
  - extensions ("x28", "ext. 123", ";ext=123", "#123"): phonenumbers splits them off, MultiAuth
    refuses them with reason extensionNotSupported (by design: a sign-in number has no
    extension); the number before the extension must parse to the same E.164 on both sides;
  - Mexico's retired "+52 1" mobile form: phonenumbers 9 keeps the 1, so the number is
    TOO_LONG (is_possible_number_with_reason); MultiAuth refuses it as tooLong.
A third group: "(group) digits" typed with a default region (fixed cases such as
"(20) 98683078" in HU, and seeded random ones over 18 regions). With a default region a
parenthesised group is national, never a guessed calling code (Docs/Standards.md, "Phone
numbers: a default region never guesses a calling code"): our answer must be an error or a
number of the default region's calling code, and phonenumbers' E.164 whenever it calls the
number valid.

Our parser runs as one `MultiAuthPhoneCheck` process (JSON lines on stdin/stdout).

Usage:
    python3 -m pip install -r Scripts/requirements-dev.txt
    swift build --product MultiAuthPhoneCheck
    python3 Scripts/crosscheck_phone.py [--binary PATH] [--threshold 99.0] [--verbose]

Prints `phone: N/M agree (xx.x %)` and each disagreement; exits 1 below the threshold
(or if any B31 case fails), 2 if the checker cannot run.
"""
import argparse
import json
import os
import random
import re
import subprocess
import sys

import phonenumbers
from phonenumbers import PhoneMetadata, PhoneNumberFormat, PhoneNumberType

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

NUMBER_TYPES = [
    PhoneNumberType.FIXED_LINE, PhoneNumberType.MOBILE, PhoneNumberType.TOLL_FREE,
    PhoneNumberType.PREMIUM_RATE, PhoneNumberType.SHARED_COST, PhoneNumberType.VOIP,
    PhoneNumberType.PERSONAL_NUMBER, PhoneNumberType.PAGER, PhoneNumberType.UAN,
    PhoneNumberType.VOICEMAIL,
]

# Docs/Cases.md, B31: input -> expected E.164, no default region.
B31 = [
    ("+44 (0) 20 7946 0958", "+442079460958"),
    ("+44 0161 496 0000", "+441614960000"),
    ("(44) 0161 496 0000", "+441614960000"),
    ("+49 (0) 30 5555 0100", "+493055550100"),
    ("+39 06 5555 0100", "+390655550100"),
    ("(+44) 07700 900123", "+447700900123"),
]


# "(group) digits" with a default region: a parenthesised group is an area code there.
PAREN_FIXED = [
    ("(20) 98683078", "HU"), ("(44) 0161 496 0000", "US"), ("(91) 98765 43210", "US"),
    ("(1) 650 253 0000", "GB"), ("(36) 20 986 8307", "HU"), ("(020) 7946 0958", "GB"),
    ("(212) 555-1234", "US"), ("(49) 30 5555 0100", "FR"), ("(33) 1 23 45 67 89", "DE"),
    ("(7) 912 345 67 89", "IN"), ("(55) 1234 5678", "MX"), ("(0) 30 5555 0100", "DE"),
]
PAREN_REGIONS = ["US", "GB", "HU", "DE", "FR", "IN", "BR", "MX", "IT", "ES", "NL", "RU", "JP", "CN", "AU",
                 "ZA", "NG", "EG"]


def paren_cases(seed=20261201, count=1800):
    """(input, region) pairs: the fixed ones, then seeded random "(1-3 digits) 6-10 digits"."""
    rng = random.Random(seed)
    cases = list(PAREN_FIXED)
    for _ in range(count):
        group = "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 3)))
        rest = "".join(rng.choice("0123456789") for _ in range(rng.randint(6, 10)))
        cases.append(("(%s) %s" % (group, rest), rng.choice(PAREN_REGIONS)))
    return cases


def paren_verdict(text, region, answer):
    """None when our answer is acceptable, else why not."""
    ours = answer.get("e164")
    code = "+%d" % phonenumbers.country_code_for_region(region)
    try:
        number = phonenumbers.parse(text, region)
        theirs = phonenumbers.format_number(number, PhoneNumberFormat.E164)
        valid = phonenumbers.is_valid_number(number)
    except phonenumbers.NumberParseException:
        theirs, valid = None, False
    digits = "".join(ch for ch in text if ch.isdigit())
    prefix = PhoneMetadata.metadata_for_region(region).international_prefix or "00"
    if digits.startswith("00") or re.match("(?:%s)" % prefix, digits):
        # Dialled with an exit prefix ("00" everywhere, or the region's own, e.g. Mexico's 09):
        # an international number, so another calling code is what was typed.
        return None
    if ours is not None and not ours.startswith(code):
        return f"another country: {ours} (default region {region} is {code}; phonenumbers {theirs})"
    if valid and ours != theirs:
        return f"phonenumbers calls {theirs} valid, ours {ours or answer.get('error')}"
    return None


EXTENSIONS = [
    "+1 650 253 0000 x28", "+1 650 253 0000x28", "+1 650 253 0000 ext. 123", "+1 650 253 0000 ext 123",
    "+1-650-253-0000;ext=123", "+1 650 253 0000 #123", "+44 20 7946 0958 extn 5", "+44 20 7946 0958, ext. 12",
]
LEGACY_MX = ["+52 1 55 1234 5678", "+5215512345678", "+521 81 1234 5678", "+52 1 222 123 4567"]


def fixed_cases():
    """(label, input, expected answer) for the extension and +52 1 groups, from phonenumbers."""
    cases = []
    for text in EXTENSIONS:
        number = phonenumbers.parse(text, None)
        assert number.extension, text
        main_number = phonenumbers.format_number(number, PhoneNumberFormat.E164)
        cases.append(("extension", text, {"error": "extensionNotSupported"}))
        # The input without its extension: drop the digits, then the marker's characters.
        alone = text[:len(text) - len(number.extension)].rstrip(" .#;=extnsioEXTx,")
        cases.append(("extension (number alone)", alone,
                      {"e164": main_number}))
    for text in LEGACY_MX:
        number = phonenumbers.parse(text, None)
        reason = phonenumbers.is_possible_number_with_reason(number)
        expected = {"error": "tooLong"} if reason == phonenumbers.ValidationResult.TOO_LONG else {
            "e164": phonenumbers.format_number(number, PhoneNumberFormat.E164)}
        cases.append(("+52 1", text, expected))
    return cases


def example_numbers():
    """Yields (label, number) for every example number in the metadata."""
    for region in sorted(phonenumbers.SUPPORTED_REGIONS):
        for number_type in NUMBER_TYPES:
            number = phonenumbers.example_number_for_type(region, number_type)
            if number is not None:
                yield region, number_type, number
    for code in sorted(phonenumbers.COUNTRY_CODES_FOR_NON_GEO_REGIONS):
        metadata = PhoneMetadata.metadata_for_nongeo_region(code)
        for number_type in NUMBER_TYPES:
            desc = phonenumbers.phonenumberutil._number_desc_by_type(metadata, number_type)
            if desc is not None and desc.example_number:
                yield "001", number_type, phonenumbers.parse("+%d%s" % (code, desc.example_number))


def build_cases():
    cases = []  # (label, input, default region, expected e164, expected region or "")
    for region, number_type, number in example_numbers():
        expected = phonenumbers.format_number(number, PhoneNumberFormat.E164)
        expected_region = phonenumbers.region_code_for_number(number)
        type_name = PhoneNumberType.to_string(number_type)
        forms = [
            ("international", phonenumbers.format_number(number, PhoneNumberFormat.INTERNATIONAL), None),
            ("e164", expected, None),
        ]
        if region != "001":
            forms.append(("national", phonenumbers.format_number(number, PhoneNumberFormat.NATIONAL), region))
        for form, text, default_region in forms:
            label = f"{region} {type_name} {form}"
            cases.append((label, text, default_region, expected, expected_region))
    for text, expected in B31:
        cases.append(("B31", text, None, expected, None))
    return cases


def run_checker(binary, cases):
    payload = "".join(json.dumps({"input": text, "region": region}) + "\n" for _, text, region, _, _ in cases)
    result = subprocess.run([binary], input=payload, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        print(f"phone: checker exited with {result.returncode}: {result.stderr.strip()}", file=sys.stderr)
        sys.exit(2)
    lines = result.stdout.splitlines()
    if len(lines) != len(cases):
        print(f"phone: checker answered {len(lines)} lines for {len(cases)} cases", file=sys.stderr)
        sys.exit(2)
    return [json.loads(line) for line in lines]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "MultiAuthPhoneCheck"))
    parser.add_argument("--threshold", type=float, default=99.0, help="minimum agreement in percent")
    parser.add_argument("--verbose", action="store_true", help="also list region-detection differences")
    args = parser.parse_args()
    if not os.path.exists(args.binary):
        print(f"phone: {args.binary} not found; run `swift build --product MultiAuthPhoneCheck`", file=sys.stderr)
        return 2

    cases = build_cases()
    fixed = fixed_cases()
    parens = paren_cases()
    answers = run_checker(args.binary, cases + [(label, text, None, None, None) for label, text, _ in fixed]
                          + [("paren", text, region, None, None) for text, region in parens])
    paren_answers = answers[len(cases) + len(fixed):]
    fixed_answers = answers[len(cases):len(cases) + len(fixed)]
    answers = answers[:len(cases)]
    agree = 0
    region_agree = 0
    region_total = 0
    failures = []
    region_differences = []
    b31_failed = False
    for (label, text, default_region, expected, expected_region), answer in zip(cases, answers):
        got = answer.get("e164")
        if got == expected:
            agree += 1
        else:
            failures.append(f"  {label}: {text!r} (region {default_region}) -> "
                            f"{got or 'error ' + str(answer.get('error'))}, expected {expected}")
            if label == "B31":
                b31_failed = True
        if label != "B31" and got == expected:
            region_total += 1
            if answer.get("region") == (expected_region if expected_region != "001" else None):
                region_agree += 1
            else:
                region_differences.append(f"  {label}: {text!r} -> region {answer.get('region')}, "
                                          f"phonenumbers says {expected_region}")

    total = len(cases)
    percent = 100.0 * agree / total if total else 0.0
    print(f"phonenumbers {phonenumbers.__version__}")
    print(f"phone: {agree}/{total} agree ({percent:.1f} %)")
    if region_total:
        print(f"phone regions: {region_agree}/{region_total} agree ({100.0 * region_agree / region_total:.1f} %)")
    if failures:
        print("disagreements:")
        print("\n".join(failures))
    if region_differences and args.verbose:
        print("region differences:")
        print("\n".join(region_differences))
    fixed_failures = []
    for (label, text, expected), answer in zip(fixed, fixed_answers):
        got = {key: answer.get(key) for key in expected}
        if got != expected:
            fixed_failures.append(f"  {label}: {text!r} -> {answer}, expected {expected}")
    print(f"phone extensions and +52 1: {len(fixed) - len(fixed_failures)}/{len(fixed)} as expected")
    if fixed_failures:
        print("\n".join(fixed_failures))
        print("phone: an extension or +52 1 case failed", file=sys.stderr)
        return 1
    paren_failures = []
    paren_valid = 0
    for (text, region), answer in zip(parens, paren_answers):
        verdict = paren_verdict(text, region, answer)
        paren_valid += answer.get("e164") is not None
        if verdict:
            paren_failures.append(f"  {text!r} (region {region}): {verdict}")
    print(f"phone (group) digits with a default region: {len(parens) - len(paren_failures)}/{len(parens)} "
          f"stay in the region ({paren_valid} parsed, {len(parens) - paren_valid} refused)")
    if paren_failures:
        print("\n".join(paren_failures[:20]))
        print("phone: a parenthesised group left the default region", file=sys.stderr)
        return 1
    if b31_failed:
        print("phone: a B31 case failed", file=sys.stderr)
        return 1
    if percent < args.threshold:
        print(f"phone: agreement below {args.threshold} %", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
