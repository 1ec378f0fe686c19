#!/usr/bin/env python3
"""Fails when a Swift code block in the documentation is not the code that runs.

Every ```swift block in README.md, Docs/**/*.md and the DocC catalogs (Sources/*/*.docc, real
files only: the symbolic links there point at Docs/ pages, checked once) must carry a marker
comment on the nearest non-blank line above its fence:

    <!-- sample: Docs/Samples/GettingStarted.swift -->
        the block's text appears verbatim in that file (compiled and run by `swift test`,
        target MultiAuthSamples): its lines, in order and contiguous, each with one common
        indentation added (the sample wraps the block in a function or a type). Leading
        `import` lines of the block must be imports of the sample file instead.
    <!-- declaration: Sources/MultiAuth/Provider/AuthProvider.swift -->
        a declaration quoted without its doc comments: every line of the block appears in
        that file, in the same order (other lines, such as doc comments, may come between).
    <!-- fragment: why this block is not compiled -->
        a block that cannot compile on its own (a package manifest, Apple-only API); the
        reason is required.

A block without a marker, a marker naming a missing file, or a block whose text is not in
its sample fails the check, so changing one character of a block without changing its
compiled copy fails CI.

A sign-in loop (`while case .challenge`) must also catch a wrong or mistyped code inside the
loop (`error.asksForTheCodeAgain`), so no sample ends a sign-in at the first wrong code.

Usage: python3 Scripts/check_doc_blocks.py [--list]
"""
import difflib
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
MARKER = re.compile(r"^\s*<!--\s*(sample|declaration|fragment)\s*:\s*(.*?)\s*-->\s*$")
FENCE = re.compile(r"^(\s*)```swift\s*$")


def documents():
    """README, every Markdown page under Docs/, and the real Markdown files of the catalogs."""
    yield ROOT / "README.md"
    yield from sorted((ROOT / "Docs").rglob("*.md"))
    for path in sorted((ROOT / "Sources").glob("*/*.docc/**/*.md")):
        if not path.is_symlink():
            yield path


def blocks(path):
    """(line number of the fence, marker kind, marker argument, block lines) per swift block."""
    lines = path.read_text(encoding="utf-8").split("\n")
    index = 0
    while index < len(lines):
        fence = FENCE.match(lines[index])
        if not fence:
            index += 1
            continue
        indent = len(fence.group(1))
        end = index + 1
        while end < len(lines) and not lines[end].strip().startswith("```"):
            end += 1
        body = [line[indent:] if line[:indent].strip() == "" else line for line in lines[index + 1:end]]
        above = index - 1
        while above >= 0 and lines[above].strip() == "":
            above -= 1
        marker = MARKER.match(lines[above]) if above >= 0 else None
        yield index + 1, (marker.group(1) if marker else None), (marker.group(2) if marker else None), body
        index = end + 1


def contains_verbatim(sample_lines, block):
    """Whether `block` appears in `sample_lines` as contiguous lines with one common indentation."""
    first = next((line for line in block if line.strip()), None)
    if first is None:
        return True
    for start, candidate in enumerate(sample_lines):
        if not candidate.endswith(first) or candidate[: len(candidate) - len(first)].strip():
            continue
        indent = candidate[: len(candidate) - len(first)]
        offset = next(i for i, line in enumerate(block) if line.strip())
        begin = start - offset
        if begin < 0 or begin + len(block) > len(sample_lines):
            continue
        if all(
            (sample_lines[begin + i].strip() == "" if line.strip() == "" else sample_lines[begin + i] == indent + line)
            for i, line in enumerate(block)
        ):
            return True
    return False


def contains_in_order(source_lines, block):
    """Whether every non-blank line of `block` appears, stripped, in `source_lines` in order."""
    stripped = iter(line.strip() for line in source_lines)
    return all(any(candidate == line.strip() for candidate in stripped) for line in block if line.strip())


def closest(sample_lines, block):
    """A short diff between the block and the most similar region of the sample."""
    code = [line.strip() for line in block]
    best, best_ratio = 0, -1.0
    for start in range(0, max(1, len(sample_lines) - len(block) + 1)):
        window = [line.strip() for line in sample_lines[start:start + len(block)]]
        ratio = difflib.SequenceMatcher(None, code, window).ratio()
        if ratio > best_ratio:
            best, best_ratio = start, ratio
    window = [line.strip() for line in sample_lines[best:best + len(block)]]
    diff = difflib.unified_diff(code, window, "documentation", f"sample line {best + 1}", lineterm="", n=1)
    return "\n".join("      " + line for line in list(diff)[:24])


def main():
    failures, checked, fragments = [], 0, 0
    for path in documents():
        relative = path.relative_to(ROOT)
        for line, kind, argument, body in blocks(path):
            where = f"{relative}:{line}"
            if kind is None:
                failures.append(f"{where}: swift block without a marker; put <!-- sample: Docs/Samples/<file>.swift --> "
                                "or <!-- fragment: reason --> on the line above the fence")
                continue
            text = "\n".join(body)
            if "while case .challenge" in text and "asksForTheCodeAgain" not in text:
                failures.append(f"{where}: a sign-in loop without a wrong-code catch inside it; catch "
                                "`let error as AuthError where error.asksForTheCodeAgain` around the submit")
            if kind == "fragment":
                if not argument:
                    failures.append(f"{where}: a fragment needs a reason: <!-- fragment: why it is not compiled -->")
                fragments += 1
                if "--list" in sys.argv:
                    print(f"{where}: fragment ({argument})")
                continue
            sample = ROOT / argument
            if not sample.is_file():
                failures.append(f"{where}: the sample file '{argument}' does not exist")
                continue
            sample_lines = sample.read_text(encoding="utf-8").split("\n")
            if kind == "declaration":
                if not contains_in_order(sample_lines, body):
                    failures.append(f"{where}: the declaration is not in {argument} (each line, in order):\n"
                                    + closest(sample_lines, body))
                checked += 1
                continue
            imports = [entry for entry in body if entry.startswith("import ")]
            leading = 0
            while leading < len(body) and (body[leading].startswith("import ") or body[leading].strip() == ""):
                leading += 1
            missing_imports = [entry for entry in imports if entry not in sample_lines]
            code = body[leading:] if imports else body
            if missing_imports:
                failures.append(f"{where}: {argument} lacks {', '.join(missing_imports)}")
            elif not contains_verbatim(sample_lines, code):
                failures.append(f"{where}: the block is not verbatim in {argument}; the closest region differs:\n"
                                + closest(sample_lines, code))
            checked += 1
            if "--list" in sys.argv:
                print(f"{where}: sample {argument}")
    if failures:
        print(f"{len(failures)} documentation code blocks are not the code that runs:")
        print("\n".join(failures))
        return 1
    print(f"doc blocks: {checked} swift blocks are verbatim in their compiled samples, {fragments} marked fragments")
    return 0


if __name__ == "__main__":
    sys.exit(main())
