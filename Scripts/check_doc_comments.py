#!/usr/bin/env python3
"""Fails when a public or open declaration in Sources/ has no `///` doc comment.

A declaration counts as documented when the nearest non-attribute line above it is a `///`
comment line (or the end of a `/** */` block). Generated files and extensions (which document
their members) are skipped. Usage: python3 Scripts/check_doc_comments.py [--list]
"""
import pathlib
import re
import sys

DECL = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:public|open)\s+(?!extension\b)(?:[\w()]+\s+)*?"
                  r"(?:func|var|let|init|subscript|struct|class|actor|enum|protocol|typealias|case|static|convenience|nonisolated|mutating|required|final|override|indirect)\b")


def undocumented(path: pathlib.Path):
    lines = path.read_text(encoding="utf-8").splitlines()
    for index, line in enumerate(lines):
        if not DECL.match(line):
            continue
        j = index - 1
        while j >= 0 and (lines[j].strip().startswith("@") or lines[j].strip() == ""):
            if lines[j].strip() == "":
                break
            j -= 1
        above = lines[j].strip() if j >= 0 else ""
        if not (above.startswith("///") or above.endswith("*/")):
            yield index + 1, line.strip()


def main() -> int:
    root = pathlib.Path(__file__).resolve().parent.parent / "Sources"
    missing = []
    for path in sorted(root.rglob("*.swift")):
        if path.name.endswith("+Table.swift"):
            continue
        for number, line in undocumented(path):
            missing.append(f"{path.relative_to(root.parent)}:{number}: {line}")
    if missing:
        print(f"{len(missing)} public declarations without a /// doc comment:")
        print("\n".join(missing))
        return 1
    print("doc comments: every public declaration in Sources/ is documented")
    return 0


if __name__ == "__main__":
    sys.exit(main())
