#!/usr/bin/env bash
# Compiles two client files against the built MultiAuth module: one that interpolates a
# `Secret` and a `Secret?` must fail with "ambiguous use of 'appendInterpolation'" (one error
# per interpolation), one that reveals or renders them on purpose must compile
# (Docs/Security.md, "Redaction": Sources/MultiAuth/Provider/Secret+Interpolation.swift).
#
#   Scripts/check_secret_interpolation.sh     after `swift build`
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"

modules="$(swift build --show-bin-path)/Modules"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

cat > "$work/refused.swift" <<'SWIFT'
import MultiAuth
let token: Secret = "planted-token"
let maybe: Secret? = token
let header = "Bearer \(token)"
let optional = "token: \(maybe)"
SWIFT

cat > "$work/allowed.swift" <<'SWIFT'
import MultiAuth
let token: Secret = "planted-token"
let maybe: Secret? = token
let header = "Bearer " + token.reveal()
let revealed = "Bearer \(token.reveal())"
let rendered = "token: \(String(describing: token)), \(String(describing: maybe))"
func render<T: CustomStringConvertible>(_ value: T) -> String { "\(value)" }
let generic = render(token)
SWIFT

if ! swiftc -typecheck -I "$modules" "$work/allowed.swift" > "$work/allowed.log" 2>&1; then
  cat "$work/allowed.log"
  echo "FAIL: revealing or rendering a Secret on purpose no longer compiles"
  exit 1
fi
if swiftc -typecheck -I "$modules" "$work/refused.swift" > "$work/refused.log" 2>&1; then
  echo "FAIL: interpolating a Secret compiles (it would write <redacted> where the value was meant)"
  exit 1
fi
count="$(grep -cE "^$work/refused\.swift:[0-9]+:[0-9]+: error: ambiguous use of 'appendInterpolation'" "$work/refused.log" || true)"
if [ "$count" != 2 ]; then
  cat "$work/refused.log"
  echo "FAIL: expected 2 'ambiguous use of appendInterpolation' errors, got $count"
  exit 1
fi
echo "ok: interpolating a Secret or a Secret? does not compile; reveal() and String(describing:) do"
