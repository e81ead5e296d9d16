#!/usr/bin/env bash
# Configures and builds one of kiln's build configurations with CMake + Ninja (+ ccache):
#   bash scripts/build.sh release   -> build/       (RelWithDebInfo; the default)
#   bash scripts/build.sh asan      -> build-asan/  (AddressSanitizer + UBSan)
#   bash scripts/build.sh fuzz      -> build-fuzz/  (clang, libFuzzer targets)
# Extra arguments are passed to ninja (e.g. a target name). JOBS overrides -j (default: nproc).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# Let build trees in different directories (and fresh clones) share one ccache.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"

config="${1:-release}"
shift || true
python="$PWD/.venv/bin/python"
common=(-G Ninja -DKILN_PYTHON="$python")
case "$config" in
  release) dir=build;      flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo) ;;
  asan)    dir=build-asan; flags=(-DCMAKE_BUILD_TYPE=Debug -DKILN_SANITIZE=ON) ;;
  fuzz)    dir=build-fuzz; flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DKILN_FUZZ=ON
                                  -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang) ;;
  *) echo "usage: $0 release|asan|fuzz [ninja targets...]" >&2; exit 2 ;;
esac

echo "build: configuring $dir ($config)"
mkdir -p "$dir"
cmake -S . -B "$dir" "${common[@]}" "${flags[@]}" >"$dir/configure.log" 2>&1 || {
  cat "$dir/configure.log" >&2; exit 1; }
echo "build: building $dir"
ninja -C "$dir" -j "${JOBS:-$(nproc)}" "$@"
