#!/usr/bin/env bash
# Builds and runs the libFuzzer targets in Fuzz/<target>/main.swift (not SwiftPM targets, so
# normal builds never need the fuzzer runtime).
#
#   Scripts/fuzz.sh [target|all] [seconds-per-target]       default: all, 30 s
#   FUZZ_MERGE=1 Scripts/fuzz.sh …    also merge new coverage into the committed corpus
#   FUZZ_JOBS=2 Scripts/fuzz.sh …     libFuzzer workers per target (default 1)
#   FUZZ_SEED=1 Scripts/fuzz.sh …     fixed libFuzzer seed (CI uses one, so a pass is reproducible)
#
# How: the package modules are compiled with coverage instrumentation
# (`swift build --scratch-path .build-fuzz -Xswiftc -sanitize=fuzzer,address`, library
# targets only, nothing linked), then each entry point is linked with their object files by
# `swiftc -sanitize=fuzzer,address`. Each target runs for a bounded time on a working corpus
# in .build-fuzz/corpus/<target>, seeded from Fuzz/Corpus/<target>; crashes land in
# Fuzz/.artifacts/ (git-ignored). Exit status: 0 when no target crashed, 1 otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"

ALL_TARGETS=(phone email base32 base64url otpauth jwt json cbor dynamic-signin truecaller-otp portal-grant responses)
target="${1:-all}"
seconds="${2:-30}"
scratch=".build-fuzz"
jobs="${FUZZ_JOBS:-1}"

if [ "$target" = "all" ]; then
  targets=("${ALL_TARGETS[@]}")
else
  targets=("$target")
  [ -f "Fuzz/$target/main.swift" ] || { echo "no fuzz target '$target' (Fuzz/$target/main.swift); have: ${ALL_TARGETS[*]}" >&2; exit 2; }
fi

# Which package modules each target links (dependencies first).
modules_for() {
  case "$1" in
    phone|email|base32|base64url|otpauth|jwt|json|cbor) echo "MultiAuthLocking MultiAuthCrypto MultiAuth" ;;
    dynamic-signin) echo "MultiAuthLocking MultiAuthCrypto MultiAuth MultiAuthDynamic" ;;
    truecaller-otp) echo "MultiAuthLocking MultiAuthCrypto MultiAuth MultiAuthTruecaller" ;;
    portal-grant) echo "MultiAuthLocking MultiAuthCrypto MultiAuth MultiAuthQR MultiAuthPortal" ;;
    # Every adapter endpoint against its contract fixture, mutated (Fuzz/responses/main.swift).
    responses) echo "MultiAuthLocking MultiAuthCrypto MultiAuth MultiAuthDynamic MultiAuthOTPless MultiAuthTruecaller MultiAuthQR MultiAuthPortal" ;;
    *) echo "unknown fuzz target $1" >&2; exit 2 ;;
  esac
}

build_started=$(date +%s)
echo "== building instrumented modules ($scratch)"
needed=$(for t in "${targets[@]}"; do modules_for "$t"; done | tr ' ' '\n' | sort -u | tr '\n' ' ')
for module in MultiAuthDynamic MultiAuthOTPless MultiAuthTruecaller MultiAuthPortal MultiAuthQR MultiAuth MultiAuthCrypto MultiAuthLocking; do
  case " $needed " in *" $module "*) ;; *) continue ;; esac
  swift build -c debug --scratch-path "$scratch" --target "$module" \
    -Xswiftc -sanitize=fuzzer,address 2>&1 | grep -Ev '^\[[0-9]+/[0-9]+\]' || true
  [ -d "$scratch/debug/$module.build" ] || { echo "build of $module failed" >&2; exit 1; }
done
bin_dir="$scratch/fuzzers"
mkdir -p "$bin_dir" Fuzz/.artifacts
for t in "${targets[@]}"; do
  objects=()
  for module in $(modules_for "$t"); do objects+=("$scratch"/debug/"$module".build/*.o); done
  swiftc -sanitize=fuzzer,address -parse-as-library -g -Onone -swift-version 6 -use-ld=lld \
    -I "$scratch/debug/Modules" -Xcc -fmodule-map-file=Sources/CMultiAuthCrypto/module.modulemap \
    Fuzz/Support/*.swift "Fuzz/$t/main.swift" "${objects[@]}" -lcrypto -o "$bin_dir/$t"
done
echo "== built in $(( $(date +%s) - build_started )) s"

status=0
printf '\n%-16s %10s %8s %7s %8s %s\n' target inputs exec/s corpus seconds result
for t in "${targets[@]}"; do
  corpus="$scratch/corpus/$t"
  mkdir -p "$corpus" "Fuzz/Corpus/$t"
  log="$scratch/$t.log"
  started=$(date +%s)
  set +e
  parallel=()
  if [ "$jobs" -gt 1 ]; then parallel=(-jobs="$jobs" -workers="$jobs"); fi
  LSAN_OPTIONS="suppressions=$PWD/Fuzz/lsan.supp" SWIFT_BACKTRACE=enable=no "$bin_dir/$t" "$corpus" "Fuzz/Corpus/$t" -max_total_time="$seconds" ${FUZZ_SEED:+-seed="$FUZZ_SEED"} -print_final_stats=1 "${parallel[@]}" \
    -artifact_prefix="Fuzz/.artifacts/$t-" -max_len=4096 -timeout=10 -rss_limit_mb=2048 >"$log" 2>&1
  rc=$?
  set -e
  elapsed=$(( $(date +%s) - started ))
  logs=("$log")
  if [ "$jobs" -gt 1 ]; then logs+=(fuzz-*.log); fi
  runs=$(cat "${logs[@]}" 2>/dev/null | awk '/stat::number_of_executed_units/ {s+=$2} END {print s+0}')
  speed=$(cat "${logs[@]}" 2>/dev/null | awk '/stat::average_exec_per_sec/ {s+=$2} END {print s+0}')
  size=$(find "$corpus" -type f | wc -l)
  if [ $rc -eq 0 ]; then result="ok"; else result="CRASH (see $log, Fuzz/.artifacts/$t-*)"; status=1; fi
  printf '%-16s %10s %8s %7s %8s %s\n' "$t" "$runs" "$speed" "$size" "$elapsed" "$result"
  if [ "${FUZZ_MERGE:-0}" = "1" ]; then
    SWIFT_BACKTRACE=enable=no "$bin_dir/$t" -merge=1 "Fuzz/Corpus/$t" "$corpus" >/dev/null 2>&1 || true
  fi
  rm -f fuzz-*.log
done
exit $status
