#!/bin/sh
# check_grader.sh — the grader is calibrated, fair and hard to break (make check-grader).
# flipkit tests/: the reference in C and on OpenCL scores full marks, the stubs score 0, each
# planted bug costs points in its own stage and nowhere else among the stages, and hostile
# stages are each reported for what they did while the rest is graded and nothing escapes.
# Usage: check_grader.sh FLIPGRADE CALIBRATE   (make grade-kit grade-data first)
set -u
: "${STAGES:?run me from make, which reads the stages from common/stagelist.h}"
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
    for s in $STAGES; do
        cp "reference/$s.c" "$out/subs/$1/assignment/$s.c"
    done
}

# 0. A kit or data that is missing or stale is refused (exit 2, one line naming the make target),
#    never graded as zeros; nothing is written.
submission ready
refused() {   # refused WHAT TARGET FLIPGRADE-ARGS...: exit 2, one line naming `make TARGET`
    what=$1 target=$2; shift 2
    rm -rf "$out/reports/refused"
    "$grade" --quiet --out "$out/reports/refused" "$@" "$out/subs/ready" > "$out/refused.txt" 2>&1; rc=$?
    if [ "$rc" -eq 2 ] && [ "$(wc -l < "$out/refused.txt")" -eq 1 ] && grep -q "run \`make $target\`" "$out/refused.txt" &&
       [ ! -e "$out/reports/refused/report.json" ]; then
        echo "refused ($what): $(cat "$out/refused.txt")"
    else
        fail "$what: exit $rc, not 2 with one line naming make $target and no report: $(cat "$out/refused.txt")"
    fi
}
mkdir -p "$out/nokit" "$out/nodata"
refused "no kit" grade-kit --objects "$out/nokit"
refused "no data" grade-data --data "$out/nodata"
cp -r build/grader/kit "$out/stalekit"; touch -d 2000-01-01 "$out/stalekit/include/.made"
refused "stale kit" grade-kit --objects "$out/stalekit"

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
[z.write("assignment/%s.c" % s) for s in sys.argv[2:]]' ../reference.zip $STAGES)
    "$grade" --quiet --parts stages --out "$out/reports/zip" "$out/subs/reference.zip" > /dev/null ||
        fail "the reference as .zip did not score full marks"
else
    echo "check-grader: no python3 here to make a .zip; the .zip intake was not checked"
fi
# The build cache (buildcache.c): by now the .tar.gz's builds came from it; the same parts
# with it as without it.
"$grade" --quiet --parts stages --no-cache --out "$out/reports/nocache" "$out/subs/reference" > /dev/null ||
    fail "the reference graded with --no-cache did not score full marks"
parts "$out/reports/targz/report.json" > "$out/cached.tsv"
parts "$out/reports/nocache/report.json" > "$out/nocache.tsv"
cmp -s "$out/cached.tsv" "$out/nocache.tsv" ||
    fail "the build cache changed the stage parts: $(diff "$out/nocache.tsv" "$out/cached.tsv" | head -4)"
[ -n "$(ls -A build/grader/cache 2>/dev/null)" ] || fail "the grader kept nothing in build/grader/cache"

# 3. The untouched stubs: 0.
"$grade" --quiet --config "$small" --out "$out/reports/stubs" assignment > /dev/null
[ "$(total_of "$out/reports/stubs/report.json")" = "0.0" ] ||
    fail "the stubs scored $(total_of "$out/reports/stubs/report.json"), not 0"

