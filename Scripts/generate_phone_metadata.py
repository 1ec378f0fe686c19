#!/usr/bin/env python3
"""Generates Sources/MultiAuth/Identity/PhoneMetadata+Table.swift from libphonenumber's
metadata, as carried by the PyPI package `phonenumbers` (pinned in Scripts/requirements-dev.txt).

Usage:
    python3 -m pip install -r Scripts/requirements-dev.txt
    python3 Scripts/generate_phone_metadata.py            # writes the Swift file
    python3 Scripts/generate_phone_metadata.py --check    # exits 1 if the file is stale

One line per territory (every geographic region plus the non-geographic calling codes),
fields separated by a single space, "~" for an empty field:

    region cc lengths localLengths nationalPrefix prefixForParsing transformRule idd leadingDigits general types

- region: ISO 3166-1 alpha-2 code, or "001" for a non-geographic calling code (e.g. +800).
  Lines of one calling code appear in libphonenumber's order: the main region first.
- lengths / localLengths: comma-separated possible national-number lengths (general
  description), and the lengths only dialable locally.
- nationalPrefix: the trunk prefix ("0", "1", "8", ...).
- prefixForParsing / transformRule: libphonenumber's national_prefix_for_parsing regex (only
  when it differs from nationalPrefix) and its transform rule ($1-style back-references).
- idd: the international (exit) prefix regex of the region.
- leadingDigits: regex identifying the region among those sharing a calling code.
- general: the general-description national-number regex.
- types: union of all number-type regexes; only for regions that share a calling code and
  have no leadingDigits (needed to tell e.g. US from CA).
"""
import os
import re
import sys

import phonenumbers
from phonenumbers import PhoneMetadata
from phonenumbers.phonenumberutil import COUNTRY_CODE_TO_REGION_CODE

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUTPUT = os.path.join(ROOT, "Sources", "MultiAuth", "Identity", "PhoneMetadata+Table.swift")

TYPE_FIELDS = [
    "premium_rate", "toll_free", "shared_cost", "voip", "personal_number", "pager", "uan",
    "voicemail", "fixed_line", "mobile",
]


def field(value):
    if value is None or value == "":
        return "~"
    if " " in value or "\n" in value or value == "~":
        raise SystemExit(f"unexpected character in metadata field: {value!r}")
    return value


def lengths(values):
    return ",".join(str(v) for v in sorted(values) if v > 0) or "~"


def compact(pattern):
    return re.sub(r"\s+", "", pattern) if pattern else pattern


def line(region, md, shared):
    general = md.general_desc
    nprefix = md.national_prefix
    parsing = compact(md.national_prefix_for_parsing)
    if parsing == nprefix:
        parsing = None
    transform = md.national_prefix_transform_rule
    if transform:
        transform = re.sub(r"\\(\d)", r"$\1", transform)
    leading = compact(md.leading_digits)
    types = None
    if shared and not leading:
        parts = []
        for name in TYPE_FIELDS:
            desc = getattr(md, name)
            if desc is not None and desc.national_number_pattern:
                parts.append("(?:" + compact(desc.national_number_pattern) + ")")
        types = "|".join(parts) or None
    return " ".join([
        region,
        str(md.country_code),
        lengths(general.possible_length),
        lengths(general.possible_length_local_only),
        field(nprefix),
        field(parsing),
        field(transform),
        field(compact(md.international_prefix)),
        field(leading),
        field(compact(general.national_number_pattern)),
        field(types),
    ])


def generate():
    lines = []
    for cc in sorted(COUNTRY_CODE_TO_REGION_CODE):
        regions = COUNTRY_CODE_TO_REGION_CODE[cc]
        shared = len(regions) > 1
        for region in regions:
            if region == "001":
                md = PhoneMetadata.metadata_for_nongeo_region(cc)
            else:
                md = PhoneMetadata.metadata_for_region(region)
            if md is None:
                raise SystemExit(f"no metadata for {region} (+{cc})")
            lines.append(line(region, md, shared))
    body = "\n".join(lines)
    if '"""#' in body:
        raise SystemExit("metadata contains the raw-string terminator")
    version = phonenumbers.__version__
    return f'''// swift-format-ignore-file
// GENERATED FILE - DO NOT EDIT. Regenerate with `python3 Scripts/generate_phone_metadata.py`.
//
// Source: libphonenumber's phone number metadata (PhoneNumberMetadata.xml), as carried by the
// PyPI package `phonenumbers` version {version}.
// Licence of the metadata: Apache License 2.0, Copyright (C) The Libphonenumber Authors.
// https://www.apache.org/licenses/LICENSE-2.0
//
// Format: see the docstring of Scripts/generate_phone_metadata.py. One line per territory,
// {len(lines)} lines; parsed lazily on first use by `PhoneMetadata`.

extension PhoneMetadata {{
    /// The version of the `phonenumbers` package the table was generated from.
    static let sourceVersion = "{version}"

    /// The raw table, one territory per line (see Scripts/generate_phone_metadata.py).
    static let rawTable: String = #"""
{body}
"""#
}}
'''


NOTICE = os.path.join(ROOT, "NOTICE")


def notice_names_version():
    """The NOTICE file attributes the metadata to the `phonenumbers` version it came from."""
    with open(NOTICE, encoding="utf-8") as handle:
        text = " ".join(handle.read().split())
    return f"version {phonenumbers.__version__}" in text and "libphonenumber" in text


def main():
    text = generate()
    if "--check" in sys.argv[1:]:
        with open(OUTPUT, encoding="utf-8") as handle:
            if handle.read() != text:
                print(f"{OUTPUT} is stale; run Scripts/generate_phone_metadata.py", file=sys.stderr)
                return 1
        if not notice_names_version():
            print(f"NOTICE does not attribute libphonenumber metadata from phonenumbers version "
                  f"{phonenumbers.__version__}; update NOTICE", file=sys.stderr)
            return 1
        print("phone metadata is up to date")
        return 0
    with open(OUTPUT, "w", encoding="utf-8") as handle:
        handle.write(text)
    print(f"wrote {OUTPUT} ({len(text)} bytes)")
    if not notice_names_version():
        print(f"note: update NOTICE to name phonenumbers version {phonenumbers.__version__}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
