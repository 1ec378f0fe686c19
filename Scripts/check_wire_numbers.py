#!/usr/bin/env python3
"""Refuses unchecked number conversions in the core and the adapters (Docs/Security.md,
"Numbers from the wire").

A server's number becomes a Swift value only through `WireNumber` (Sources/MultiAuth/Transport/
WireNumber.swift) or `Duration.interval`. Swift traps on `Int(1e300)`, `Int64(Double.nan)` and
`Duration.seconds(1e300)`, so in every core and adapter file this check refuses:

- an unlabeled integer conversion `Int(…)`, `Int8/16/32/64(…)`, `UInt…(…)` whose argument is not
  plainly an integer (an integer literal expression or a `.count`), and
- `.seconds(…)`, `.milliseconds(…)`, `.microseconds(…)`, `.nanoseconds(…)` whose argument is not
  an integer literal expression,

unless the call is listed in ALLOWED below with the reason its argument is not floating-point,
or its line (or the line above) carries `// wire-number: <reason>`. Labeled conversions
(`Int(exactly:)`, `clamping:`, `truncatingIfNeeded:`, `bitPattern:`, `ascii:`) never trap and
pass. A syntax check cannot see types, so it errs on the side of refusing: an integer argument
it cannot recognise needs its reason written down once.

    python3 Scripts/check_wire_numbers.py             check the tree (exit 1 on a finding)
    python3 Scripts/check_wire_numbers.py --self-test plant unchecked conversions, expect refusal
"""
import os
import re
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCOPE = [
    "Sources/MultiAuth", "Sources/MultiAuthHTTP", "Sources/MultiAuthOTPless", "Sources/MultiAuthDynamic",
    "Sources/MultiAuthTruecaller", "Sources/MultiAuthPortal",
]
# The checked helpers themselves.
HELPERS = {"Sources/MultiAuth/Transport/WireNumber.swift", "Sources/MultiAuth/Time/Duration+TimeInterval.swift"}

# (file, call text) -> why the argument is not a floating-point value.
ALLOWED = {
    ("Sources/MultiAuth/Identity/Character+ASCII.swift", "UInt8(value)"): "a Unicode scalar's UInt32 value, ASCII",
    ("Sources/MultiAuth/Identity/PhonePattern.swift", "UInt16($0)"): "an Int digit 0...9",
    ("Sources/MultiAuth/Identity/PhoneNumberParser.swift", "Int(digits)"): "a String of ASCII digits",
    ("Sources/MultiAuth/Identity/PhoneNumberParser.swift", "Int(digits.prefix(length))"): "a Substring",
    ("Sources/MultiAuth/Identity/Punycode.swift", "UInt32(byte)"): "a UInt8",
    ("Sources/MultiAuth/Identity/Punycode.swift", "Int(i)"): "a UInt32 index",
    ("Sources/MultiAuth/Identity/Punycode.swift", "UInt8($0)"): "a UInt32 below 0x80",
    ("Sources/MultiAuth/Session/FileSessionStore.swift", "Int(info.st_size)"): "stat's off_t (Int64)",
    ("Sources/MultiAuth/Session/FileSessionStore.swift", "Int(info.st_mode)"): "stat's mode_t (UInt32)",
    ("Sources/MultiAuth/Session/FileSessionStore.swift", "Int(S_IFMT)"): "a mode_t constant",
    ("Sources/MultiAuth/Session/FileSessionStore.swift", "Int(S_IFREG)"): "a mode_t constant",
    ("Sources/MultiAuth/Session/FileSessionStore.swift", "Int(S_IFDIR)"): "a mode_t constant",
    ("Sources/MultiAuth/Session/FileSessionStore.swift", "Int(S_ISVTX)"): "a mode_t constant",
    ("Sources/MultiAuthOTPless/Provider/OTPlessIntentPlan.swift", "Int(raw)"): "a String option",
    ("Sources/MultiAuthTruecaller/Errors/TruecallerWire+Errors.swift", "Int($0)"): "a String code",
    ("Sources/MultiAuth/Transport/HTTPResponse.swift",
     "Int64($0.trimmingCharacters(in: .whitespaces))"): "a String header value",
    ("Sources/MultiAuth/Identity/PhonePattern.swift", "UInt8(digits.randomElement(using: &random)!)"): "an Int digit",
    ("Sources/MultiAuth/Identity/Punycode.swift", "UInt8(value)"): "a UInt32 digit value below 36",
    ("Sources/MultiAuth/Identity/Punycode.swift", "UInt8(value - 26)"): "a UInt32 digit value below 36",
    ("Sources/MultiAuthHTTP/CellularTransport.swift", "Int(connectTimeout.components.seconds)"): "Duration's Int64",
    ("Sources/MultiAuthHTTP/HTTP1Message.swift", "Int(lengthText.trimmingCharacters(in: .whitespaces))"): "a String",
    ("Sources/MultiAuthHTTP/HTTP1Message.swift", "Int(parts[1])"): "a Substring status code",
}

INTEGER_TYPES = r"(?:U?Int(?:8|16|32|64)?)"
CONVERSION = re.compile(r"(?<![\w.])(" + INTEGER_TYPES + r")\(")
DURATION = re.compile(r"\.(seconds|milliseconds|microseconds|nanoseconds)\(")
INTEGER_EXPRESSION = re.compile(r"^[\d_\s+\-*/()]+$")
LABELED = re.compile(r"^\s*\w+\s*:")
COUNT = re.compile(r"^[\w.]+\.count(?:\s*[+\-*]\s*[\w.]+)*$")
# A byte minus an ASCII constant, a shift or a mask of a byte, a radix parse: integers.
BYTE_ARITHMETIC = re.compile(
    r"^(?:[\w.\[\]]+\s*&?[-+]\s*)?UInt8\(ascii: \"[^\"]*\"\)$|^[\w.\[\]]+\s*(?:>>|<<|&|\|)\s*\w+$|radix:")