# 4. Every planted bug loses points in its own stage, with a reason naming the stage; no other
#    stage loses any.
caught=0 total=0
# The stencil's bugs at the grid's edges (issue 39) are the same kind: the base clamped onto the
# last face, the fraction taken before the base is clamped, the particle clamped instead of the
# stencil change the weights only past the outermost face rows (within half a cell of the box)
# or exactly on its upper bound, inside the outer SOLID layer.
suite_only="p2g-skips-last-face-layer g2p-skips-last-face-layer"
suite_only="$suite_only p2g-base-clamped-to-last-face g2p-base-clamped-to-last-face"
suite_only="$suite_only p2g-upper-bound-on-face-below g2p-upper-bound-on-face-below"
suite_only="$suite_only p2g-clamps-the-particle g2p-clamps-the-particle"
for patchfile in tests/mutants/*.patch; do
    name=$(basename "$patchfile" .patch); stage=${name%%-*}
    total=$((total + 1))
    submission "$name"
    patch -s -o "$out/subs/$name/assignment/$stage.c" "reference/$stage.c" < "$patchfile" ||
        { fail "$name does not apply"; continue; }
    "$grade" --quiet --parts stages --config "$small" --out "$out/reports/$name" "$out/subs/$name" > /dev/null
    ok=1
    parts "$out/reports/$name/report.json" > "$out/reports/$name/parts.tsv"
    # Bugs no real run can show: particles are kept out of the outer SOLID layer, so no substep
    # reaches the wall's last face layer, nor a stencil's clamp. The suites' hand-worked cases
    # catch them (the contract covers any position); the grader, which grades what a run does,
    # must not take points.
    case " $suite_only " in *" $name "*)
        if awk -F '\t' '$2 != $3 { bad = 1 } END { exit !bad }' "$out/reports/$name/parts.tsv"; then
            fail "$name: a bug no run can show cost points: $(awk -F '\t' '$2 != $3' "$out/reports/$name/parts.tsv")"
        else
            caught=$((caught + 1)); echo "suite only $name: no run reaches the outer SOLID layer; full marks, as it should"
        fi
        continue;;
    esac
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
echo "check-grader: $caught of $total planted bugs cost points in their own stage only (or, for the $(echo $suite_only | wc -w) no run can show, none)"

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
expect hostile-a advect "used more than 3 s of CPU"
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
# from a constructor before main; and including another of its own stage files, which the
# cache's keys (one file each) rely on being impossible. Made here: the first two need this
# kit's absolute path.
kit=$(pwd)
mkdir -p "$out/hostile"
printf '#include "%s/reference/p2g.c"\n' "$kit" > "$out/hostile/p2g-includes-reference.c"
printf '#include "jacobi.c"\n' > "$out/hostile/laplacian-includes-jacobi.c"   # its own, but another stage
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
    cp "$out/hostile/laplacian-includes-jacobi.c" "$out/subs/hostile-c/assignment/laplacian.c"
    "$grade" --quiet --parts stages --config "$small" --out "$out/reports/hostile-c" "$out/subs/hostile-c" > "$out/hostile-c.txt" 2>&1
    parts "$out/reports/hostile-c/report.json" > "$out/reports/hostile-c/parts.tsv"
}
hostile_c
expect hostile-c p2g "does not compile"
expect hostile-c gravity "forbidden system call (symlink)"   # and the grader reads no link anyway
expect hostile-c divergence "tried to start a process (fork)"
expect hostile-c laplacian "fatal error: jacobi.c: No such file or directory (a stage file compiles on its own"
for s in advect g2p jacobi gradient; do full hostile-c "$s"; done

# 5b. Names are data, never code (grader/README.md, "A class"). A class whose entries are named
#     to run a command or to add CSV fields, beside two honest ones, through make grade: each
#     hostile name refused by name in one line, the honest ones graded with full marks, nothing
#     run, and grades.csv read back by Python's csv module with the header's field count on
#     every row. Then grades.csv from hand-made reports whose names a spreadsheet would run as
#     formulas: each kept as text behind an apostrophe, by Python's csv and by LibreOffice.
names=$out/names
mkdir -p "$names/subs"
honest="honest-1 honest_2"
nl='
'
for n in $honest 'x$(touch${IFS}MARKER)y' 'a`touch${IFS}MARKER`b' 'a;touch MARKER' "new${nl}line" \
         '-rf' '=1+1' 'a,b'; do
    mkdir -p "$names/subs/$n/assignment"
    for s in $STAGES; do cp "reference/$s.c" "$names/subs/$n/assignment/$s.c"; done
done
MAKEFLAGS= make -s --no-print-directory grade SUBMISSIONS="$names/subs/" JOBS=2 GRADE_CONFIG="$small" \
    GRADE_PARTS=stages GRADE_REPORTS="$names/reports" GRADES_CSV="$names/grades.csv" > "$names/make.txt" 2>&1
rc=$?
marker=$(ls -d MARKER 2>/dev/null; find "$out" "$TMPDIR" -name MARKER)
[ -z "$marker" ] && echo "names: no MARKER: no name ran as a command" ||
    fail "names: a submission's name ran a command: $marker"
[ "$rc" -ne 0 ] || fail "names: make grade exited 0 with names refused (it must say not everything was graded)"
# each as flipgrade shows it (escape.h: a newline as \n), in exactly one line
for shown in 'x$(touch${IFS}MARKER)y' 'a`touch${IFS}MARKER`b' 'a;touch MARKER' 'new\nline' '-rf' '=1+1' 'a,b'; do
    count=$(grep -cF "refused \"$shown\"" "$names/make.txt")
    [ "$count" -eq 1 ] && printf 'names: refused by name: %s\n' "$shown" ||
        fail "names: $shown refused in $count lines, not 1: $(head -c 600 "$names/make.txt")"
done
for n in $honest; do
    parts "$names/reports/$n/report.json" > "$names/$n.tsv" 2>/dev/null
    [ -s "$names/$n.tsv" ] && ! awk -F '\t' '$2 != $3 { bad = 1 } END { exit !bad }' "$names/$n.tsv" ||
        fail "names: $n did not score full marks: $(cat "$names/$n.tsv" "$names/reports/$n/flipgrade.txt" 2>&1 | head -5)"
done
if command -v python3 > /dev/null; then
    python3 - "$names/grades.csv" $honest > "$names/csv.txt" 2>&1 <<'EOF' || fail "names: grades.csv: $(cat "$names/csv.txt")"
import csv, sys
raw = open(sys.argv[1], "rb").read()
assert raw.endswith(b"\r\n") and raw.count(b"\r\n") == raw.count(b"\n"), "not CRLF line ends: %r" % raw[:200]
rows = list(csv.reader(open(sys.argv[1], newline="")))
head, body = rows[0], rows[1:]
assert all(len(r) == len(head) for r in body), "a row with another field count than the header's %d: %r" % (len(head), rows)
assert [r[0] for r in body] == sys.argv[2:], "students %r, not %r" % ([r[0] for r in body], sys.argv[2:])
for r in body:
    assert r[head.index("total")] == r[head.index("max")] == "80.0", "not full marks: %r" % r
print("names: grades.csv read back: %d rows of %d fields, %s" % (len(body), len(head), ", ".join(r[0] for r in body)))
EOF
    cat "$names/csv.txt"
else
    echo "check-grader: names: SKIPPED reading grades.csv back: no python3"
fi

# The CSV writer is safe for any report, not only for a safe name.
if command -v python3 > /dev/null; then
    mkdir -p "$names/formulas"
    python3 - "$names/formulas" <<'EOF' || fail "names: could not write the hand-made reports"
import json, sys
for i, s in enumerate(["=1+1,2,3", '-2+3,"x"', "\t=cmd", "\r=x", "@SUM(A1)"]):
    json.dump({"student": s, "total": 3, "max": 10, "parts": [{"name": "p2g", "points": 3}]},
              open("%s/r%d.json" % (sys.argv[1], i), "w"))
EOF
    "$grade" --class-csv "$names/formulas.csv" "$names/formulas/r0.json" "$names/formulas/r1.json" \
        "$names/formulas/r2.json" "$names/formulas/r3.json" "$names/formulas/r4.json" ||
        fail "names: flipgrade --class-csv refused the hand-made reports"
    python3 - "$names/formulas.csv" > "$names/formulas.txt" 2>&1 <<'EOF' || fail "names: formulas.csv: $(cat "$names/formulas.txt")"
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
want = ["=1+1,2,3", '-2+3,"x"', "\t=cmd", "\r=x", "@SUM(A1)"]
assert rows[0] == ["student", "p2g", "total", "max", "status"], rows[0]
assert len(rows) == 1 + len(want), "%d rows, not %d: %r" % (len(rows), 1 + len(want), rows)
for r, w in zip(rows[1:], want):
    assert r == ["'" + w, "3.0", "3.0", "10.0", "graded"], "%r, not the guarded %r" % (r, w)
print("names: formulas.csv read back: 5 rows of 5 fields, each name kept behind its apostrophe")
EOF
    cat "$names/formulas.txt"
fi
# LibreOffice as a second reader (.ci/run installs it), told to evaluate formulas on import: a
# control file with an unguarded =1+1 proves it would, and the guarded file must have none.
if command -v soffice > /dev/null && command -v python3 > /dev/null; then
    printf 'student,x\r\n=1+1,1.0\r\n' > "$names/control.csv"
    # CSV import options: comma, double quote, UTF-8, from line 1, ..., evaluate formulas (13th)
    filter='Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,false,false,false,-1,true'
    for f in control formulas; do
        timeout 120 soffice --headless --norestore "-env:UserInstallation=file://$(cd "$names" && pwd)/lo-profile" \
            --infilter="$filter" --convert-to fods --outdir "$names" "$names/$f.csv" > "$names/soffice-$f.txt" 2>&1
    done
    python3 - "$names/control.fods" "$names/formulas.fods" > "$names/lo.txt" 2>&1 <<'EOF' || fail "names: LibreOffice: $(cat "$names/lo.txt")"
import sys
import xml.etree.ElementTree as ET
T = "{urn:oasis:names:tc:opendocument:xmlns:table:1.0}"
X = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
def cells(path):
    rows = []
    for row in ET.parse(path).iter(T + "table-row"):
        rows.append([(c.get(T + "formula"), "".join("".join(p.itertext()) for p in c.iter(X + "p")))
                     for c in row.iter(T + "table-cell")])
    return rows
control = cells(sys.argv[1])
assert control[1][0][0], "LibreOffice evaluated no formula even unguarded, so this check proves nothing: %r" % control
rows = cells(sys.argv[2])
formulas = [c for r in rows for c in r if c[0]]
assert not formulas, "LibreOffice ran formulas: %r" % formulas
students = [r[0][1] for r in rows[1:6]]
assert all(s.startswith("'") for s in students), "a name lost its apostrophe: %r" % students
print("names: LibreOffice read formulas.csv: no formula evaluated (the control's =1+1 was), names %r" % students)
EOF
    cat "$names/lo.txt"
else
    echo "check-grader: names: LibreOffice SKIPPED: no soffice here (.ci/run installs libreoffice-calc-nogui)"
fi

# 5c. A whole-scene part tests what it names: a jacobi that hands each solve to the kit's own
#     SOR (given_solve_sor, which given.h declares) gets no frame of a .jacobi run, where the
#     given solver is a trap (grader/solvertrap.c); the .gauss_seidel runs, which link the real
#     one, keep full marks. grader/config: both scenes, 20 frames.
hostile_given() {
    submission hostile-given
    cp tests/hostile/jacobi-calls-given-solver.c "$out/subs/hostile-given/assignment/jacobi.c"
    "$grade" --quiet --out "$out/reports/hostile-given" "$out/subs/hostile-given" > "$out/hostile-given.txt" 2>&1
    parts "$out/reports/hostile-given/report.json" > "$out/reports/hostile-given/parts.tsv"
}
hostile_given
expect hostile-given jacobi "called the given solver (given_solve_sor)"
for sc in ball_drop dam_break; do
    line=$(grep "^$sc.jacobi	" "$out/reports/hostile-given/parts.tsv")
    case "$line" in
        *"	0.0	5.0	called the given solver (given_solve_sor): only the gauss_seidel scene runs link it"*)
            echo "refused $sc.jacobi (hostile-given): $(echo "$line" | cut -f4 | cut -c1-100)";;
        *) fail "hostile-given: $sc.jacobi should score 0 for calling the given solver: $line";;
    esac
    grep -q "^$sc.gauss_seidel	5.0	5.0	" "$out/reports/hostile-given/parts.tsv" ||
        fail "hostile-given: $sc.gauss_seidel lost points: $(grep "^$sc.gauss_seidel	" "$out/reports/hostile-given/parts.tsv")"
done
for s in advect gravity p2g g2p divergence laplacian gradient; do full hostile-given "$s"; done

# ---- intake (issue 36, point 1) ------------------------------------------------------------------
# 5d. Headers, types and names in a submission are the student's: the reference's eight files with
#     one lie each (tests/grader/mkarchive.py). A tar whose p2g.c pax header says size -1 (this
#     crashed flipgrade), a zip whose laplacian.c is 2 MiB, a directory whose advect.c is a FIFO
#     and whose gravity.c links to /etc/shadow. flipgrade exits 0 or 1 with report.json, the
#     refused stage's reason names the file and says why, the other stages keep full marks, and
#     no work directory is left behind.
intake_case() {   # intake_case NAME SUBMISSION STAGE:TEXT... : each STAGE 0 with TEXT, the rest full
    name=$1 sub=$2; shift 2
    works=$(ls -A "$TMPDIR" | grep -c '^flipgrade\.')
    timeout 300 "$grade" --quiet --parts stages --config "$small" --out "$out/reports/$name" "$sub" > "$out/$name.txt" 2>&1
    rc=$?
    if [ "$rc" -gt 1 ] || [ ! -s "$out/reports/$name/report.json" ]; then
        fail "$name: flipgrade exited $rc (0 or 1 expected) or wrote no report.json: $(tail -n 3 "$out/$name.txt")"
        return
    fi
    parts "$out/reports/$name/report.json" > "$out/reports/$name/parts.tsv"
    refused=""
    for want in "$@"; do
        refused="$refused ${want%%:*}"
        expect "$name" "${want%%:*}" "${want#*:}"
    done
    for s in $STAGES; do
        case " $refused " in *" $s "*) ;; *) full "$name" "$s";; esac
    done
    [ "$(ls -A "$TMPDIR" | grep -c '^flipgrade\.')" -le "$works" ] || fail "$name: a work directory was left in $TMPDIR"
}
if command -v python3 > /dev/null; then
    tests/grader/mkarchive.py "$out/subs/intake-realsize.tar" reference --realsize p2g=-1
    intake_case intake-realsize "$out/subs/intake-realsize.tar" \
        "p2g:assignment/p2g.c: refused: the archive header gives size -1"
    tests/grader/mkarchive.py "$out/subs/intake-oversize.zip" reference --oversize laplacian
    intake_case intake-oversize "$out/subs/intake-oversize.zip" \
        "laplacian:assignment/laplacian.c: refused: larger than 1 MiB"
else
    echo "check-grader: no python3 here to write the lying archives; the intake's archive refusals were not checked"
fi
submission intake-odd
rm "$out/subs/intake-odd/assignment/advect.c" "$out/subs/intake-odd/assignment/gravity.c"
mkfifo "$out/subs/intake-odd/assignment/advect.c"
ln -s /etc/shadow "$out/subs/intake-odd/assignment/gravity.c"
intake_case intake-odd "$out/subs/intake-odd" \
    "advect:assignment/advect.c: refused: a FIFO, not a regular file" \
    "gravity:assignment/gravity.c: refused: a symbolic link, not a regular file"

# 5e. A failure of the grader itself is never a student's zero (grader/README.md, "When the
#     grader fails"). The test hook FLIPGRADE_TEST_FAIL_START=NAME:FIRST[:COUNT] makes those
#     sandbox starts of NAME's grading fail as a refused clone would: once, the run is retried
#     and the grade is whole; twice, the part is `error` (no score, status error in report.json
#     and grades.csv), make grade fails and names the ONLY= that grades it again, which then
#     gives full marks and a CSV of graded rows. A class whose reference check fails grades no one.
infra=$out/infra
mkdir -p "$infra/subs"
for n in ok-1 ok-2; do
    mkdir -p "$infra/subs/$n/assignment"
    for s in $STAGES; do cp "reference/$s.c" "$infra/subs/$n/assignment/$s.c"; done
done
FLIPGRADE_TEST_FAIL_START=ok-1:3 "$grade" --quiet --config "$small" --parts stages --out "$infra/once" \
    "$infra/subs/ok-1" > "$infra/once.txt" 2>&1; rc=$?
[ "$rc" -eq 0 ] && grep -q '"full_marks": true' "$infra/once/report.json" &&
    echo "infra: a start that failed once was retried: full marks" ||
    fail "infra: a start that failed once: exit $rc, not 0 with full marks: $(tail -n 3 "$infra/once.txt")"
class_infra() {   # class_infra LOG [make variables...]: make grade of the class, its exit status in $rc
    log=$1; shift
    MAKEFLAGS= make -s --no-print-directory grade SUBMISSIONS="$infra/subs/" JOBS=2 GRADE_CONFIG="$small" \
        GRADE_PARTS=stages GRADE_REPORTS="$infra/reports" GRADES_CSV="$infra/grades.csv" "$@" > "$log" 2>&1
    rc=$?
}
csv_row() { tr -d '\r' < "$infra/grades.csv" | grep "^$1,"; }
FLIPGRADE_TEST_FAIL_START=ok-2:3:2 class_infra "$infra/twice.txt"
[ "$rc" -ne 0 ] || fail "infra: make grade exited 0 with a part the grader failed on twice"
row=$(csv_row ok-2)
case "$row" in
    ok-2,*,,80.0,error) echo "infra: the part the grader failed on twice: $row (no score, status error)" ;;
    *) fail "infra: grades.csv row of ok-2 is \"$row\", not an empty score and total with status error" ;;
esac
[ "$(csv_row ok-1)" = "ok-1,10.0,10.0,10.0,10.0,10.0,10.0,10.0,10.0,80.0,80.0,graded" ] ||
    fail "infra: ok-1, graded beside it, is \"$(csv_row ok-1)\", not full marks and graded"
# which run is the third depends on the build cache (a compile, or a stage's case): any one part
[ "$(grep -Ec '^[a-z0-9]+ +error +10.0  grading error: .*twice: could not start: clone' "$infra/reports/ok-2/flipgrade.txt")" -eq 1 ] &&
    grep -q "^total *error *80.0  no grade: 1 part could not be graded" "$infra/reports/ok-2/flipgrade.txt" ||
    fail "infra: ok-2's table does not show one part as error with its reason: $(cat "$infra/reports/ok-2/flipgrade.txt")"
grep -qF "make grade SUBMISSIONS=$infra/subs/ ONLY='ok-2'" "$infra/twice.txt" &&
    echo "infra: $(grep -F "ONLY='ok-2'" "$infra/twice.txt" | cut -c1-120)..." ||
    fail "infra: make grade did not name the ONLY='ok-2' that grades it again: $(tail -n 3 "$infra/twice.txt")"
class_infra "$infra/only.txt" ONLY=ok-2
[ "$rc" -eq 0 ] && [ "$(csv_row ok-2)" = "ok-2,10.0,10.0,10.0,10.0,10.0,10.0,10.0,10.0,80.0,80.0,graded" ] &&
    [ "$(csv_row ok-1 | cut -d, -f10-)" = "80.0,80.0,graded" ] &&
    echo "infra: ONLY=ok-2 graded it alone: full marks, the CSV rewritten from both reports" ||
    fail "infra: ONLY=ok-2: exit $rc, rows \"$(csv_row ok-1)\" \"$(csv_row ok-2)\": $(tail -n 3 "$infra/only.txt")"
rm -rf "$infra/reports"
FLIPGRADE_TEST_FAIL_START=reference:2:2 class_infra "$infra/broken.txt"
graded=$(find "$infra/reports" -path "*/ok-*/report.json" | wc -l)
[ "$rc" -ne 0 ] && [ "$graded" -eq 0 ] && grep -q "the reference's own files did not get full marks" "$infra/broken.txt" &&
    echo "infra: the reference's files without full marks: $(grep "did not get full marks" "$infra/broken.txt" | cut -c1-100)..." ||
    fail "infra: a class whose reference check failed: exit $rc, $graded students graded: $(tail -n 2 "$infra/broken.txt")"

