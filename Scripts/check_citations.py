#!/usr/bin/env python3
"""Fails when the repository cites something that is not in the repository.

Checked: README.md, CHANGELOG.md, NOTICE, Package.swift and every text file (Swift, Markdown,
Python, shell) under Sources/, Tests/, Docs/, Scripts/, Fuzz/ and .ci/.

1. No citation of the design notes kept outside the repository: `DESIGN.md`, `providers.md`,
   `CASES.md`, `wire-audit`, `../shared`, `shared/cases`, `shared/vectors`. Write the fact into
   Docs/ in our own words and cite that page.
2. A repository path (`Docs/…`, `Sources/…`, `Tests/…`, `Scripts/…`, `Fuzz/…`, `.ci/…`) names
   a file or folder that exists (a `*` matches as in a shell). Paths of other projects' code
   (a real SDK cited by repository and commit) are recognised by their root folder, listed in
   EXTERNAL_ROOTS.
3. A section cited after a Markdown page exists in it: `Docs/<page>.md, "Heading"` (a heading
   whose text starts with the quoted words), `Docs/<page>.md#anchor` and
   `[text](<page>.md#anchor)` (GitHub's anchor of a heading), and a relative Markdown link
   names an existing file.
4. A regression case (`B01`…`B99`) is one of Docs/Cases.md's, and a file that names cases
   cites Docs/Cases.md.

Usage: python3 Scripts/check_citations.py
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
TEXT = {".swift", ".md", ".py", ".sh", ".txt", ".json", ""}
FORBIDDEN = re.compile(r"DESIGN\.md|providers\.md|CASES\.md|wire-audit|\.\./shared|shared/cases|shared/vectors")
# Root folders of other projects' sources cited with their repository and commit.
EXTERNAL_ROOTS = {
    "Sources/PortalSwift", "Tests/PortalSwiftTests", "Sources/OtplessBM", "Tests/OtplessBMTests",
    # swift-corelibs-foundation (NSError's keyed archiving, Docs/Providers/Truecaller.md).
    "Sources/Foundation",
    # The reader's own package in Docs/GettingStarted.md and Docs/WritingAProvider.md.
    "Sources/MyApp", "Sources/AcmeAuth", "Sources/AcmeAuthTestSupport", "Tests/AcmeAuthTests",
    # Made by the scripts at run time (ignored by Git).
    "Fuzz/.artifacts",
}
PATH = re.compile(r"(?<![\w/.@-])((?:Docs|Sources|Tests|Scripts|Fuzz|\.ci)/[A-Za-z0-9_.+*/-]*[A-Za-z0-9_*/+-])")
SECTION = re.compile(r"((?:Docs|Sources|Tests)/[A-Za-z0-9_./+-]+\.md)(?:#([A-Za-z0-9_-]+)|,? \"([^\"]+)\")")
LINK = re.compile(r"\]\(([^)\s]+?)\)")
CASE = re.compile(r"(?<![\w\"'])B(\d\d)(?![\w])")


def files():
    for name in ["README.md", "CHANGELOG.md", "NOTICE", "Package.swift"]:
        if (ROOT / name).is_file():
            yield ROOT / name
    for top in ["Sources", "Tests", "Docs", "Scripts", "Fuzz", ".ci"]:
        for path in sorted((ROOT / top).rglob("*")):
            if path.is_file() and not path.is_symlink() and path.suffix in TEXT and "/corpus/" not in str(path):
                yield path


def slug(heading):
    """GitHub's anchor for a heading: lower case, markup and punctuation dropped, spaces → '-'."""
    text = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", lambda m: m.group(1) or "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text, flags=re.UNICODE)
    return text.replace(" ", "-")


HEADINGS = {}


def headings(page):
    if page not in HEADINGS:
        titles = []
        in_code = False
        for line in page.read_text(encoding="utf-8").split("\n"):
            if line.lstrip().startswith("```"):
                in_code = not in_code
            elif not in_code and re.match(r"^#{1,6} ", line):
                titles.append(line.lstrip("#").strip())
        HEADINGS[page] = titles
    return HEADINGS[page]


def anchors(page):
    seen, result = {}, set()
    for title in headings(page):
        base = slug(title)
        count = seen.get(base, 0)
        seen[base] = count + 1
        result.add(base if count == 0 else f"{base}-{count}")
    return result


def has_section(page, title):
    wanted = re.sub(r"[`*]", "", title).strip().lower()
    return any(re.sub(r"[`*]", "", heading).strip().lower().startswith(wanted) for heading in headings(page))


def exists(relative):
    if any(relative == root or relative.startswith(root + "/") for root in EXTERNAL_ROOTS):
        return True
    relative = relative.rstrip("/.")
    if "*" in relative:
        return any(ROOT.glob(relative))
    return (ROOT / relative).exists()


def main():
    failures = []
    cases = {m.group(1) for m in re.finditer(r"^### B(\d\d)\b", (ROOT / "Docs/Cases.md").read_text(encoding="utf-8"), re.M)}
    this = pathlib.Path(__file__).resolve()
    for path in files():
        relative = path.relative_to(ROOT)
        text = path.read_text(encoding="utf-8", errors="replace")
        lines = text.split("\n")
        for number, line in enumerate(lines, 1):
            where = f"{relative}:{number}"
            if path != this and FORBIDDEN.search(line):
                failures.append(f"{where}: cites a file outside the repository ({FORBIDDEN.search(line).group(0)}); "
                                "write the fact into Docs/ and cite that page")
            for match in PATH.finditer(line):
                cited = match.group(1).rstrip(".,;:)")
                if not exists(cited):
                    failures.append(f"{where}: '{cited}' does not exist")
            for match in SECTION.finditer(line):
                page = ROOT / match.group(1)
                if not page.is_file():
                    continue
                anchor, title = match.group(2), match.group(3)
                if anchor and anchor not in anchors(page):
                    failures.append(f"{where}: {match.group(1)} has no section #{anchor}")
                if title and not has_section(page, title):
                    failures.append(f"{where}: {match.group(1)} has no section \"{title}\"")
            if path.suffix == ".md":
                for match in LINK.finditer(line):
                    target = match.group(1)
                    if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("<"):
                        continue                                  # https:, mailto:, doc: …
                    file_part, _, anchor = target.partition("#")
                    page = (path.parent / file_part).resolve() if file_part else path
                    if file_part and not page.exists():
                        failures.append(f"{where}: link to '{target}': no such file")
                    elif anchor and page.suffix == ".md" and anchor not in anchors(page):
                        failures.append(f"{where}: link to '{target}': no such section")
        if relative.as_posix() != "Docs/Cases.md" and path != this:
            named = {m.group(1) for m in CASE.finditer(text)}
            for case in sorted(named - cases):
                failures.append(f"{relative}: names case B{case}, which Docs/Cases.md does not have")
            if named and "Cases.md" not in text:
                failures.append(f"{relative}: names cases ({', '.join('B' + c for c in sorted(named))}) "
                                "without citing Docs/Cases.md")
    if failures:
        print(f"{len(failures)} citations lead nowhere:")
        print("\n".join(failures))
        return 1
    print("citations: every cited file, section and case is in the repository")
    return 0


if __name__ == "__main__":
    sys.exit(main())
