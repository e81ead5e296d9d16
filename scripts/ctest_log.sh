# Reading a build directory's last ctest run (sourced by scripts/test.sh and .ci/run).

# The names of the tests that failed in DIR's last ctest run, one a line.
ctest_failed_names() {
  local list=$1/Testing/Temporary/LastTestsFailed.log
  [ -s "$list" ] && cut -d: -f2- "$list"
  return 0
}

# The whole log of test NAME in DIR's last ctest run: its command, output and result.
ctest_test_log() {
  awk -v n="$2" '!on && match($0, /^[0-9]+\/[0-9]+ Test: /) && substr($0, RLENGTH + 1) == n {on = 1}
                 on {print} on && /^"[^"]*" end time:/ {exit}' "$1/Testing/Temporary/LastTest.log"
}