# 5f. Auditable grades: every report names its grader, the hashes of its config and data, and
#     when; --class-csv refuses reports graded under two configs (one line naming both files,
#     no CSV written); a class run ends with one summary line (graded, errors, mean per part).
audit=$out/audit
mkdir -p "$audit"
cp "$small" "$audit/other.config"
echo "# the same settings, another file: another grading" >> "$audit/other.config"
for c in "a:$small" "b:$audit/other.config"; do
    "$grade" --quiet --config "${c#*:}" --parts stages --out "$audit/${c%%:*}" "$infra/subs/ok-1" > "$audit/${c%%:*}.txt" 2>&1
done
grep -Eq '^  "grader": ".+ \(binary [0-9a-f]{16}\)",$' "$audit/a/report.json" &&
    grep -Eq '^  "config_hash": "[0-9a-f]{16}",$' "$audit/a/report.json" &&
    grep -Eq '^  "data_hash": "[0-9a-f]{16}",$' "$audit/a/report.json" &&
    grep -Eq '^  "graded_at": "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z",$' "$audit/a/report.json" &&
    echo "audit: report.json has $(grep -E '"(grader|config_hash|data_hash|graded_at)"' "$audit/a/report.json" | tr -d ' \n')" ||
    fail "audit: $audit/a/report.json lacks the grader, config_hash, data_hash or graded_at: $(head -n 14 "$audit/a/report.json")"
