#!/usr/bin/env python3
"""Cross-checks MultiAuth's EmailAddress domain rules against email-validator and idna (PyPI).

Focus: internationalized domain labels (RFC 5890/5891, Punycode RFC 3492). Cases:
  - the fixed cases of Docs/Standards.md (xn--a.com, ex--ample.com, ...);
  - A-labels made by Python's own Punycode codec from random U-labels in many scripts;
  - random "xn--" payloads and random ASCII labels with hyphens;
  - Unicode (U-label) domains, which MultiAuth refuses by design.

Each address is "valid" or "refused" on both sides (email-validator with
check_deliverability=False; its IDNA check is the idna package). Every disagreement must fall
into a category where the difference is known and documented in Docs/Standards.md
("E-mail domains"); the script prints the counts per category and exits 1 on any other.

Our side runs as one `MultiAuthPhoneCheck` process ({"email": ...} JSON lines).

Usage:
    python3 -m pip install -r Scripts/requirements-dev.txt
    swift build --product MultiAuthPhoneCheck
    python3 Scripts/crosscheck_email.py [--binary PATH] [--seed N] [--cases N]
"""
import argparse
import json
import os
import random
import subprocess
import sys
from collections import Counter

import email_validator
import idna
from email_validator import EmailNotValidError, validate_email

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (address, expected: True = valid, False = refused) — both sides must give this answer.
FIXED = [
    ("user@xn--a.com", False),            # decodes to U+0080, a control character
    ("user@ex--ample.com", False),        # '--' in positions 3-4 without 'xn'
    ("user@ab--cd.com", False),
    ("user@xn--abc.com", False),          # U+0082 U+0081 U+0080
    ("user@xn--zz.com", False),           # truncated Punycode
    ("user@xn--ss-bb.com", False),
    ("user@xn--ls8h.la", False),          # an emoji: a symbol, not a letter
    ("user@xn--1ch.com", False),          # U+2260 NOT EQUAL TO
    ("user@xn--.com", False),
    ("user@xn--abc-.com", False),
    ("user@xn--bcher-kva.example", True),  # bücher
    ("user@XN--BCHER-KVA.example", True),
    ("user@xn--mnchen-3ya.de", True),     # münchen
    ("user@example.xn--p1ai", True),      # .рф
    ("user@xn--80ak6aa92e.xn--p1ai", True),
    ("user@xn--fiq228c.com", True),       # 中文
    ("user@xn--nxasmq6b.com", True),      # βόλοσ
    ("user@a-b--c.example", True),
    ("User.Name+OTP@Example.COM", True),
    # Invisible format characters (Unicode Cf), as pasted from chat apps: refused anywhere, never
    # trimmed (Docs/Security.md, "Identity input").
    ("\u200buser@example.com", False),       # zero-width space first
    ("user@example.com\ufeff", False),       # byte-order mark last
    ("us\u200ber@example.com", False),
    ("user@exa\u2060mple.com", False),       # word joiner in the domain
    ("\u200euser@example.com", False),       # left-to-right mark
]

SCRIPTS = [(0xE0, 0xFF), (0x3B1, 0x3C9), (0x430, 0x44F), (0x4E00, 0x4FFF), (0x627, 0x64A), (0x905, 0x939),
           (0x5D0, 0x5EA), (0x3041, 0x3096), (0xAC00, 0xAD00), (0x660, 0x669), (0x6F0, 0x6F9), (0x300, 0x36F),
           (0x80, 0x2FFF), (0x2000, 0x2BFF), (0x10000, 0x1FFFF)]


def generated_cases(rng, count):
    cases = []
    while len(cases) < count:
        kind = rng.random()
        if kind < 0.55:
            low, high = rng.choice(SCRIPTS)
            text = "".join(chr(rng.randint(low, high)) for _ in range(rng.randint(1, 6)))
            if rng.random() < 0.3:
                text = "ab" + text
            try:
                label = "xn--" + text.encode("punycode").decode()
            except UnicodeError:
                continue
        elif kind < 0.9:
            label = "xn--" + "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789-") for _ in range(rng.randint(1, 10)))
        else:
            label = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789-") for _ in range(rng.randint(4, 8)))
        if len(label) <= 63:
            cases.append("user@%s.com" % label)
    return cases


def peer(address):
    """(valid, message) from email-validator."""
    try:
        validate_email(address, check_deliverability=False)
        return True, ""
    except EmailNotValidError as error:
        return False, str(error)