MARKER = "// wire-number:"


def strip(source):
    """Blanks comments and string literal contents, keeping line structure and columns."""
    out = []
    i, n = 0, len(source)
    while i < n:
        if source.startswith("//", i):
            j = source.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif source.startswith("/*", i):
            j = source.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(c if c == "\n" else " " for c in source[i:j]))
            i = j
        elif source.startswith('"""', i):
            j = source.find('"""', i + 3)
            j = n if j < 0 else j + 3
            out.append('"' + "".join(c if c == "\n" else " " for c in source[i + 1:j - 1]) + '"')
            i = j
        elif source[i] == '"':
            j = i + 1
            while j < n and source[j] not in '"\n':
                j += 2 if source[j] == "\\" else 1
            j = min(j + 1, n)
            out.append('"' + " " * (j - i - 2) + '"')
            i = j
        else:
            out.append(source[i])
            i += 1
    return "".join(out)


def argument(text, start):
    """The balanced argument text after the '(' at `start - 1`, or None."""
    depth, i = 1, start
    while i < len(text):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return text[start:i]
        i += 1
    return None


def check_file(path, relative):
    with open(path, encoding="utf-8") as handle:
        source = handle.read()
    lines = source.split("\n")
    stripped = strip(source)
    findings = []
    line_starts = [0]
    for line in stripped.split("\n"):
        line_starts.append(line_starts[-1] + len(line) + 1)

    def line_of(offset):
        low, high = 0, len(line_starts) - 1
        while low < high:
            mid = (low + high + 1) // 2
            if line_starts[mid] <= offset:
                low = mid
            else:
                high = mid - 1
        return low

    def marked(number):
        return MARKER in lines[number] or (number > 0 and MARKER in lines[number - 1])

    for pattern, kind in ((CONVERSION, "conversion"), (DURATION, "duration")):
        for match in pattern.finditer(stripped):
            arg = argument(stripped, match.end())
            if arg is None:
                continue
            number = line_of(match.start())
            call = source[match.start():match.end() + len(arg) + 1]
            if kind == "duration":
                call = call[1:]
            arg = arg.strip()
            if LABELED.match(arg) and kind == "conversion":
                continue
            if INTEGER_EXPRESSION.match(arg) and not re.search(r"\d[eE.]", arg):
                continue
            if kind == "conversion" and (COUNT.match(arg) or BYTE_ARITHMETIC.search(arg)):
                continue
            if (relative, call) in ALLOWED or marked(number):
                continue
            what = ("an unchecked integer conversion" if kind == "conversion"
                    else "a Duration from a value that may be a Double")
            findings.append(f"{relative}:{number + 1}: {what}: {call} "
                            "(use WireNumber, or say why the argument is an integer: `// wire-number: <reason>`)")
    return findings


def check_tree(root, scope, helpers):
    findings = []
    for directory in scope:
        for base, _, files in os.walk(os.path.join(root, directory)):
            for name in sorted(files):
                if not name.endswith(".swift"):
                    continue
                path = os.path.join(base, name)
                relative = os.path.relpath(path, root)
                if relative in helpers:
                    continue
                findings += check_file(path, relative)
    return findings


PLANTED = """import Foundation
struct Planted {
    func expiry(_ seconds: Double) -> Int { Int(seconds) }
    func wait(_ interval: Double) -> Duration { .seconds(interval) }
    func code(_ number: Double) -> String { String(Int64(number.rounded())) }
    func later(_ ms: Double) -> Duration { Duration.milliseconds(ms * 1.5) }
}
"""
CLEAN = """import Foundation
struct Clean {
    /// `Int(seconds)` in a comment and "Int(seconds)" in a string are not code.
    let text = "Int(seconds) .seconds(interval)"
    func exact(_ seconds: Double) -> Int? { Int(exactly: seconds) }
    func fixed() -> Duration { .seconds(60) + .milliseconds(24 * 3600) }
    func size(_ bytes: [UInt8]) -> Int32 { Int32(bytes.count) }
    func digits(_ text: String) -> Int? { Int(text) }  // wire-number: a String
}
"""


def self_test():
    with tempfile.TemporaryDirectory() as root:
        module = os.path.join(root, "Sources", "MultiAuthDynamic")
        os.makedirs(module)
        for name, text in (("Planted", PLANTED), ("Clean", CLEAN)):
            with open(os.path.join(module, name + ".swift"), "w") as handle:
                handle.write(text)
        findings = check_tree(root, ["Sources/MultiAuthDynamic"], set())
    planted = [f for f in findings if "Planted.swift" in f]
    clean = [f for f in findings if "Clean.swift" in f]
    expected = ["Int(seconds)", ".seconds(interval)"[1:], "Int64(number.rounded())", "milliseconds(ms * 1.5)"]
    missing = [e for e in expected if not any(e in f for f in planted)]
    if missing or len(planted) != len(expected) or clean:
        print("self-test FAILED: missing", missing, "planted findings", planted, "clean findings", clean)
        return 1
    print(f"self-test: {len(planted)} planted unchecked conversions refused, the clean file passes")
    return 0


def main():
    if "--self-test" in sys.argv[1:]:
        if self_test():
            return 1
    findings = check_tree(ROOT, SCOPE, HELPERS)
    for finding in findings:
        print(finding)
    if findings:
        print(f"{len(findings)} unchecked number conversion(s); see Docs/Security.md, \"Numbers from the wire\"")
        return 1
    print("no unchecked number conversions in the core and the adapters")
    return 0


if __name__ == "__main__":
    sys.exit(main())
