#!/bin/sh
# check_cases.sh — every hidden grader case exercises every stage's boundary rules.
# flipkit tests/: `make check-grader` runs it. The cases of grader/cases/ are recorded with
# mkgolden --every-boundary (what make grade-data does) and must pass; each planted case in
# tests/grader/cases/ must be refused with the line that names it and what it lacks.
# Usage: check_cases.sh MKGOLDEN
set -u
mkgolden=${1:?usage: check_cases.sh MKGOLDEN}
out=$(mktemp -d) || exit 1
trap 'rm -rf "$out"' EXIT
fail=0
if "$mkgolden" --every-boundary "$out/hidden" grader/cases/*.json > "$out/hidden.txt" 2>&1; then
    echo "check-cases: the $(ls grader/cases/*.json | wc -l) cases of grader/cases/ have FLUID beside SOLID and beside AIR in their recorded substep"
else
    echo "FAIL check-cases: $(grep '^mkgolden' "$out/hidden.txt" | tail -n 1)"; fail=1
fi
# the planted cases, each with what its refusal must say
for want in "floating_8x7x6.json: in the recorded substep no FLUID cell is beside SOLID" \
            "full_8x7x6.json: in the recorded substep no FLUID cell is beside AIR"; do
    case=tests/grader/cases/${want%%:*}
    if "$mkgolden" --every-boundary "$out/planted" "$case" > "$out/planted.txt" 2>&1; then
        echo "FAIL check-cases: the planted $case was recorded; it should be refused (${want#*: })"; fail=1
    elif grep -q -F -- "$case: ${want#*: }" "$out/planted.txt"; then
        echo "check-cases: the planted $case is refused: ${want#*: }"
    else
        echo "FAIL check-cases: the planted $case was refused with another line: $(head -n 1 "$out/planted.txt")"; fail=1
    fi
done
exit "$fail"
