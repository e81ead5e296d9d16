#!/usr/bin/env bash
# Runs the ctest suite of a build directory (default build/), 2 tests at a time, printing the
# output of failing tests. Extra arguments go to ctest (e.g. -R oracle, -L unit).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
dir="${1:-build}"
shift || true
ctest --test-dir "$dir" --output-on-failure -j "${JOBS:-2}" "$@"
