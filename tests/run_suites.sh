#!/bin/sh
# run_suites.sh — runs stage suites against one track and prints a table: stage, checks,
# passed, failed. flipkit tests/: `make test` calls it. Exit status 1 if any check failed.
# The counts come from the XML record Check writes of every test (CK_XML_LOG_FILE_NAME:
# result="success", "failure" or "error"), not from its summary line for people.
# Usage: run_suites.sh TRACK build/tests/test_STAGE...   (TRACK: student or reference)
track=$1; shift
log=$(mktemp) || exit 1
xml=$(mktemp) || exit 1
trap 'rm -f "$log" "$xml"' EXIT
count() { grep -o "result=\"$1\"" "$xml" | wc -l; }
rows=""; total_fail=0
for bin in "$@"; do
    stage=${bin##*/test_}
    : > "$xml"
    CK_XML_LOG_FILE_NAME=$xml FLIPKIT_TRACK=$track "$bin" >"$log" 2>&1
    rc=$?
    if ! grep -q '</testsuites>' "$xml"; then
        cat "$log"
        rows="$rows$(printf '%-12s %6s %7s %7s   %s' "$stage" - - - "the suite did not run (exit $rc)")\n"
        total_fail=$((total_fail + 1))
        continue
    fi
    passes=$(count success) failures=$(count failure) errors=$(count error)
    checks=$((passes + failures + errors))
    failed=$((failures + errors))
    note=""
    [ "$errors" -gt 0 ] && note="($errors crashed or timed out)"
    if [ "$failed" -gt 0 ]; then
        echo "---- $stage ----"
        grep -v -E '^(Running suite|Testing the|[0-9]+%: Checks)' "$log"
    fi
    rows="$rows$(printf '%-12s %6d %7d %7d   %s' "$stage" "$checks" $((checks - failed)) "$failed" "$note")\n"
    total_fail=$((total_fail + failed))
done
echo
echo "make test: the $track track"
printf '%-12s %6s %7s %7s\n' stage checks passed failed
printf "$rows"
if [ "$total_fail" -gt 0 ]; then
    echo "make test: $total_fail check(s) failed; 'make test-STAGE' runs one stage, CK_RUN_CASE=golden one case"
    exit 1
fi
echo "make test: all passed"
