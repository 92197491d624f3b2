#!/bin/sh
# run_suites.sh — runs stage suites against one track and prints a table: stage, checks,
# passed, failed. flipkit tests/: `make test` calls it. Exit status 1 if any check failed.
# Usage: run_suites.sh TRACK build/tests/test_STAGE...   (TRACK: student or reference)
track=$1; shift
log=$(mktemp) || exit 1
trap 'rm -f "$log"' EXIT
rows=""; total_fail=0
for bin in "$@"; do
    stage=${bin##*/test_}
    FLIPKIT_TRACK=$track "$bin" >"$log" 2>&1
    rc=$?
    # Check's summary line: "87%: Checks: 8, Failures: 1, Errors: 0"
    summary=$(grep -E '^[0-9]+%: Checks: ' "$log" | tail -n 1)
    if [ -z "$summary" ]; then
        cat "$log"
        rows="$rows$(printf '%-12s %6s %7s %7s   %s' "$stage" - - - "the suite did not run (exit $rc)")\n"
        total_fail=$((total_fail + 1))
        continue
    fi
    checks=$(echo "$summary" | sed -E 's/.*Checks: ([0-9]+).*/\1/')
    failures=$(echo "$summary" | sed -E 's/.*Failures: ([0-9]+).*/\1/')
    errors=$(echo "$summary" | sed -E 's/.*Errors: ([0-9]+).*/\1/')
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