cp "$audit/a/report.json" "$audit/a-again.json"
"$grade" --class-csv "$audit/mixed.csv" "$audit/a/report.json" "$audit/b/report.json" > "$audit/mixed.txt" 2>&1; rc=$?
if [ "$rc" -eq 2 ] && [ "$(wc -l < "$audit/mixed.txt")" -eq 1 ] && [ ! -e "$audit/mixed.csv" ] &&
   grep -qF "$audit/b/report.json: graded with another config than $audit/a/report.json" "$audit/mixed.txt"; then
    echo "audit: --class-csv refused two configs: $(cut -c1-140 "$audit/mixed.txt")..."
else
    fail "audit: --class-csv of two configs: exit $rc, not 2 with one line naming both and no CSV: $(cat "$audit/mixed.txt")"
fi
"$grade" --class-csv "$audit/same.csv" "$audit/a/report.json" "$audit/a-again.json" > "$audit/same.txt" 2>&1 ||
    fail "audit: --class-csv refused two reports of one config: $(cat "$audit/same.txt")"
for want in "twice.txt:2 reports, 1 graded, 1 with errors; mean per part: advect 10.0/10.0, gravity 10.0/10.0, p2g 10.0/10.0," \
            "only.txt:2 reports, 2 graded, 0 with errors; mean per part: advect 10.0/10.0"; do
    grep -qF "the CSV's ${want#*:}" "$infra/${want%%:*}" &&
        echo "audit: summary: $(grep -F "the CSV's" "$infra/${want%%:*}" | cut -c1-110)..." ||
        fail "audit: $infra/${want%%:*} has no summary line \"${want#*:}\": $(grep -F "the CSV's" "$infra/${want%%:*}")"
done

# 5g. Time limits measure the student, not the neighbours (grader/README.md, "Time limits"):
#     a limit is CPU time, which pinning to one core makes the program's own. Three gradings
#     share one CPU: an honest submission and two whose gravity spins four busy threads for
#     0.3 s in every call. With scene_seconds = 2 the honest jacobi run needs about 1.1 s of
#     CPU, and a third of the core makes that over 3 s of wall clock: a wall-clock limit
#     would cut it. The spinners lose their scenes to their own CPU time; the honest one keeps
#     full marks.
fair=$out/fair
mkdir -p "$fair/subs"
sed "s/scene_seconds = 30.0;/scene_seconds = 2.0;/" "$small" > "$fair/tight.config"
grep -q "scene_seconds = 2.0;" "$fair/tight.config" || fail "fair: $small has no 'scene_seconds = 30.0;' to tighten"
for n in honest spin-1 spin-2; do
    mkdir -p "$fair/subs/$n/assignment"
    for s in $STAGES; do cp "reference/$s.c" "$fair/subs/$n/assignment/$s.c"; done
done
for n in spin-1 spin-2; do
    f=$fair/subs/$n/assignment/gravity.c
    sed 's/^void gravity(MacGrid \*g, Vec3 gravity_ms2, float dt)$/static void gravity_honest(MacGrid *g, Vec3 gravity_ms2, float dt)/' \
        reference/gravity.c > "$f"
    grep -q "gravity_honest" "$f" || fail "fair: reference/gravity.c has no 'void gravity(MacGrid *g, Vec3 gravity_ms2, float dt)' line to wrap"
    cat >> "$f" <<'EOC'
/* Busy: four threads spin for 0.3 s of wall clock in every call, then the honest answer. */
#include <pthread.h>
#include <time.h>
static double spin_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
static void *spin_thread(void *arg)
{
    volatile unsigned long x = 0;
    while (spin_now() < *(const double *)arg)
        x++;
    return NULL;
}
void gravity(MacGrid *g, Vec3 gravity_ms2, float dt)
{
    double until = spin_now() + 0.3;
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, spin_thread, &until);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    gravity_honest(g, gravity_ms2, dt);
}
EOC
done
taskset -c 0 "$grade" --class "$fair/subs" --jobs 3 --config "$fair/tight.config" --parts scenes \
    --reports "$fair/reports" --class-csv "$fair/grades.csv" > "$fair/class.txt" 2>&1
fair_row() { tr -d '\r' < "$fair/grades.csv" | grep "^$1,"; }
[ "$(fair_row honest)" = "honest,5.0,5.0,10.0,10.0,graded" ] &&
    echo "fair: an honest submission sharing its CPU with two busy ones: $(fair_row honest)" ||
    fail "fair: the honest submission beside two busy ones is \"$(fair_row honest)\", not full marks: $(grep -A3 '^part' "$fair/reports/honest/flipgrade.txt" | tail -n 2)"
