#!/usr/bin/env bash
# Runs the core and sandbox test suites under ThreadSanitizer, in their own build folder so
# the normal .build is never clobbered.
#
#   Scripts/tsan.sh                      MultiAuthTests + MultiAuthSandboxTests + the reference
#                                        backend's and software authenticator's suites
#   Scripts/tsan.sh '<filter regex>'     other suites (e.g. 'MultiAuthStressTests')
#
# Suppressions: Scripts/tsan.supp (documented there) is passed via TSAN_OPTIONS. A report
# makes the run fail (halt_on_error=1, exit code 66).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"

filter="${1:-MultiAuthTests\.|MultiAuthSandboxTests\.|MultiAuthConformanceTests\.(ReferenceBackendTests|SoftwareAuthenticatorTests)}"
scratch=".build-tsan"
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1 suppressions=$PWD/Scripts/tsan.supp ${TSAN_OPTIONS:-}"

started=$(date +%s)
swift build --build-tests --sanitize=thread --scratch-path "$scratch" 2>&1 | grep -Ev '^\[[0-9]+/[0-9]+\]' || true
built=$(date +%s)
echo "== TSan build: $(( built - started )) s"
swift test --skip-build --sanitize=thread --scratch-path "$scratch" --filter "$filter"
echo "== TSan tests: $(( $(date +%s) - built )) s (total $(( $(date +%s) - started )) s)"