def category(address, ours_valid, peer_message):
    """The documented reason for a disagreement, or None."""
    domain = address.rsplit("@", 1)[-1]
    if any(ord(c) > 127 for c in domain):
        return "by design: MultiAuth refuses Unicode (U-label) domains; give the xn-- form"
    labels = domain.lower().split(".")
    if not ours_valid and any(label.startswith("xn---") for label in labels):
        return "peer lenient: Punycode with a leading delimiter ('xn---…'), which RFC 3492 §6.2 fails"
    if ours_valid and ("direction" in peer_message or "directionality" in peer_message):
        return "not implemented by MultiAuth: the RFC 5893 Bidi rule"
    if ours_valid and "context" in peer_message.lower():
        return "not implemented by MultiAuth: RFC 5892 contextual rules"
    if not ours_valid:
        for label in labels:
            if label.startswith("xn--"):
                try:
                    decoded = label[4:].encode().decode("punycode")
                except UnicodeError:
                    continue
                if any(0x13A0 <= ord(c) <= 0x13F5 for c in decoded):
                    return ("Unicode version: Cherokee capitals fold to lower case since Unicode 8.0 "
                            "(MultiAuth refuses, idna's tables keep them PVALID)")
    return None


def run_ours(binary, addresses):
    payload = "".join(json.dumps({"email": address}) + "\n" for address in addresses)
    result = subprocess.run([binary], input=payload, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        print("email: checker exited with %d: %s" % (result.returncode, result.stderr.strip()), file=sys.stderr)
        sys.exit(2)
    answers = [json.loads(line) for line in result.stdout.splitlines()]
    if len(answers) != len(addresses):
        print("email: checker answered %d lines for %d cases" % (len(answers), len(addresses)), file=sys.stderr)
        sys.exit(2)
    return answers


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "MultiAuthPhoneCheck"))
    parser.add_argument("--seed", type=int, default=int(os.environ.get("CROSSCHECK_SEED", "20240601")))
    parser.add_argument("--cases", type=int, default=6000)
    args = parser.parse_args()
    if not os.path.exists(args.binary):
        print("email: %s not found; run `swift build --product MultiAuthPhoneCheck`" % args.binary, file=sys.stderr)
        return 2
    rng = random.Random(args.seed)
    unicode_domains = ["user@münchen.de", "user@例え.jp", "user@bücher.example"]
    addresses = [address for address, _ in FIXED] + unicode_domains + generated_cases(rng, args.cases)
    answers = run_ours(args.binary, addresses)

    print("email-validator %s, idna %s" % (email_validator.__version__, idna.__version__))
    failures = []
    for (address, expected), answer in zip(FIXED, answers):
        ours_valid = "identityKey" in answer
        peer_valid, message = peer(address)
        if ours_valid != expected or peer_valid != expected:
            failures.append("  fixed %r: ours %s, peer %s, expected %s (%s%s)" % (
                address, ours_valid, peer_valid, expected, answer.get("message", ""), message))
    print("email fixed cases: %d/%d as expected on both sides" % (len(FIXED) - len(failures), len(FIXED)))

    agree = 0
    documented = Counter()
    examples = {}
    rest = list(zip(addresses[len(FIXED):], answers[len(FIXED):]))
    for address, answer in rest:
        ours_valid = "identityKey" in answer
        peer_valid, message = peer(address)
        if ours_valid == peer_valid:
            agree += 1
            continue
        reason = category(address, ours_valid, message)
        if reason is None:
            failures.append("  %r: ours %s (%s), peer %s (%s)" % (
                address, "valid" if ours_valid else "refused", answer.get("message", ""),
                "valid" if peer_valid else "refused", message))
        else:
            documented[reason] += 1
            examples.setdefault(reason, address)
    total = len(rest)
    print("email generated: %d/%d agree (%.1f %%), %d documented differences, %d unexplained" % (
        agree, total, 100.0 * agree / total, sum(documented.values()), total - agree - sum(documented.values())))
    for reason, count in documented.most_common():
        print("  %5d  %s  (e.g. %s)" % (count, reason, examples[reason]))
    if failures:
        print("disagreements without a documented reason:")
        print("\n".join(failures[:30]))
        print("email cross-check FAILED (seed %d)" % args.seed)
        return 1
    print("email cross-check passed (seed %d)" % args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