for n in spin-1 spin-2; do
    grep -q "^ball_drop.jacobi .*used more than 2 s of CPU" "$fair/reports/$n/flipgrade.txt" &&
        echo "fair: $n: $(grep '^ball_drop.jacobi' "$fair/reports/$n/flipgrade.txt" | cut -c1-110)" ||
        fail "fair: $n did not spin through its scenes (no 'used more than 2 s of CPU'): $(grep '^ball_drop' "$fair/reports/$n/flipgrade.txt")"
done

# 5h. A stage that does not compile scores 0 in every part that runs it (grader/README.md,
#     "What is graded"): the kit's stub standing in would earn points for code the student
#     did not write (a falling ball needs no pressure solve: 2.3 of 5 for a stub jacobi). The
#     .jacobi run calls jacobi: 0 with the reason; the .gauss_seidel run does not: full marks.
nobuild=$out/nobuild
mkdir -p "$nobuild/sub/assignment"
for s in $STAGES; do cp "reference/$s.c" "$nobuild/sub/assignment/$s.c"; done
echo '#error this jacobi does not compile' >> "$nobuild/sub/assignment/jacobi.c"
"$grade" --quiet --config "$small" --parts scenes --out "$nobuild/report" "$nobuild/sub" > "$nobuild/grade.txt" 2>&1
parts "$nobuild/report/report.json" > "$nobuild/parts.tsv" 2>/dev/null
case "$(grep '^ball_drop.jacobi	' "$nobuild/parts.tsv")" in
    *"	0.0	5.0	not run: it calls jacobi, whose file was not built (see the jacobi part)"*)
        echo "nobuild: $(grep '^ball_drop.jacobi	' "$nobuild/parts.tsv" | cut -f1,2,4 | cut -c1-110)...";;
    *) fail "nobuild: ball_drop.jacobi with a jacobi.c that does not compile is \"$(grep '^ball_drop.jacobi	' "$nobuild/parts.tsv")\", not 0 saying it calls jacobi";;
esac
grep -q '^ball_drop.gauss_seidel	5.0	5.0	' "$nobuild/parts.tsv" ||
    fail "nobuild: ball_drop.gauss_seidel, which does not call jacobi, lost points: $(grep '^ball_drop.gauss_seidel' "$nobuild/parts.tsv")"
#     A p2g bug whose run first shows NaN in a later stage (the solver): the scene's log names
#     p2g, the first stage of the substep that fails its own cases.
mkdir -p "$nobuild/p2g/assignment"
for s in $STAGES; do cp "reference/$s.c" "$nobuild/p2g/assignment/$s.c"; done
patch -s -p0 "$nobuild/p2g/assignment/p2g.c" < tests/mutants/p2g-no-normalise.patch ||
    fail "nobuild: tests/mutants/p2g-no-normalise.patch does not apply to reference/p2g.c"
"$grade" --quiet --config "$small" --out "$nobuild/p2g-report" "$nobuild/p2g" > "$nobuild/p2g.txt" 2>&1
grep -q "^the first stage of the substep that fails its own cases: p2g (see its part)" "$nobuild/p2g-report/logs/ball_drop.jacobi.log" 2>/dev/null &&
    echo "nobuild: a p2g bug's scene log: $(grep '^the first stage' "$nobuild/p2g-report/logs/ball_drop.jacobi.log" | cut -c1-80)..." ||
    fail "nobuild: the scene log of a p2g bug does not name p2g as the first stage that fails its cases: $(tail -n 2 "$nobuild/p2g-report/logs/ball_drop.jacobi.log" 2>&1)"

# 5i. make feedback (grader/README.md, "Handing reports back"): a copy of each report fit to hand
#     back, apart from the instructor's: no absolute path of this machine (the kit's, TMPDIR,
#     /tmp/, /root, /home) in any file, no make view line, no frames, at most feedback.max_kib
#     per student (a log cut to fit says so); a report without a grade gets none. The same
#     search over the plain reports must find such paths, or it proves nothing.
fb=$out/feedback
mkdir -p "$fb/reports"
cp -r "$nobuild/p2g-report" "$fb/reports/p2g-bug"
cp -r "$nobuild/report" "$fb/reports/no-jacobi"
cp -r "$nobuild/p2g-report" "$fb/reports/long-log"
for i in $(seq 4000); do echo "case $i: $(pwd)/x.c, $TMPDIR/y, /tmp/z, /root/w and /home/v/$i.c"; done >> "$fb/reports/long-log/logs/p2g.log"
cp -r "$nobuild/report" "$fb/reports/err-1"
sed -i 's/^  "status": "graded",$/  "status": "error",/' "$fb/reports/err-1/report.json"
{ cat "$small"; echo 'feedback: { max_kib = 64; };'; } > "$fb/cap.config"
machine_paths() { grep -rlF -e "$(pwd)" -e "$TMPDIR" -e /tmp/ -e /root -e /home "$@" 2>/dev/null; }
[ -n "$(machine_paths "$fb/reports/p2g-bug")" ] ||
    fail "feedback: the plain report $fb/reports/p2g-bug names no path of this machine: the search below proves nothing"
echo "feedback: the plain reports name this machine in $(machine_paths "$fb/reports" | wc -l) files, e.g. $(grep -o 'make view RUN=[^ ]*' "$fb/reports/p2g-bug/report.html" | head -n 1 | cut -c1-70)..."
MAKEFLAGS= make -s --no-print-directory feedback GRADE_REPORTS="$fb/reports" FEEDBACK_DIR="$fb/out" \
    GRADE_CONFIG="$fb/cap.config" > "$fb/make.txt" 2>&1; rc=$?
[ "$rc" -ne 0 ] && grep -q '^flipgrade: no feedback for err-1: .*no grade (status error' "$fb/make.txt" && [ ! -e "$fb/out/err-1" ] ||
    fail "feedback: make feedback with a report without a grade: exit 0, or err-1 got feedback: $(cat "$fb/make.txt")"
