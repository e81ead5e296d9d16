#!/usr/bin/env bash
# Runs the ctest suite of a build directory (default build/), 2 tests at a time, printing the
# output of failing tests. Extra arguments go to ctest (e.g. -R oracle, -L unit).
#
# LeakSanitizer's own tracer can crash at a process's exit ("Tracer caught signal 11", then
# "LeakSanitizer has encountered a fatal error": google/sanitizers#1353, seen once in a sanitizer
# run of a test that had passed): not a leak report and not the test's failure. When every failed
# test failed only that way, those tests run once more, and that run decides.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/ctest_log.sh
dir="${1:-build}"
shift || true
ctest --test-dir "$dir" --output-on-failure -j "${JOBS:-2}" "$@" && exit 0

names=$(ctest_failed_names "$dir")
[ -n "$names" ] || exit 1
while read -r name; do
  log=$(ctest_test_log "$dir" "$name")
  if ! grep -q "LeakSanitizer has encountered a fatal error" <<< "$log" || ! grep -q "^Tracer caught signal" <<< "$log"; then
    exit 1
  fi
done <<< "$names"
echo "test.sh: LeakSanitizer's tracer crashed in $(wc -l <<< "$names") passing test(s); running them once more"
ctest --test-dir "$dir" --output-on-failure --rerun-failed
