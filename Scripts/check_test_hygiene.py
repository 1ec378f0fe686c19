#!/usr/bin/env python3
"""Fails when a test could depend on the machine's load (Docs/Testing.md, "A suite that passes on a busy machine").

Checks every Swift file under Tests/ and Docs/Samples/ (the test targets):

- `.timeLimit(...)` is only a hang guard: `.minutes(n)` with n >= 10, or `.hours(n)`.
- No signing key is generated at test time: no `PrivateKey.generateRSA` / `generateP256`
  (tests use the committed keys of Tests/MultiAuthTestKeys).
- No real sleeping: no `Task.sleep`, `Thread.sleep`, `usleep(`, `nanosleep(`.

A line may opt out with a trailing `// hygiene: <reason>` comment (for example a call that is
rejected before any key is generated). Usage: python3 Scripts/check_test_hygiene.py
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
TIME_LIMIT = re.compile(r"\.timeLimit\(\s*\.(\w+)\(\s*(\d+)\s*\)\s*\)")
ANY_TIME_LIMIT = re.compile(r"\.timeLimit\(")
KEY_GENERATION = re.compile(r"\bgenerate(RSA|P256)\s*\(")
SLEEP = re.compile(r"\bTask\.sleep\b|\bThread\.sleep\b|\busleep\(|\bnanosleep\(")
OPT_OUT = "// hygiene:"
MINIMUM_MINUTES = 10


def problems(path: pathlib.Path):
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if OPT_OUT in line or line.strip().startswith("//"):
            continue
        for match in ANY_TIME_LIMIT.finditer(line):
            limit = TIME_LIMIT.match(line, match.start())
            if limit is None:
                yield number, "a .timeLimit that is not .minutes(n) or .hours(n)"
            elif limit.group(1) == "minutes" and int(limit.group(2)) < MINIMUM_MINUTES:
                yield number, f".timeLimit(.minutes({limit.group(2)})): a time limit is only a hang guard, at least {MINIMUM_MINUTES} minutes"
            elif limit.group(1) not in ("minutes", "hours"):
                yield number, f".timeLimit(.{limit.group(1)}(…)): use .minutes(n >= {MINIMUM_MINUTES})"
        if KEY_GENERATION.search(line):
            yield number, "a key generated at test time: use a committed key from MultiAuthTestKeys (TestKeys)"
        if SLEEP.search(line):
            yield number, "real sleeping: sleep on the ManualClock instead"


def main() -> int:
    found = []
    for folder in ("Tests", "Docs/Samples"):
        for path in sorted((ROOT / folder).rglob("*.swift")):
            for number, message in problems(path):
                found.append(f"{path.relative_to(ROOT)}:{number}: {message}")
    if found:
        print(f"{len(found)} load-dependent test constructs:")
        print("\n".join(found))
        return 1
    print("test hygiene: time limits are hang guards (>= 10 min), no key generation, no real sleeping")
    return 0


if __name__ == "__main__":
    sys.exit(main())