for n in p2g-bug no-jacobi long-log; do
    [ -f "$fb/out/$n/report.json" ] && [ -f "$fb/out/$n/report.html" ] &&
        head -n 1 "$fb/out/$n/report.txt" | grep -q "^flipkit grade for [a-z0-9]* ([a-z0-9]*), graded " ||
        fail "feedback: $fb/out/$n lacks report.json, report.html or a report.txt headed by the student's name"
    bytes=$(find "$fb/out/$n" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
    [ "$bytes" -le 65536 ] || fail "feedback: $fb/out/$n holds $bytes bytes, more than feedback.max_kib = 64 KiB"
done
[ -z "$(machine_paths "$fb/out")" ] && echo "feedback: no path of this machine in $(find "$fb/out" -type f | wc -l) files" ||
    fail "feedback: a path of this machine in: $(machine_paths "$fb/out" | tr '\n' ' ')"
[ -z "$(find "$fb/out" -name 'run-*')" ] && ! grep -rq 'make view' "$fb/out" ||
    fail "feedback: frames (run-*) or a make view line in $fb/out"
tail -n 1 "$fb/out/long-log/logs/p2g.log" | grep -q "more bytes not shown: feedback holds at most 64 KiB per student" &&
    echo "feedback: $(grep '^feedback long-log' "$fb/make.txt")" ||
    fail "feedback: the long log was not cut to fit with a line saying so: $(tail -n 1 "$fb/out/long-log/logs/p2g.log" | cut -c1-100)"

# 5j. Points per stage and per scene in the config (grader/README.md, "What is graded"):
#     p2g weighted 15, gravity 5 and ball_drop 4 per run show in the grading table (what
#     make handout-sync writes into the handout) and in the CSV's row of the reference.
pts=$out/points
mkdir -p "$pts"
awk '/^stages:$/ { s = 1 } { print } s && /^\{$/ { print "  points_by_stage = { p2g = 15.0; gravity = 5; };"; s = 0 }' "$small" |
    sed 's/frames = 8;$/frames = 8; points = 4.0;/' > "$pts/weighted.config"
"$grade" --config "$pts/weighted.config" --print grading-table > "$pts/table.md" 2>&1
for want in '| `p2g` |.*| 15 |' '| `gravity` |.*| 5 |' '| `advect` |.*| 10 |' '| `ball_drop.jacobi` |.*| 4 |' '| \*\*total\*\* | | \*\*88\*\* |'; do
    grep -q "^$want\$" "$pts/table.md" || fail "points: the grading table has no row \"$want\": $(head -n 14 "$pts/table.md")"
done
"$grade" --quiet --config "$pts/weighted.config" --parts stages --out "$pts/ref" "$infra/subs/ok-1" > "$pts/grade.txt" 2>&1
"$grade" --class-csv "$pts/grades.csv" "$pts/ref/report.json" > "$pts/csv.txt" 2>&1
row=$(tr -d '\r' < "$pts/grades.csv" | grep '^ok-1,')
[ "$row" = "ok-1,10.0,5.0,15.0,10.0,10.0,10.0,10.0,10.0,80.0,80.0,graded" ] &&
    echo "points: per-stage points in the CSV: $row" ||
    fail "points: the reference with p2g 15 and gravity 5 is \"$row\" in the CSV, not ok-1,10.0,5.0,15.0,...,80.0,80.0,graded"

# 6. Attacks (tests/attacks/README.md): each appended to the reference's file of its stage and
#    refused, with a reason the stage did not write; nothing outside the run changes. Run as
#    root (when this is root) and as an unprivileged user, on a copy of the kit it can read.
attack_sub() {   # attack_sub DIR ATTACK... : the reference's files with these attacks appended
    mkdir -p "$1/assignment"
    for s in $STAGES; do cp "reference/$s.c" "$1/assignment/$s.c"; done
    d=$1; shift
    for a in "$@"; do cat "tests/attacks/$a.c" >> "$d/assignment/${a%%-*}.c"; done
}
stat_of() { stat -c '%a %u:%g %Y' "$1"; }
xattrs_of() { command -v python3 > /dev/null && python3 -c 'import os, sys; print(os.listxattr(sys.argv[1]))' "$1"; }
ipc_count() { ipcs -m -q 2>/dev/null | grep -c '^0x'; }
raw_controls() {  # raw_controls FILE: C0 bytes but newline, and DEL, plus lines with a C1 control or a bidi override
    c0=$(LC_ALL=C tr -d '\n\040-\176\200-\377' < "$1" | wc -c)
    c1=$(LC_ALL=C grep -c "$(printf '\302[\200-\237]')" "$1")
    bidi=$(LC_ALL=C grep -c -e "$(printf '\342\200[\252-\256]')" -e "$(printf '\342\201[\246-\251]')" "$1")
    echo $((c0 + c1 + bidi))
}
attacks() {      # attacks WHO RUNAS... : grade the attack submissions as WHO, through RUNAS
    who=$1; shift
    # outside the kit: a checkout under mktemp -d is 0700, out of an unprivileged user's reach
    base=$(mktemp -d "${ATTACK_TMPDIR:-/tmp}/flipkit-attacks-$who.XXXXXX"); chmod 755 "$base"
    mkdir -p "$base/work" "$base/reports"
    attack_sub "$base/hostile-d" advect-types-into-terminal gravity-uses-root p2g-phones-home \
        g2p-reads-secrets divergence-touches-outside laplacian-hoards-memory gradient-leaves-ipc \
        jacobi-forges-reason
    attack_sub "$base/hostile-e"
    cat assignment/jacobi.c tests/attacks/jacobi-rewrites-argv.c > "$base/hostile-e/assignment/jacobi.c"
    attack_sub "$base/hostile-f" advect-sleeps
    attack_sub "$base/hostile-g" advect-prints-escapes
    # and the compiler quoting an #error line of raw escapes into laplacian's reason (made
    # here, so that no file of the kit holds them raw)
    printf '\n#error \033]52;c;ZWNobyBwd25lZA==\007 \033]0;laplacian: 10.0 / 10.0\007 \302\2332J \342\200\256evil\n' \
        >> "$base/hostile-g/assignment/laplacian.c"
    kitcopy=$base/kit                 # what the grader reads, where WHO can read it
    # contained: the stage keeps full marks when the attack gets nothing (its own root, one
    # CPU, only out.state kept, no cache entry over 16 MiB); the grader's paths are the copy's
    attack_sub "$base/hostile-k" divergence-spins-threads gravity-fills-disk laplacian-big-object
    { printf '#define ATTACK_KIT "%s"\n' "$kitcopy"; cat tests/attacks/p2g-looks-around.c; } >> "$base/hostile-k/assignment/p2g.c"
    attack_sub "$base/hostile-h" advect-holds-threads
    for h in honest-a honest-b; do   # a class: correct, with a stage that starts a thread
        attack_sub "$base/honestclass/$h"
        cat tests/grader/honest-uses-a-thread.c >> "$base/honestclass/$h/assignment/g2p.c"
    done
    mkdir -p "$kitcopy/build/grader" "$kitcopy/tests"
    cp -r scenes grader "$kitcopy/"; cp -r tests/grader "$kitcopy/tests/"
    cp -r build/grader/kit build/grader/data "$kitcopy/build/grader/"
    mkdir -p "$kitcopy/reference"    # a class run grades the reference's files first
    for s in $STAGES; do cp "reference/$s.c" "$kitcopy/reference/"; done
    cp "$grade" "$kitcopy/flipgrade"
    victim=$base/work/victim
    echo secret > "$victim"; chmod 640 "$victim"; touch -d 2000-01-01 "$victim"
    [ "$who" = root ] || chown -R nobody "$base"
    before_stat=$(stat_of "$victim") before_x=$(xattrs_of "$victim") before_ipc=$(ipc_count)
    heard=$base/heard; : > "$heard"
    listener=
    if command -v python3 > /dev/null; then
        python3 -c 'import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 47613)); s.listen(4)
while True:
    c, _ = s.accept(); open(sys.argv[1], "ab").write(c.recv(4096) or b"(connected)"); c.close()' "$heard" &
        listener=$!
    fi
    for h in d e f g; do
        case $h in d|g) opts="--parts stages --config tests/grader/small.config";;
                   e) opts="--parts scenes";;   # grader/config: 20 frames, where the stub fails
                   f) opts="--parts stages --config tests/grader/budget.config";; esac
        start=$(date +%s)
        (cd "$kitcopy" && "$@" ./flipgrade --quiet $opts --work "$base/work" \
             --out "$base/reports/hostile-$h" "$base/hostile-$h") > "$base/hostile-$h.txt" 2>&1
        echo $(( $(date +%s) - start )) > "$base/hostile-$h.seconds"
        if [ ! -f "$base/reports/hostile-$h/report.json" ]; then
            fail "$who: flipgrade did not grade hostile-$h: $(head -c 600 "$base/hostile-$h.txt")"
            [ -n "$listener" ] && kill "$listener" 2>/dev/null
            rm -rf "$base"
            return
        fi
        parts "$base/reports/hostile-$h/report.json" > "$base/reports/hostile-$h/parts.tsv"
    done
    [ -n "$listener" ] && kill "$listener" 2>/dev/null
    r=$base/reports
    line() { grep "^$2	" "$r/$1/parts.tsv"; }
    want() {   # want HOSTILE STAGE TEXT: 0 points, TEXT in the reason
        case "$(line "$1" "$2")" in
            *"	0.0	"*"$3"*) printf '%s\n' "refused ($who) $2: $(line "$1" "$2" | cut -f4 | cut -c1-90)";;   # printf: a reason may hold \r as text
            *) fail "$who: $1: $2 should score 0 for \"$3\": $(line "$1" "$2")";; esac
    }
    want hostile-d advect "forbidden system call (ioctl TIOCSTI)"
    want hostile-d gravity "forbidden system call (sethostname)"
    want hostile-d p2g "forbidden system call (socket)"
    want hostile-d divergence "chmod)"
    want hostile-d laplacian "forbidden system call (memfd_create)"
    want hostile-d gradient "forbidden system call (shmget)"
    want hostile-d jacobi "exited with status 86"
    grep -q "grader's own fault" "$r/hostile-d/report.json" && fail "$who: the forged reason reached the report"
    grep -q "^g2p	10.0	10.0	" "$r/hostile-d/parts.tsv" ||
        fail "$who: g2p read a secret, or lost points: $(line hostile-d g2p)"
    [ -e /tmp/flipkit-attack-tiocsti ] && fail "$who: TIOCSTI typed a command that ran"
    [ "$(stat_of "$victim")" = "$before_stat" ] || fail "$who: the victim beside the work directory changed: $(stat_of "$victim"), was $before_stat"
    [ "$(xattrs_of "$victim")" = "$before_x" ] || fail "$who: the victim gained extended attributes: $(xattrs_of "$victim")"
    [ "$(ipc_count)" -le "$before_ipc" ] || fail "$who: SysV IPC was left behind: $(ipcs -m -q)"
    [ -n "$listener" ] && { [ -s "$heard" ] && fail "$who: the loopback listener heard: $(cat "$heard")"; }
    [ -n "$listener" ] || echo "check-grader: no python3: the loopback listener was not started"
    # argv rewritten from a constructor: the stub's jacobi is still what runs in the jacobi parts
    for sc in ball_drop dam_break; do
        case "$(line hostile-e $sc.jacobi)" in
            *"	5.0	5.0	"*) fail "$who: rewriting argv got the jacobi stub full marks: $(line hostile-e $sc.jacobi)";;
            "") fail "$who: hostile-e has no $sc.jacobi part: $(cat "$base/hostile-e.txt")";;
            *) echo "refused ($who) argv rewriting: $sc.jacobi $(line hostile-e $sc.jacobi | cut -f2,4 | cut -c1-80)";; esac
        grep -q "^$sc.gauss_seidel	5.0	5.0	" "$r/hostile-e/parts.tsv" ||
            fail "$who: the rest of hostile-e lost points: $(line hostile-e $sc.gauss_seidel)"
    done
    # terminal escapes, printed by a stage and quoted by the compiler: shown as text in the
    # logs (kept for a part that printed, even at full marks), the reports and the table
    grep -q "^advect	10.0	10.0	" "$r/hostile-g/parts.tsv" || fail "$who: printing escapes cost advect points: $(line hostile-g advect)"
    want hostile-g laplacian "does not compile: laplacian.c:"
    for f in "$base/hostile-g.txt" "$r/hostile-g/report.json" "$r/hostile-g/report.html" \
             "$r/hostile-g/logs/advect.log" "$r/hostile-g/logs/laplacian.log"; do
        if [ ! -f "$f" ]; then fail "$who: hostile-g wrote no $f"; continue; fi
        n=$(raw_controls "$f")
        [ "$n" -eq 0 ] || fail "$who: $f holds $n raw control bytes or lines with C1 or bidi controls"
    done
    advect_log=$r/hostile-g/logs/advect.log
    for text in '| \x1b]52;c;ZWNobyBwd25lZA==\x07\x1b]0;advect: 10.0 / 10.0\x07debug\r\x1b[2Kadvect ' \
                '| \xc2\x9b2J\u202e01 / 0.01 derocs'; do
        grep -qF -- "$text" "$advect_log" 2>/dev/null || fail "$who: advect's log does not show \"$text\" as text: $(head -c 400 "$advect_log" 2>/dev/null)"
    done
    for f in "$r/hostile-g/report.html" "$r/hostile-g/logs/laplacian.log"; do
        grep -qF '#error \x1b]52;c;ZWNobyBwd25lZA==\x07 \x1b]0;laplacian: 10.0 / 10.0\x07 \xc2\x9b2J' "$f" ||
            fail "$who: $f does not show the #error's escapes as text"
    done
    grep -qF '#error \\x1b]52;c;ZWNobyBwd25lZA==\\x07' "$r/hostile-g/report.json" ||   # JSON doubles the backslash
        fail "$who: report.json does not show the #error's escapes as text"
    grep -qF 'error: #error \x1b' "$base/hostile-g.txt" || fail "$who: the table does not show the #error's ESC as text: $(grep laplacian "$base/hostile-g.txt")"
    printf '%s\n' "refused ($who) terminal escapes: $(grep -F -m 1 '\x1b[2K' "$advect_log" | cut -c1-90)"
    # sleeping in every case: the whole submission stops at its budget (10 s), not minutes later
    secs=$(cat "$base/hostile-f.seconds")
    [ "$secs" -le 16 ] || fail "$who: the time budget of 10 s let the grading run $secs s"
    grep -q "time budget" "$r/hostile-f/report.json" || fail "$who: no part says the time budget was spent"
    echo "refused ($who) sleeping: graded in $secs s with a 10 s budget"
    contained "$@"
    also_as "$@"
    rm -rf "$base"
}

