#!/usr/bin/env bash
# Checks that every tracked C++ source follows .clang-format (clang-format 14, Debian's
# `clang-format` package; scripts/setup.sh installs it). Prints each file that differs and
# exits 1; `bash scripts/check-format.sh --fix` formats them in place instead. ctest runs the
# check as `format` (tests/CMakeLists.txt), so CI fails on an unformatted file.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

format=$(command -v clang-format-14 || command -v clang-format || true)
if [[ -z "$format" ]]; then
  echo "check-format: clang-format not found (apt-get install clang-format)" >&2
  exit 1
fi
mapfile -t files < <(git ls-files '*.cc' '*.h' ':!:tests/golden/**')
if [[ "${1:-}" == "--fix" ]]; then
  "$format" -i "${files[@]}"
  exit 0
fi
bad=()
for f in "${files[@]}"; do
  "$format" --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if [[ ${#bad[@]} -gt 0 ]]; then
  printf 'check-format: not formatted (bash scripts/check-format.sh --fix): %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files formatted as .clang-format says"
