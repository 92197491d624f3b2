#!/bin/sh
# coverage_summary.sh — the lines of coverage a person reads after `make coverage`.
# flipkit tests/: gcovr's own table, cut down to the kit's parts and the track's stage files.
# Usage: coverage_summary.sh COV_BUILD TRACK
cov=$1; track=$2
dir=assignment; [ "$track" = reference ] && dir=reference
pct() { # pct FILTER... -> "NN.N% (covered/total)" of line coverage
    gcovr -r . --object-directory "$cov" "$@" 2>/dev/null | awk '/^TOTAL/ { print $4 " (" $3 " of " $2 " lines)" }'
}
echo "coverage: your stages ($dir/), line coverage by the stage suites:"
for s in ${STAGES:?run me from make, which reads the stages from common/stagelist.h}; do
    printf '  %-12s %s\n' "$s" "$(pct -f "$dir/$s\\.c")"
done
echo "coverage: common/ and reference/ together: $(pct -f common/ -f reference/)"
echo "coverage: per-line and per-branch detail: build/coverage/index.html"