# 5b, 5c and 5d again as WHO, on the kit's copy: a lying archive, hostile names through
# flipgrade --class (what make grade runs), a jacobi that calls the given solver.
also_as() {      # also_as RUNAS... : inside attacks(), with its variables
    small_k="--config tests/grader/small.config --work $base/work"
    if [ -f "$out/subs/intake-realsize.tar" ]; then
        cp "$out/subs/intake-realsize.tar" "$base/realsize.tar"
        [ "$who" = root ] || chown nobody "$base/realsize.tar"
        (cd "$kitcopy" && "$@" ./flipgrade --quiet --parts stages $small_k --out "$r/realsize" "$base/realsize.tar") \
            > "$base/realsize.txt" 2>&1
        parts "$r/realsize/report.json" > "$r/realsize/parts.tsv" 2>/dev/null
        case "$(line realsize p2g)" in
            *"	0.0	"*"assignment/p2g.c: refused: the archive header gives size -1"*)
                echo "refused ($who) a negative size: $(line realsize p2g | cut -f4 | cut -c1-90)";;
            *) fail "$who: the negative-size tar: $(line realsize p2g) $(tail -n 2 "$base/realsize.txt")";; esac
        grep -q "^gravity	10.0	10.0	" "$r/realsize/parts.tsv" || fail "$who: the negative-size tar's other stages lost points"
    fi
    class=$base/class
    nl='
