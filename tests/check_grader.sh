#!/bin/sh
# check_grader.sh — the grader is calibrated, fair and hard to break (make check-grader).
# flipkit tests/: the reference in C and on OpenCL scores full marks, the stubs score 0, each
# planted bug costs points in its own stage and nowhere else among the stages, and hostile
# stages are each reported for what they did while the rest is graded and nothing escapes.
# Usage: check_grader.sh FLIPGRADE CALIBRATE   (make grade-kit grade-data first)
set -u
grade=$1 calibrate=$2
out=build/check-grader
rm -rf "$out"; mkdir -p "$out/subs" "$out/tmp"
TMPDIR=$(cd "$out/tmp" && pwd); export TMPDIR
small=tests/grader/small.config
escape=/tmp/flipkit-hostile-escape
failed=0
fail() { echo "FAIL check-grader: $*"; failed=1; }

# "name points max reason" per part, from a report.json (written by grader/report.c, one key a line).
parts() {
    awk '/"name":/ { n = $0; sub(/^[^:]*: "/, "", n); sub(/",?$/, "", n) }
         /"points":/ { p = $2; sub(/,$/, "", p) }
         /"max":/ && n != "" { m = $2; sub(/,$/, "", m) }
         /"reason":/ { r = $0; sub(/^[^:]*: "/, "", r); sub(/",?$/, "", r); print n "\t" p "\t" m "\t" r }' "$1"
}
total_of() { awk '/^  "total":/ { t = $2; sub(/,$/, "", t); print t }' "$1"; }

submission() {   # submission NAME: a directory of the reference's eight stage files
    mkdir -p "$out/subs/$1/assignment"
    for s in advect gravity p2g g2p divergence laplacian jacobi gradient; do
        cp "reference/$s.c" "$out/subs/$1/assignment/$s.c"
    done
}

# 1. Calibration: the OpenCL stages on every case, the OpenCL pipeline on every graded scene.
"$calibrate" > "$out/calibrate.log" 2>&1 || { cat "$out/calibrate.log"; fail "calibrate: a threshold is too tight for the reference"; }
grep '^calibrate:' "$out/calibrate.log"

# 2. The reference's files as a submission: full marks, as a directory and as archives.
submission reference
"$grade" --quiet --out "$out/reports/reference" "$out/subs/reference" > "$out/reference.txt"
rc=$?
[ "$rc" -eq 0 ] || { cat "$out/reference.txt"; fail "the reference scored $(total_of "$out/reports/reference/report.json") (exit $rc), not full marks"; }
echo "check-grader: the reference's stage files: $(total_of "$out/reports/reference/report.json") points, exit $rc"
tar -czf "$out/subs/reference.tar.gz" -C "$out/subs/reference" assignment
"$grade" --quiet --parts stages --out "$out/reports/targz" "$out/subs/reference.tar.gz" > /dev/null ||
    fail "the reference as .tar.gz did not score full marks"
