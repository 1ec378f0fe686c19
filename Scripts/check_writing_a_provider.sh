#!/usr/bin/env bash
# Follows Docs/WritingAProvider.md literally, as a new provider author would: a new package
# "AcmeAuth" whose Package.swift is the manifest block of section 3 and whose three files are the
# samples copied whole to the paths the table of section 3 gives them, next to a folder named
# MultiAuth that is this repository (the manifest's `path: "../MultiAuth"`). Builds it and runs
# its tests, and fails unless the conformance proof passes there, or if the build compiled a
# vendor emulator module (the conformance kit must need none of them; Docs/Architecture.md,
# "Module graph").
#
# Usage: bash Scripts/check_writing_a_provider.sh [--keep]   (--keep leaves the package in place)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/multiauth-writing-a-provider.XXXXXX")"
if [ "${1:-}" != "--keep" ]; then trap 'rm -rf "$work"' EXIT; fi

ln -s "$root" "$work/MultiAuth"
mkdir -p "$work/AcmeAuth"
python3 - "$root" "$work/AcmeAuth" <<'PY'
import pathlib, re, shutil, sys
root, package = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
page = (root / "Docs" / "WritingAProvider.md").read_text(encoding="utf-8")
section = page[page.index("## 3. Where the pieces go"):page.index("## 4.")]

manifest = re.search(r"```swift\n(.*?)```", section, re.S).group(1)
(package / "Package.swift").write_text(manifest, encoding="utf-8")

# Table rows: | `Target` | `path/in/your/package.swift` ([Samples/File.swift](Samples/File.swift)) | ...
rows = re.findall(r"^\| `(\w+)` \| `([^`]+\.swift)` \(\[Samples/(\w+\.swift)\]", section, re.M)
if len(rows) != 3:
    sys.exit(f"WritingAProvider: expected three files in the table of section 3, found {rows}")
for target, path, sample in rows:
    destination = package / path
    if f"/{target}/" not in f"/{path}":
        sys.exit(f"WritingAProvider: {path} is not in the folder of target {target}")
    destination.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(root / "Docs" / "Samples" / sample, destination)
    print(f"   {path} <- Docs/Samples/{sample}")
PY

cd "$work/AcmeAuth"
echo "-- building $work/AcmeAuth (Package.swift and the three files as Docs/WritingAProvider.md says)"
# First the package's own targets alone, into the fresh .build: what they need of MultiAuth and
# nothing else (a plain `swift build` also builds every product of every dependency, the CLI and
# the emulators included, so it cannot tell what the targets need).
for target in AcmeAuth AcmeAuthTestSupport AcmeAuthTests; do
  swift build --target "$target" 2>&1 | tail -n 1
done

# Which of MultiAuth's modules that compiled: SwiftPM makes a <Module>.build directory for every
# target of the graph up front, but object files (*.o) land in it only when the module is compiled.
compiled="$(find .build -mindepth 4 -maxdepth 5 -type f -name '*.o' -path '*/debug/MultiAuth*.build/*' \
  | sed -E 's#^.*/debug/(MultiAuth[A-Za-z]*)\.build/.*$#\1#' | sort -u)"
echo "-- compiled: $(tr '\n' ' ' <<<"$compiled")"
grep -qx "MultiAuthConformance" <<<"$compiled" || {
  echo "WritingAProvider: no object files of MultiAuthConformance under .build; cannot tell what was compiled"; exit 1; }
for module in MultiAuthSandbox MultiAuthOTPless MultiAuthDynamic MultiAuthTruecaller MultiAuthPortal \
  MultiAuthSandboxServer MultiAuthSandboxKit; do
  if grep -qx "$module" <<<"$compiled"; then
    echo "WritingAProvider: the package's targets compiled $module, a vendor emulator or adapter"; exit 1
  fi
done
swift build --build-tests 2>&1 | tail -n 3
output="$(swift test --skip-build 2>&1)" || { echo "$output" | tail -n 30; echo "WritingAProvider: swift test failed"; exit 1; }
echo "$output" | grep -E "^(✔|✘) (Test run|Suite)" || true
grep -q "acmeConformsWhereItCanAndSaysWhyElsewhere() passed" <<<"$output" || {
  echo "WritingAProvider: the conformance proof did not pass"; exit 1; }
grep -q "aMissingErrorMappingFailsC08() passed" <<<"$output" || {
  echo "WritingAProvider: the broken-mapping check did not pass"; exit 1; }
echo "WritingAProvider: a new package built from the page passes the conformance kit"