'
    for n in ok-1 'x$(touch${IFS}MARKER)y' 'a`touch${IFS}MARKER`b' 'a;touch MARKER' "new${nl}line" '-rf' '=1+1' 'a,b'; do
        attack_sub "$class/$n"
    done
    [ "$who" = root ] || chown -R nobody "$class"
    (cd "$kitcopy" && "$@" ./flipgrade --class "$class" --jobs 2 --parts stages $small_k --reports "$r/class" \
         --class-csv "$r/class/grades.csv") > "$base/class.txt" 2>&1
    [ -z "$(find "$base" "$kitcopy" -name MARKER)" ] || fail "$who: a submission's name ran a command"
    for shown in 'x$(touch${IFS}MARKER)y' 'a`touch${IFS}MARKER`b' 'a;touch MARKER' 'new\nline' '-rf' '=1+1' 'a,b'; do
        [ "$(grep -cF "refused \"$shown\"" "$base/class.txt")" -eq 1 ] ||
            fail "$who: $shown was not refused in one line: $(head -c 400 "$base/class.txt")"
    done
    parts "$r/class/ok-1/report.json" > "$base/ok-1.tsv" 2>/dev/null
    [ -s "$base/ok-1.tsv" ] && ! awk -F '\t' '$2 != $3 { bad = 1 } END { exit !bad }' "$base/ok-1.tsv" ||
        fail "$who: the honest submission beside the hostile names lost points: $(cat "$base/ok-1.tsv")"
    if command -v python3 > /dev/null; then
        python3 -c 'import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
assert len(rows) == 2 and rows[1][0] == "ok-1" and all(len(r) == len(rows[0]) for r in rows), rows' "$r/class/grades.csv" ||
            fail "$who: the class's grades.csv is not one row for ok-1 with the header's field count"
    fi
    echo "refused ($who) 7 hostile names by name; ok-1 graded with full marks; grades.csv read back"
    attack_sub "$base/given"
    cp tests/hostile/jacobi-calls-given-solver.c "$base/given/assignment/jacobi.c"
    [ "$who" = root ] || chown -R nobody "$base/given"
    (cd "$kitcopy" && "$@" ./flipgrade --quiet --parts scenes $small_k --out "$r/given" "$base/given") \
        > "$base/given.txt" 2>&1
    parts "$r/given/report.json" > "$r/given/parts.tsv" 2>/dev/null
    case "$(line given ball_drop.jacobi)" in
        *"	0.0	"*"called the given solver (given_solve_sor)"*)
            echo "refused ($who) the given solver in a .jacobi run: $(line given ball_drop.jacobi | cut -f4 | cut -c1-80)";;
        *) fail "$who: a jacobi calling given_solve_sor: $(line given ball_drop.jacobi) $(tail -n 2 "$base/given.txt")";; esac
    grep -q "^ball_drop.gauss_seidel	5.0	5.0	" "$r/given/parts.tsv" ||
        fail "$who: the given solver's own run lost points: $(line given ball_drop.gauss_seidel)"
}

# Attacks that are contained rather than refused: each stage keeps full marks when it gets
# nothing. Looking around (stat of /etc/shadow, the host's /proc, the grader's files), more
# than one core, 180 MiB of junk in every case (kept: only out.state), a 60 MiB object (the
# build cache keeps no entry over 16 MiB and stays under its cap); and a stage that holds
# every task it may start while an honest submission is graded beside it.
contained() {    # contained RUNAS... : inside attacks(), with its variables
    quick="--parts stages --config tests/grader/small.config --work $base/work"
    (cd "$kitcopy" && "$@" ./flipgrade --quiet --keep $quick --out "$base/reports/hostile-k" "$base/hostile-k") \
        > "$base/hostile-k.txt" 2>&1
    kept=$(sed -n 's/^flipgrade: work directory kept: //p' "$base/hostile-k.txt")
    if [ ! -f "$r/hostile-k/report.json" ]; then
        fail "$who: flipgrade did not grade hostile-k: $(head -c 600 "$base/hostile-k.txt")"; return
    fi
    parts "$r/hostile-k/report.json" > "$r/hostile-k/parts.tsv"
    for s in $STAGES; do
        grep -q "^$s	10.0	10.0	" "$r/hostile-k/parts.tsv" || fail "$who: hostile-k: $s was not contained: $(line hostile-k "$s")"
    done
    junk=$(du -sm "$kept/run/gravity" 2>/dev/null | cut -f1)
    [ -n "$kept" ] && [ "${junk:-999}" -le 16 ] ||
        fail "$who: the work directory kept ${junk:-?} MiB of gravity's runs (its junk was copied back)"
    big=$(find "$kitcopy/build/grader/cache" -type f -size +16M | wc -l)
    cache=$(du -sm "$kitcopy/build/grader/cache" | cut -f1)
    [ "$big" -eq 0 ] && [ "$cache" -le 256 ] ||
        fail "$who: the build cache holds $big entries over 16 MiB, $cache MiB in all"
    echo "contained ($who): stat outside, more than one core, junk in every case (${junk} MiB kept), a 60 MiB object (cache ${cache} MiB, none over 16 MiB)"
    [ -n "$kept" ] && rm -rf "$kept"
    # one student holds every task it may start; the other, graded meanwhile, must not notice
    (cd "$kitcopy" && "$@" ./flipgrade --quiet $quick --out "$base/reports/hostile-h" "$base/hostile-h") \
        > "$base/hostile-h.txt" 2>&1 &
    holder=$!
    waited=0
    while [ "$(ps -eLo comm= | grep -c '^stagerun$')" -lt 48 ] && [ "$waited" -lt 300 ]; do
        sleep 0.1; waited=$((waited + 1))
    done
    held=$(ps -eLo comm= | grep -c '^stagerun$')
    (cd "$kitcopy" && "$@" ./flipgrade --class "$base/honestclass" --jobs 2 $quick --reports "$r/honestclass" \
         --class-csv "$r/honestclass/grades.csv") > "$base/honest.txt" 2>&1
    classrc=$?
    wait "$holder"
    for h in hostile-h honestclass/honest-a honestclass/honest-b; do
        if [ ! -f "$r/$h/report.json" ]; then
            fail "$who: flipgrade did not grade $h: $(head -c 600 "$base/honest.txt")"; continue
        fi
        parts "$r/$h/report.json" > "$r/$h/parts.tsv"
        for s in $STAGES; do
            grep -q "^$s	10.0	10.0	" "$r/$h/parts.tsv" || fail "$who: $h lost points beside a stage holding $held tasks: $(line "$h" "$s")"
        done
    done
    [ "$classrc" -eq 0 ] || fail "$who: the class graded beside the holder exited $classrc: $(tail -n 3 "$base/honest.txt")"
    [ "$held" -ge 48 ] || fail "$who: the holding stage never held its tasks (saw $held threads)"
    echo "contained ($who): a class of two, each starting a thread, graded with full marks beside a stage holding $held tasks"
}
if [ "$(id -u)" -eq 0 ]; then
    attacks root env
    if id nobody > /dev/null 2>&1 && command -v setpriv > /dev/null; then
        attacks nobody setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME=/
    else
        echo "check-grader: no user nobody or no setpriv: the attacks were not run unprivileged"
    fi
else
    attacks "$(id -un)" env
    echo "check-grader: not root: the attacks ran only as $(id -un)"
fi

[ -e "$escape" ] && fail "a hostile stage wrote $escape outside its directory"
left=$(ls -A "$TMPDIR")
[ -z "$left" ] || fail "the grader left work files behind in $TMPDIR: $left"

[ "$failed" -eq 0 ] && echo "check-grader: all passed"
exit "$failed"