if command -v python3 > /dev/null; then
    (cd "$out/subs/reference" && python3 -c 'import sys, zipfile
z = zipfile.ZipFile(sys.argv[1], "w")
[z.write("assignment/%s.c" % s) for s in sys.argv[2:]]' ../reference.zip advect gravity p2g g2p divergence laplacian jacobi gradient)
    "$grade" --quiet --parts stages --out "$out/reports/zip" "$out/subs/reference.zip" > /dev/null ||
        fail "the reference as .zip did not score full marks"
else
    echo "check-grader: no python3 here to make a .zip; the .zip intake was not checked"
fi

# 3. The untouched stubs: 0.
"$grade" --quiet --config "$small" --out "$out/reports/stubs" assignment > /dev/null
[ "$(total_of "$out/reports/stubs/report.json")" = "0.0" ] ||
    fail "the stubs scored $(total_of "$out/reports/stubs/report.json"), not 0"

# 4. Every planted bug loses points in its own stage, with a reason naming the stage; no other
#    stage loses any.
caught=0 total=0
for patchfile in tests/mutants/*.patch; do
    name=$(basename "$patchfile" .patch); stage=${name%%-*}
    total=$((total + 1))
    submission "$name"
    patch -s -o "$out/subs/$name/assignment/$stage.c" "reference/$stage.c" < "$patchfile" ||
        { fail "$name does not apply"; continue; }
    "$grade" --quiet --parts stages --config "$small" --out "$out/reports/$name" "$out/subs/$name" > /dev/null
    ok=1
    parts "$out/reports/$name/report.json" > "$out/reports/$name/parts.tsv"
    while IFS="$(printf '\t')" read -r part points max reason; do
        if [ "$part" = "$stage" ]; then
            awk -v p="$points" -v m="$max" 'BEGIN { exit !(p < m) }' || { ok=0; fail "$name: $stage kept $points of $max"; }
            case "$reason" in *"$stage: "*) ;; *) ok=0; fail "$name: the reason does not name $stage: $reason";; esac
        elif [ "$points" != "$max" ]; then
            ok=0; fail "$name: $part lost points too ($points of $max): $reason"
        fi
    done < "$out/reports/$name/parts.tsv"
    [ "$ok" -eq 1 ] && caught=$((caught + 1)) &&
        echo "caught $name: $(grep "^$stage	" "$out/reports/$name/parts.tsv" | cut -f4 | cut -c1-110)"
done
echo "check-grader: $caught of $total planted bugs cost points in their own stage only"

# 5. Hostile stages: each reported for what it did; the others graded; nothing left behind.
rm -f "$escape"
hostile() {   # hostile NAME FILE... : the reference with these stages swapped for tests/hostile/FILE.c
    h=$1; shift
    submission "$h"
    for f in "$@"; do cp "tests/hostile/$f.c" "$out/subs/$h/assignment/${f%%-*}.c"; done
    "$grade" --quiet --config "$small" --out "$out/reports/$h" "$out/subs/$h" > "$out/$h.txt" 2>&1
    rc=$?
    [ "$rc" -eq 1 ] || fail "$h: the grader exited $rc, not 1 (graded, not full marks)"
    parts "$out/reports/$h/report.json" > "$out/reports/$h/parts.tsv"
}
expect() {    # expect HOSTILE STAGE TEXT: the stage scored 0 with TEXT in its reason
    line=$(grep "^$2	" "$out/reports/$1/parts.tsv")
    case "$line" in
        *"	0.0	"*"$3"*) echo "reported $2 ($1): $(echo "$line" | cut -f4 | cut -c1-100)";;
        *) fail "$1: $2 should score 0 for \"$3\": $line";;
    esac
}
full() {      # full HOSTILE STAGE: an untouched stage of a hostile submission keeps full marks
    grep -q "^$2	10.0	10.0	" "$out/reports/$1/parts.tsv" || fail "$1: $2 lost points: $(grep "^$2	" "$out/reports/$1/parts.tsv")"
}
hostile hostile-a p2g-segfaults advect-loops gravity-mallocs divergence-writes-1g g2p-forks \
                  laplacian-does-not-compile gradient-nan
expect hostile-a p2g "crashed: SIGSEGV"
expect hostile-a advect "killed after 3 s"
expect hostile-a gravity "ran out of memory"
expect hostile-a divergence "wrote a file larger than 64 MiB"
expect hostile-a g2p "tried to start a process (fork)"
expect hostile-a laplacian "does not compile: laplacian.c:"
expect hostile-a gradient "produced NaN"
full hostile-a jacobi
hostile hostile-b jacobi-floods advect-writes-outside
expect hostile-b jacobi "flooded its output"
expect hostile-b advect "tried to write outside its directory"
for s in gravity p2g g2p divergence laplacian gradient; do full hostile-b "$s"; done
# Cheating: including the reference's file, linking the output to the hidden answers, forking
# from a constructor before main. These two are made here: they need this kit's absolute path.
kit=$(pwd)
mkdir -p "$out/hostile"
printf '#include "%s/reference/p2g.c"\n' "$kit" > "$out/hostile/p2g-includes-reference.c"
answer=$(ls "$kit/build/grader/data/hidden/gravity/"*.state | head -n 1)
cat > "$out/hostile/gravity-links-answer.c" <<EOC
/* Links its output to the reference's answer for the case, then leaves before writing. */
#include <unistd.h>
#include "stages.h"
void gravity(MacGrid *g, Vec3 gravity_ms2, float dt)
{
    (void)g, (void)gravity_ms2, (void)dt;
    symlink("$answer", "out.state");
    _exit(0);
}
EOC
hostile_c() {
    submission hostile-c
    cp "$out/hostile/p2g-includes-reference.c" "$out/subs/hostile-c/assignment/p2g.c"
    cp "$out/hostile/gravity-links-answer.c" "$out/subs/hostile-c/assignment/gravity.c"
    cp tests/hostile/divergence-forks-early.c "$out/subs/hostile-c/assignment/divergence.c"
    "$grade" --quiet --parts stages --config "$small" --out "$out/reports/hostile-c" "$out/subs/hostile-c" > "$out/hostile-c.txt" 2>&1
    parts "$out/reports/hostile-c/report.json" > "$out/reports/hostile-c/parts.tsv"
}
hostile_c
expect hostile-c p2g "does not compile"
expect hostile-c gravity "is not a file it wrote"
expect hostile-c divergence "forbidden system call (fork)"
for s in advect g2p laplacian jacobi gradient; do full hostile-c "$s"; done

[ -e "$escape" ] && fail "a hostile stage wrote $escape outside its directory"
left=$(ls -A "$TMPDIR")
[ -z "$left" ] || fail "the grader left work files behind in $TMPDIR: $left"

[ "$failed" -eq 0 ] && echo "check-grader: all passed"
exit "$failed"
