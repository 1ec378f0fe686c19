#!/usr/bin/env bash
# Follows Docs/GettingStarted.md literally, as a new user would: a new package "MyApp" whose
# Package.swift is the block of step 0 and whose Sources/MyApp/main.swift is the block of step 1,
# next to a folder named MultiAuth that is this repository (the page's `path: "../MultiAuth"`).
# Builds it, runs it, and fails unless it signed in against the sandbox.
#
# Usage: bash Scripts/check_getting_started.sh [--keep]   (--keep leaves the package in place)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/multiauth-getting-started.XXXXXX")"
if [ "${1:-}" != "--keep" ]; then trap 'rm -rf "$work"' EXIT; fi

ln -s "$root" "$work/MultiAuth"
mkdir -p "$work/MyApp/Sources/MyApp"
python3 - "$root/Docs/GettingStarted.md" "$work/MyApp" <<'PY'
import pathlib, re, sys
page = pathlib.Path(sys.argv[1]).read_text(encoding="utf-8")
package = pathlib.Path(sys.argv[2])

def first_swift_block_after(heading):
    start = page.index(heading)
    match = re.search(r"```swift\n(.*?)```", page[start:], re.S)
    return match.group(1)

(package / "Package.swift").write_text(first_swift_block_after("## 0. Add the package"), encoding="utf-8")
(package / "Sources" / "MyApp" / "main.swift").write_text(first_swift_block_after("## 1. Run it against the sandbox"), encoding="utf-8")
PY

cd "$work/MyApp"
echo "-- building $work/MyApp (Package.swift and main.swift copied from Docs/GettingStarted.md)"
swift build 2>&1 | tail -n 3
output="$(swift run --skip-build MyApp)"
echo "$output"
grep -q "^signed in as AuthUser(" <<<"$output" || { echo "GettingStarted: the program did not sign in"; exit 1; }
grep -q "^AuthState(dynamic: valid)$" <<<"$output" || { echo "GettingStarted: no valid Dynamic session in the state"; exit 1; }
echo "GettingStarted: a new package built from the page signs in against the sandbox"

# The app's view of the library, from outside the package: the event stream is subscribe-only
# and the test seams are not reachable (`package`, not `public`). Each line of the
# probe must fail to compile with the reason named beside it; the probe is removed afterwards.
probe="Sources/MyApp/OutsideViewProbe.swift"
cat > "$probe" <<'SWIFT'
import Foundation
import MultiAuth

func outsideViewProbe(_ client: AuthClient) {
    client.events.publish(.signedOut)
    client.events.finish()
    _ = client.events.subscriberCount
    _ = AuthEventBus()
    _ = JSONEncoder.multiAuth
}
SWIFT
set +e
probe_output="$(swift build 2>&1)"
probe_status=$?
set -e
rm -f "$probe"
if [ "$probe_status" -eq 0 ]; then
  echo "outside view: an app could publish to or finish the event stream, or reach a test seam"; exit 1
fi
for expected in \
  "'publish' is inaccessible due to 'package' protection level" \
  "'finish' is inaccessible due to 'package' protection level" \
  "'subscriberCount' is inaccessible due to 'package' protection level" \
  "cannot find 'AuthEventBus' in scope" \
  "'multiAuth' is inaccessible due to 'package' protection level"; do
  grep -qF "$expected" <<<"$probe_output" || {
    echo "outside view: expected the compiler to refuse with: $expected"; echo "$probe_output" | grep -E "error:" | head -n 20; exit 1; }
done
echo "outside view: publish, finish, subscriberCount, AuthEventBus and JSONEncoder.multiAuth are not reachable from an app"
