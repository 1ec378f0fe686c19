#!/usr/bin/env python3
"""Writes Tests/Fixtures/Phone/identity-values.json: phone identity values in the forms an
identity provider reports (WhatsApp ids: calling code and national digits, no "+"), each with
libphonenumber's verdict, for OTPlessSessionMappingTests (Docs/Providers/OTPless.md, "Session
mapping").

For the example mobile (and fixed-line) number of every region it writes:
  - the digits of the E.164 form without "+" (what WhatsApp ids carry);
  - the calling code followed by the national format's digits, which keep the trunk prefix and
    legacy mobile tokens where a country dials them (Argentina's "15", a "0" trunk prefix);
  - the national format with carrier codes libphonenumber knows (Brazil, Colombia);
plus fixed legacy cases: Mexico's retired "52 1", Argentina's "54 9"/"54 … 15", and values no
parser should read as a number.

Each entry carries libphonenumber's verdict on `phonenumbers.parse("+" + value)`:
  - "valid": the number is valid; `e164` is libphonenumber's E.164 form, which the session's
    `user.phone` must equal;
  - "invalid": it parses but is not a valid number (`e164` is what the parse gave); our parser
    checks possible lengths only, so it may accept such a number, or refuse it and keep the hint;
  - "refused": the parse fails; the session has no phone and keeps the raw value as a hint. libphonenumber (PyPI `phonenumbers`) is a reference peer for tests and
scripts only, never a runtime dependency.

Usage:
    python3 -m pip install -r Scripts/requirements-dev.txt
    python3 Scripts/generate_identity_phone_fixture.py [--check]

--check exits 1 when the committed file differs from what this script would write.
"""
import argparse
import json
import os
import re
import sys

import phonenumbers
from phonenumbers import PhoneNumberFormat, PhoneNumberType

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUTPUT = os.path.join(ROOT, "Tests", "Fixtures", "Phone", "identity-values.json")

FIXED = [
    "5215512345678",      # Mexico's retired mobile "1": WhatsApp ids still carry it
    "525512345678",       # the same number today
    "5491123456789",      # Argentina's mobile "9"
    "54111523456789",     # Argentina national dialling: area code 11, then the "15" mobile token
    "540111523456789",    # the same with the trunk "0"
    "4407911123456",      # UK mobile with the trunk "0" kept after the calling code
    "5501511912345678",   # Brazil: trunk "0", carrier "15", area code, number
    "919876543210",       # India
    "00012",              # not a number
    "12",                 # too short
    "999123456789",       # unassigned calling code
]


def digits(text):
    return re.sub(r"\D", "", text)


def verdict(value):
    try:
        number = phonenumbers.parse("+" + value, None)
    except phonenumbers.NumberParseException:
        return {"value": value, "verdict": "refused", "e164": None}
    e164 = phonenumbers.format_number(number, PhoneNumberFormat.E164)
    kind = "valid" if phonenumbers.is_valid_number(number) else "invalid"
    return {"value": value, "verdict": kind, "e164": e164}


def values():
    seen = set()
    for value in FIXED:
        seen.add(value)
        yield value
    for region in sorted(phonenumbers.SUPPORTED_REGIONS):
        for kind in (PhoneNumberType.MOBILE, PhoneNumberType.FIXED_LINE):
            number = phonenumbers.example_number_for_type(region, kind)
            if number is None:
                continue
            code = str(number.country_code)
            forms = [
                digits(phonenumbers.format_number(number, PhoneNumberFormat.E164)),
                code + digits(phonenumbers.format_number(number, PhoneNumberFormat.NATIONAL)),
            ]
            for carrier in ("15", "21", "03", "09"):
                formatted = phonenumbers.format_national_number_with_carrier_code(number, carrier)
                if formatted:
                    forms.append(code + digits(formatted))
            for form in forms:
                if form not in seen:
                    seen.add(form)
                    yield form


def build():
    entries = [verdict(value) for value in values()]
    return {
        "source": "phonenumbers %s (libphonenumber metadata); Scripts/generate_identity_phone_fixture.py"
        % phonenumbers.__version__,
        "entries": entries,
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--check", action="store_true")
    arguments = parser.parse_args()
    text = json.dumps(build(), indent=1, sort_keys=True) + "\n"
    if arguments.check:
        with open(OUTPUT, encoding="utf-8") as handle:
            if handle.read() != text:
                print("identity-values.json is stale: run python3 Scripts/generate_identity_phone_fixture.py")
                return 1
        print("identity-values.json matches phonenumbers %s" % phonenumbers.__version__)
        return 0
    os.makedirs(os.path.dirname(OUTPUT), exist_ok=True)
    with open(OUTPUT, "w", encoding="utf-8") as handle:
        handle.write(text)
    data = json.loads(text)
    counts = {}
    for entry in data["entries"]:
        counts[entry["verdict"]] = counts.get(entry["verdict"], 0) + 1
    print("wrote %d values: %s" % (len(data["entries"]), ", ".join("%d %s" % (n, k) for k, n in sorted(counts.items()))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
