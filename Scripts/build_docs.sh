#!/usr/bin/env bash
# Builds the DocC reference of every public library module with the toolchain's own `docc`,
# from symbol graphs (no plugin package):
#
#   1. `swift package dump-symbol-graph` (public symbols; reuses the debug build),
#   2. `docc convert` per module, in dependency order, each with its catalog
#      Sources/<Module>/<Module>.docc and the archives of the modules it depends on
#      (`--dependency`, so ``/MultiAuth/AuthClient`` links across modules resolve),
#      warnings treated as errors — a broken symbol link or a missing catalog fails,
#   3. `docc merge` of the archives into one static site (skipped with --check).
#
# Usage:
#   bash Scripts/build_docs.sh                 # site in .build/docs/site
#   bash Scripts/build_docs.sh --check         # CI: the archives only, warnings are errors
#   bash Scripts/build_docs.sh --output DIR --hosting-base-path /multiauth
#   DOCC_STRICT= bash Scripts/build_docs.sh --check   # list every warning instead of stopping
#
# Links to another module's symbols start with a slash (``/MultiAuth/AuthClient``): each module
# is converted on its own, and DocC resolves such links in the archives given as dependencies.
#
# Serve the site with any static file server, e.g.
#   python3 -m http.server --directory .build/docs/site 8000
#   → http://localhost:8000/documentation/multiauth
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"

check=0
output=".build/docs/site"
hosting=()
while [ $# -gt 0 ]; do
  case "$1" in
    --check) check=1 ;;
    --output) output="$2"; shift ;;
    --hosting-base-path) hosting=(--hosting-base-path "$2"); shift ;;
    -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
    *) echo "build_docs.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

work=".build/docs"
rm -rf "$work/archives" "$work/symbols"
mkdir -p "$work/archives" "$work/symbols"

# The library products' targets, dependencies first.
modules=$(swift package dump-package | python3 -c '
import json, sys
package = json.load(sys.stdin)
targets = {t["name"]: t for t in package["targets"]}
public = {name for p in package["products"] if "library" in p["type"] for name in p["targets"]}
def deps(name):
    for d in targets[name].get("dependencies", []):
        for kind in ("byName", "target"):
            if kind in d and d[kind] and d[kind][0] in targets:
                yield d[kind][0]
order, seen = [], set()
def visit(name):
    if name in seen: return
    seen.add(name)
    for d in deps(name): visit(d)
    if name in public: order.append(name)
for name in sorted(public): visit(name)
print(" ".join(order))')
echo "== modules: $modules"

started=$(date +%s)
swift package dump-symbol-graph --minimum-access-level public >/dev/null
graphs="$(swift build --show-bin-path)/../symbolgraph"

for module in $modules; do
  catalog="Sources/$module/$module.docc"
  if [ ! -d "$catalog" ]; then
    echo "error: public library module $module has no documentation catalog ($catalog)" >&2
    exit 1
  fi
  mkdir -p "$work/symbols/$module"
  cp "$graphs/$module.symbols.json" "$work/symbols/$module/"
  cp "$graphs/$module"@*.symbols.json "$work/symbols/$module/" 2>/dev/null || true
  dependencies=()
  for archive in "$work"/archives/*.doccarchive; do
    [ -e "$archive" ] && dependencies+=(--dependency "$archive")
  done
  echo "-- docc convert $module"
  docc convert "$catalog" \
    --additional-symbol-graph-dir "$work/symbols/$module" \
    --output-path "$work/archives/$module.doccarchive" \
    --fallback-display-name "$module" --fallback-bundle-identifier "org.multiauth.$module" \
    --enable-experimental-external-link-support "${dependencies[@]}" \
    --transform-for-static-hosting "${hosting[@]}" \
    ${DOCC_STRICT---warnings-as-errors}
done

if [ "$check" -eq 0 ]; then
  rm -rf "$output"
  mkdir -p "$(dirname "$output")"
  docc merge "$work"/archives/*.doccarchive --output-path "$output" \
    --synthesized-landing-page-name MultiAuth --synthesized-landing-page-kind Package
  echo "== site: $output (serve it: python3 -m http.server --directory $output 8000)"
fi
echo "== docs: $(echo "$modules" | wc -w) modules in $(( $(date +%s) - started )) s"
