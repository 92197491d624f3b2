#!/bin/sh
# check_dist.sh — the student tarball, checked as a student and an instructor would meet it.
# flipkit tests/: `make check-dist` runs it. First a search for solution code (and proof that the
# search can find some), then the tarball unpacked in an empty directory: make run, make test
# on the stubs, then on the reference's stage files, and make grade. One line per check.
# Then, for each tarball of LEVEL_TARBALLS, the kit at another level (issue 39), checked for what
# differs from the guided one: its headers and pages, a -Werror build (the guided kit's build/
# reused, every file that differs touched), its suites on its stubs and on the reference's files,
# and make grade (the stage parts; the scenes too when stages are given, since then they link
# other code).
# Usage: check_dist.sh TARBALL   (run from the kit's root; STAGES in the environment;
#        REF_TARBALL and LEVEL_TARBALLS="LEVEL:TARBALL ..." optional)
set -u
tarball=${1:?usage: check_dist.sh TARBALL}
stages=${STAGES:?run me from make, which reads the stages from common/stagelist.h}
kit=$(pwd)
case ${CLASSROOM_POINTS:-} in /*|'') ;; *) CLASSROOM_POINTS=$kit/$CLASSROOM_POINTS ;; esac
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }

mkdir "$work/unpacked"
tar -xzf "$tarball" -C "$work/unpacked" || { echo "FAIL $tarball does not unpack"; exit 1; }
root="$work/unpacked/flipkit-student"
[ -f "$root/Makefile" ] || { echo "FAIL $tarball has no flipkit-student/Makefile"; exit 1; }

# ---- 1. no solution code ------------------------------------------------------------------
# Fingerprints: every line of the reference's solution blocks and of its kernels, with blanks
# squeezed, that is long enough to mean something and does not also occur in code the kit
# ships on purpose (the kit's common/, tests/, grader/ files that the tarball holds): a loop
# header shared with common/ is not the answer.
normalize='{ line = $0; gsub(/[ \t]+/, " ", line); sub(/^ /, "", line); sub(/ $/, "", line) }'
# (The kit's copy of each source the tarball holds: what was put in the tarball itself, a leak
# included, must not vouch for its own lines.)
shipped_code() {
    (cd "$root" && find common tests grader -name '*.[ch]'; echo assignment/track.c) |
        while read -r f; do [ -f "$kit/$f" ] && echo "$kit/$f"; done
}
awk "$normalize"'
    FNR == 1 { inside = (FILENAME ~ /\.cl$/) }
    /\/\/ BEGIN SOLUTION/ { inside = 1; next }
    /\/\/ END SOLUTION/ { inside = 0; next }
    inside && line !~ /^(\/\/|\/\*|\*)/ && length(line) >= 16 { print line }
' $(for s in $stages; do echo "reference/$s.c"; done) kernels/*.cl | sort -u > "$work/solution.txt"
awk "$normalize"' { print line }' $(shipped_code) | sort -u > "$work/shipped.txt"
comm -23 "$work/solution.txt" "$work/shipped.txt" > "$work/fingerprints.txt"
nprints=$(wc -l < "$work/fingerprints.txt")

# search DIR: prints "file:line: text" for every line of a text file under DIR that is a
# fingerprint, or that marks solution code however it was copied.
search() {
    find "$1" -type f | while read -r f; do
        grep -Iq . "$f" 2>/dev/null && printf '%s\n' "$f"
    done | xargs -r awk -v prints="$work/fingerprints.txt" "$normalize"'
        BEGIN { while ((getline p < prints) > 0) fp[p] = 1 }
        (line in fp) || /BEGIN SOLUTION|END SOLUTION|__kernel|get_global_id/ {
            print FILENAME ":" FNR ": " substr(line, 1, 100)
        }'
    find "$1" \( -path '*/reference/*' -o -path '*/kernels/*' -o -name '*.cl' -o -name 'mkgolden.c' \
                 -o -name 'mkstub.awk' -o -name 'calibrate.c' -o -name 'refstages.c' -o -path '*/grader/cases/*' \) \
         -print | sed 's/$/: a file the student kit must not hold/'
}
found=$(search "$root")
if [ -n "$found" ]; then
    bad "solution code in $tarball:"; echo "$found" | head -n 10
else
    ok "no solution code in $tarball ($nprints fingerprints of reference stage bodies and kernels, file names)"
fi
# The search must be able to fail: plant a reference stage body and a kernel in a copy.
cp -r "$root" "$work/planted"
sed -n '/BEGIN SOLUTION/,/END SOLUTION/p' reference/p2g.c | grep -v 'SOLUTION' > "$work/planted/handout/notes.md"
mkdir -p "$work/planted2" && cp -r "$root" "$work/planted2/kit"
cat kernels/stages.cl > "$work/planted2/kit/common/fast.h"
n1=$(search "$work/planted" | wc -l); n2=$(search "$work/planted2" | wc -l)
if [ "$n1" -gt 0 ] && [ "$n2" -gt 0 ]; then
    ok "the search finds planted code: reference/p2g.c's body ($n1 lines), kernels/stages.cl ($n2 lines)"
else
    bad "the search misses planted code: reference/p2g.c's body found $n1 lines, kernels/stages.cl $n2"
fi
rm -rf "$work/planted" "$work/planted2"

run() { "$@" > "$work/log" 2>&1; }
# LEVELS_ONLY=1 skips sections 2 to 4 (trying the level checks alone; their kits then build afresh).
if [ -z "${LEVELS_ONLY:-}" ]; then
# ---- 2. a student's first commands ---------------------------------------------------------
cd "$root" || exit 1
# A student's build must be as clean as the kit's: a warning they did not cause misleads them.
if run make -j2 CFLAGS="-O2 -g -Werror" all $(for s in $stages; do echo "build/tests/test_$s"; done) build/flipgrade; then
    ok "the student kit builds without a warning (-Werror): flipsim, the 8 suites, flipgrade"
else
    bad "the student kit does not build with -Werror:"; grep -E "warning|error" "$work/log" | head -n 5
fi
if run make -j2 run && [ -f out/first_drop/particles/000030.ply ] && [ -f out/first_drop/preview/000030.png ] &&
   [ "$(grep -c "note:" "$work/log")" -eq 1 ] &&
   grep -q "note: no particle moved or sped up in frame 1: the student track's p2g, g2p or advect is still a stub" "$work/log"; then
    ok "make run: the stubs build and run scenes/first_drop.json to frame 30 with one note, that the stubs move nothing"
else
    bad "make run with the stubs:"; tail -n 15 "$work/log"
fi
# make view ships: its files, and its server starts on the run make run wrote (three.js itself
# is npm's, which this check does not ask; check-viewer drives the page in a browser).
mkdir -p "$work/fake_modules/three/build" && : > "$work/fake_modules/three/build/three.module.js"
served() { timeout 5 node common/viewer/serve.mjs --modules "$work/fake_modules" out/first_drop > "$work/log" 2>&1
           grep -q "^make view: out/first_drop at http://127.0.0.1:[0-9]*/ " "$work/log"; }
if run make -n view && grep -q "common/viewer/serve.mjs" "$work/log" && [ -x common/viewer/setup.sh ] &&
   [ -f common/viewer/index.html ] && [ -f common/viewer/viewer.js ] && [ -f common/viewer/package-lock.json ] &&
   served; then
    ok "make view: the viewer ships and its server starts on out/first_drop: $(head -c 70 "$work/log")"
else
    bad "make view in the student kit:"; tail -n 5 "$work/log"
fi
if run build/flipsim --use-reference=p2g --frames 1 scenes/ball_drop.json; then
    bad "--use-reference=p2g worked in a kit shipped without reference objects"
elif grep -q "not available in this build" "$work/log"; then
    ok "--use-reference=p2g says: $(head -n 1 "$work/log" | cut -c1-110)"
else
    bad "--use-reference=p2g failed without saying why:"; head -n 3 "$work/log"
fi
# handout.github_classroom as the instructor's config has it (off by default): the workflow
# ships only when it is on (the second tarball, below, is made with it on).
if [ "$("$kit/build/flipgrade" --config "$kit/grader/config" --print github-classroom)" = true ]; then
    [ -f .github/workflows/classroom.yml ] && ok "handout.github_classroom = true: .github/workflows/classroom.yml ships" ||
        bad "handout.github_classroom = true, and the tarball has no .github/workflows/classroom.yml"
elif [ -e .github ]; then
    bad "handout.github_classroom = false, and the tarball holds .github/"
else
    ok "handout.github_classroom = false: no .github/ in the tarball"
fi
run make -j2 test; rc=$?
cp "$work/log" "$work/stubs.log"
failing=0
for s in $stages; do
    row=$(grep -E "^$s +[0-9]+ +[0-9]+ +[0-9]+" "$work/stubs.log")
    failed=$(echo "$row" | awk '{ print $4 }')
    [ -n "$failed" ] && [ "$failed" -gt 0 ] && failing=$((failing + 1))
    # Actionable: the stage's first failure names the stage and what was expected.
    sed -n "/^---- $s ----/,/^----/p" "$work/stubs.log" | grep -q -i "expected" ||
        bad "make test on the stubs: $s's failures do not say what was expected"
done
if [ "$rc" -ne 0 ] && [ "$failing" -eq 8 ]; then
    ok "make test on the stubs: exit $rc, all 8 stages fail; e.g. $(grep -m 1 -E ':F:' "$work/stubs.log" | sed -E 's/^[^:]*:[0-9]+:F:[^:]*:[^:]*:[0-9]+: //' | cut -c1-100)"
else
    bad "make test on the stubs: exit $rc, $failing of 8 stages failing:"; tail -n 12 "$work/stubs.log"
fi

# ---- 3. the reference's files in assignment/ -----------------------------------------------
for s in $stages; do cp "$kit/reference/$s.c" assignment/; done
if run make -j2 test && grep -q "make test: all passed" "$work/log"; then
    ok "make test with the reference's stage files: all passed"
else
    bad "make test with the reference's stage files:"; tail -n 15 "$work/log"
fi
run make grade; rc=$?
total=$(grep -E "^ *total" "$work/log" | head -n 1 | tr -s ' ')
# the scene parts are scored in the kit, from the metrics it ships (issue 38)
if [ "$rc" -eq 0 ] && [ -n "$total" ] && grep -q "^ball_drop.jacobi .* all 20 frames match" "$work/log" &&
   grep -q "^total 100.0 / 100.0 (public cases and scenes" "$work/log"; then
    ok "make grade with the reference's stage files: full marks ($total)"
else
    bad "make grade with the reference's stage files: exit $rc (0 is full marks):"; tail -n 15 "$work/log"
fi
# The half-cell g2p (tests/mutants/g2p-off-by-one) loses scene points in the student's own make
# grade, which names the metric and frame, and shows the run beside a Gauss-Seidel run of their
# own (this tarball ships no reference frames).
patch -s assignment/g2p.c < "$kit/tests/mutants/g2p-off-by-one.patch"
run make grade GRADE_PARTS=scenes
first=$(grep -m 1 "^[a-z_]*\.[a-z_]*: first failing frame [0-9]*: " "$work/log")
if [ -n "$first" ] && ! grep -q "^total 20.0 / 20.0" "$work/log" &&
   grep -q "^  to see it: make run SCENE=.* use_gauss_seidel=true .* && make view RUN=" "$work/log"; then
    ok "make grade with the half-cell g2p: $(grep '^total [0-9]' "$work/log" | cut -c1-22); $first"
else
    bad "make grade with the half-cell g2p (g2p-off-by-one):"; tail -n 8 "$work/log"
fi
cp "$kit/reference/g2p.c" assignment/g2p.c
# make check-physics: the handout's three verdicts pass on the reference's files within a minute
# of CPU time (user + system of everything it runs; the wall clock depends on who else shares
# the machine), and a planted gravity bug fails them.
cpu=$( (run make check-physics; echo "rc $?" > "$work/rc"; times) | tail -n 1 |
       sed 's/m/ /g; s/s//g' | awk '{ printf "%d", $1 * 60 + $2 + $3 * 60 + $4 }')
rc=$(cut -d' ' -f2 "$work/rc")
if [ "$rc" -eq 0 ] && [ "$cpu" -lt 60 ] && [ "$(grep -c '^ok   ' "$work/log")" -eq 3 ] &&
   grep -q "^check-physics: all 3 checks pass" "$work/log"; then
    ok "make check-physics with the reference's files: 3 verdicts in ${cpu} s of CPU; $(grep 'Martin' "$work/log" | cut -c1-90)"
else
    bad "make check-physics with the reference's files: exit $rc in ${cpu} s of CPU:"; tail -n 6 "$work/log"
fi
patch -s assignment/gravity.c < "$kit/tests/mutants/gravity-swapped-axis.patch"
if ! run make check-physics && grep -q "^FAIL still tank" "$work/log" && grep -q "^check-physics: [1-3] of 3 checks failed" "$work/log"; then
    ok "make check-physics with gravity-swapped-axis fails: $(grep -m 1 '^FAIL' "$work/log" | cut -c1-90)"
else
    bad "make check-physics with gravity-swapped-axis does not fail:"; tail -n 6 "$work/log"
fi
cp "$kit/reference/gravity.c" assignment/gravity.c
# make submission: exactly the eight files the grader reads, taken by the grader's own intake;
# then with one stage file gone it says which, and fails.
if run make submission && [ "$(tar -tzf submission.tar.gz | sort | tr '\n' ' ')" = "$(for s in $stages; do echo "assignment/$s.c"; done | sort | tr '\n' ' ')" ] &&
   [ "$(grep -c ': taken$' "$work/log")" -eq 8 ] && grep -q "^make submission: hand in .*/submission.tar.gz: this one file" "$work/log"; then
    ok "make submission: the 8 stage files and nothing else, each taken by the grader's intake; $(grep "^make submission: hand in" "$work/log" | cut -c1-70)"
else
    bad "make submission with the reference's files:"; tail -n 12 "$work/log"
fi
mv assignment/g2p.c "$work/g2p.c"
if ! run make submission && grep -q "^  g2p *MISSING: no assignment/g2p.c" "$work/log" &&
   [ "$(tar -tzf submission.tar.gz | wc -l)" -eq 7 ] && ! grep -q "hand in" "$work/log"; then
    ok "make submission without assignment/g2p.c fails and says: $(grep MISSING "$work/log" | sed 's/^ *//' | cut -c1-80)"
else
    bad "make submission without assignment/g2p.c:"; tail -n 12 "$work/log"
fi
mv "$work/g2p.c" assignment/g2p.c
# A file the intake refuses (over its 1 MiB cap) is named with the intake's own reason.
cp assignment/gradient.c "$work/gradient.c"
head -c 1100000 /dev/zero | tr '\0' ' ' >> assignment/gradient.c
if ! run make submission && grep -q "^  gradient *REFUSED by the grader's intake: .*larger than 1 MiB" "$work/log"; then
    ok "make submission with a 1.1 MB gradient.c says: $(grep REFUSED "$work/log" | sed 's/^ *//' | cut -c1-90)"
else
    bad "make submission with a 1.1 MB assignment/gradient.c:"; tail -n 12 "$work/log"
fi
mv "$work/gradient.c" assignment/gradient.c && rm -f submission.tar.gz
# Python over the student's own stages (the reference's files, here): flipsim's bytes.
pyframe='import flipkit, sys
s = flipkit.Simulation("scenes/first_drop.json")
s.advance_frame(); s.advance_frame()
s.write_particles(sys.argv[1])'
if run make -j2 all pylib && run build/flipsim --quiet --frames 2 --out "$work/pyout" scenes/first_drop.json &&
   run env PYTHONPATH=common/python FLIPKIT_LIB=build/libflipkit.so /usr/bin/python3 -c "$pyframe" "$work/py2.ply" &&
   cmp -s "$work/py2.ply" "$work/pyout/particles/000002.ply"; then
    ok "from Python (make pylib), the student kit's default track writes flipsim's frame 2 byte for byte"
else
    bad "Python in the student kit:"; tail -n 8 "$work/log"
fi
# Solvers the student kit does not have are not shown as if it had them: --help says each
# falls back, the residual plot leaves them out (saying why), and a capped jacobi is "capped"
# with the summary saying what that means, not NOT-CONVERGED.
fallbacks=$(build/flipsim --help 2>&1 | grep -c -E '^  (pcg|multigrid|mgpcg) .*falls back to the track.s jacobi')
if [ "$fallbacks" -eq 3 ] && run make python-examples &&
   [ "$(grep -c -E "^residuals: (pcg|multigrid|mgpcg) is not in this kit's track: it falls back to the track's jacobi, so it is not drawn" "$work/log")" -eq 3 ] &&
   [ "$(stat -c %s build/python/residuals.png)" -gt 20000 ]; then
    ok "the student kit's --help says pcg, multigrid and mgpcg fall back to jacobi; its residual plot leaves them out and says so"
else
    bad "the student kit's solvers: $fallbacks of 3 --help lines say falls back"; tail -n 8 "$work/log"
fi
if run build/flipsim --frames 2 --out "$work/capped" --set 'pressure.iterations=20' \
       --set 'pressure.tolerance=1e-9' scenes/first_drop.json &&
   grep -q ' solver=jacobi iterations=20 residual=[0-9.e+-]* capped seconds=' "$work/capped/log.txt" &&
   ! grep -q NOT-CONVERGED "$work/capped/log.txt" "$work/log" &&
   grep -q "^  jacobi used all pressure.iterations=20 before pressure.tolerance=1e-09 in [12] of 2 frames .*expected of Jacobi" "$work/log"; then
    ok "a capped jacobi logs \"capped\" and its summary says it is expected: $(grep -m 1 '^  jacobi used all' "$work/log" | cut -c3-90)"
else
    bad "a capped jacobi in the student kit:"; grep -h -m 3 'frame\|jacobi' "$work/capped/log.txt" "$work/log"
fi
cd "$kit" || exit 1

# ---- GitHub Classroom (handout.github_classroom = true, in the second tarball) ---------------
# classroom_score OUT: the setup steps and each test of the workflow's commands ($work/classroom.txt,
# from tests/classroom.py) run in the unpacked kit as the command grader runs them: `sh -c` with
# only PATH and HOME, the test's timeout; a test scores its max-score when it exits 0. Writes
# "SCORE STAGE..." (the stages that scored) to OUT.
classroom_score() {
    out=$1 score=0 passed=
    while read -r kind rest; do
        case $kind in
        setup) sh -c "$rest" > "$work/log" 2>&1 || { bad "GitHub Classroom setup step '$rest' failed:"; tail -n 5 "$work/log"; } ;;
        test) set -- $rest; id=$1 pts=$2 minutes=$3; shift 3
              if timeout $((minutes * 60)) env -i PATH="$PATH" HOME="$HOME" sh -c "$*" > "$work/log" 2>&1; then
                  score=$((score + pts)); passed="$passed $id"
              fi ;;
        esac
    done < "$work/classroom.txt"
    echo "$score$passed" > "$out"
}
classroom_checks() {
    wf=.github/workflows/classroom.yml
    if [ -z "${CLASSROOM_POINTS:-}" ]; then
        bad "GitHub Classroom: no CLASSROOM_POINTS given (make check-dist sets it)"; return
    fi
    if ! python3 "$kit/tests/classroom.py" "$wf" "$CLASSROOM_POINTS" > "$work/classroom.txt" 2> "$work/log"; then
        bad "GitHub Classroom workflow:"; cat "$work/log"; return
    fi
    total=$(sed -n 's/^total //p' "$work/classroom.txt")
    config_total=$(awk '{ t += $2 } END { print t }' "$CLASSROOM_POINTS")
    if [ "$total" = "$config_total" ]; then
        ok "GitHub Classroom: $wf read by PyYAML: $(grep -c '^test ' "$work/classroom.txt") tests (make test-<stage>), max-score $total = the config's stage points"
    else
        bad "GitHub Classroom: the workflow's points add up to $total, the config's stage points to $config_total"
    fi
    # The check can fail: a workflow whose p2g test is worth a point more is refused.
    sed '/id: p2g/,/max-score/s/max-score: \([0-9]*\)/max-score: 1\1/' "$wf" > "$work/planted.yml"
    if ! python3 "$kit/tests/classroom.py" "$work/planted.yml" "$CLASSROOM_POINTS" > /dev/null 2> "$work/log"; then
        ok "GitHub Classroom: a workflow with another p2g max-score is refused: $(cut -c1-100 "$work/log")"
    else
        bad "GitHub Classroom: a workflow with another p2g max-score passed the check"
    fi
    start=$(date +%s)
    classroom_score "$work/stubs.score"
    for s in $stages; do cp "$kit/reference/$s.c" assignment/; done
    classroom_score "$work/ref.score"
    patch -s assignment/gravity.c < "$kit/tests/mutants/gravity-swapped-axis.patch"
    classroom_score "$work/mutant.score"
    cp "$kit/reference/gravity.c" assignment/gravity.c
    gravity=$(awk '$1 == "gravity" { print $2 }' "$CLASSROOM_POINTS")
    read -r s_stub _ < "$work/stubs.score"; read -r s_ref _ < "$work/ref.score"; read -r s_mut m_passed < "$work/mutant.score"
    if [ "$s_stub" -eq 0 ] && [ "$s_ref" -eq "$total" ] && [ "$s_mut" -eq $((total - gravity)) ] &&
       ! echo " $m_passed " | grep -q " gravity "; then
        ok "GitHub Classroom's tests run here: the stubs $s_stub/$total, the reference's files $s_ref/$total, gravity-swapped-axis $s_mut/$total (gravity's $gravity lost); $(( $(date +%s) - start )) s"
    else
        bad "GitHub Classroom's tests: the stubs $s_stub (expected 0), the reference's files $s_ref (expected $total), gravity-swapped-axis $s_mut (expected $((total - gravity)); passed:$m_passed)"
    fi
}

# ---- 4. with the reference's stages shipped as objects (handout.reference_objects = true) ----
if [ -n "${REF_TARBALL:-}" ]; then
    mkdir "$work/withref" && tar -xzf "$REF_TARBALL" -C "$work/withref" && cd "$work/withref/flipkit-student" || exit 1
    run make -j2 all
    # The stubs leave the divergence 0, so no solve runs (0 iterations logged); the reference's
    # stages give the solve work within the first frames.
    if build/flipsim --quiet --frames 3 --out o1 scenes/ball_drop.json > "$work/log" 2>&1 &&
       build/flipsim --quiet --frames 3 --out o2 --use-reference=all scenes/ball_drop.json >> "$work/log" 2>&1 &&
       ! grep -q -E "iterations=[1-9]" o1/log.txt && grep -q -E "iterations=[1-9]" o2/log.txt &&
       ! grep -r -I -q "BEGIN SOLUTION" .; then
        ok "with reference objects: the default track is the student's, --use-reference=all runs the reference's"
    else
        bad "with reference objects ($REF_TARBALL):"; tail -n 10 "$work/log"
    fi
    # made with handout.given_objects too: the given solve is lib/given_sor.o, not its source,
    # and a run that asks for it (use_gauss_seidel) solves with it
    if [ ! -e common/given_sor.c ] && [ -f lib/given_sor.o ] && ! grep -q "^SolveResult given_solve_sor" common/*.c &&
       build/flipsim --quiet --frames 3 --out o3 --use-reference=all --set use_gauss_seidel=true \
           scenes/ball_drop.json > "$work/log" 2>&1 && grep -q -E "iterations=[1-9]" o3/log.txt; then
        ok "with the given solve compiled: no common/given_sor.c, lib/given_sor.o linked, Gauss-Seidel runs"
    else
        bad "with the given solve compiled ($REF_TARBALL): $(ls common/given_sor.c lib/given_sor.o 2>&1 | tr '\n' ' ')"
        tail -n 10 "$work/log"
    fi
    classroom_checks
    # made with handout.reference_frames too: the half-cell g2p's first failing frame is shown
    # beside the reference's own frames, which make grade then reads in place of the metrics
    for s in $stages; do cp "$kit/reference/$s.c" assignment/; done
    patch -s assignment/g2p.c < "$kit/tests/mutants/g2p-off-by-one.patch"
    run make grade GRADE_PARTS=scenes
    if [ -f tests/golden/frames/ball_drop.jacobi/particles/000020.ply ] &&
       grep -q "^  to see it: make view RUN=[^ ]* VS=[^ ]*/tests/golden/frames/[a-z_]*\.[a-z_]*$" "$work/log" &&
       ! grep -q "^total 20.0 / 20.0" "$work/log"; then
        ok "with the reference's frames shipped: $(grep -m 1 '^  to see it' "$work/log" | sed 's/^ *//' | cut -c1-100)"
    else
        bad "with the reference's frames ($REF_TARBALL):"; tail -n 8 "$work/log"
    fi
    cd "$kit" || exit 1
fi
fi

# ---- 5. the other levels ---------------------------------------------------------------------
# check_level LEVEL TARBALL
check_level() {
    lv=$1 tb=$2 dir="$work/level-$1" t0=$(date +%s)
    mkdir "$dir" && tar -xzf "$tb" -C "$dir" || { bad "$tb does not unpack"; return; }
    lroot="$dir/flipkit-student"
    found=$(search "$lroot")
    [ -z "$found" ] || { bad "solution code in the $lv kit:"; echo "$found" | head -n 5; }
    if grep -rl '@level' "$lroot" >/dev/null; then bad "$lv kit: level markers left in $(grep -rl '@level' "$lroot" | head -n 3 | tr '\n' ' ')"; fi
    given=$(echo $(sed -n 's/^KIT_LEVELS := //p' "$lroot/Makefile" | tr ' ' '\n' | sed -n 's/=given$//p'))
    assigned=$(for s in $stages; do case " $given " in *" $s "*) ;; *) printf '%s ' "$s";; esac; done)
    nassigned=$(echo $assigned | wc -w)
    # what a student file can include: no stencil helper; pages without Stuck? and with every test
    helpers=$(grep -l -E 'grid_stencil|stencil_weight|\<Stencil\>' "$lroot"/common/*.h "$lroot"/common/writers/*.h 2>/dev/null | tr '\n' ' ')
    # (a given stage's page describes the code shipped for it, at guided)
    stuck=$(for s in $assigned; do grep -l '^## Stuck?' "$lroot/handout/stages/$s.md"; done | tr '\n' ' ')
    unlisted=$(for s in $assigned; do for t in $(sed -n 's/.*tcase_add_test([a-z_]*, *\([a-z_0-9]*\)).*/\1/p' "$lroot/tests/test_$s.c"); do
                   grep -q "\`$t\`" "$lroot/handout/stages/$s.md" || printf '%s:%s ' "$s" "$t"; done; done)
    if [ -z "$helpers" ] && [ -z "$stuck" ] && [ -z "$unlisted" ] && grep -q "handed out at the \*\*$lv\*\* level" "$lroot/README.md" &&
       grep -q "^\*\*Level: $lv\.\*\*" "$lroot/handout/README.md"; then
        ok "$lv kit: no stencil helper in common/*.h, no Stuck? section, every test of the $nassigned suites on its page, README and handout/README.md say $lv"
    else
        bad "$lv kit: stencil helpers in: ${helpers:-none}; Stuck? in: ${stuck:-none}; tests not on their page: ${unlisted:-none}; or README/handout/README.md do not say $lv"
    fi
    # the same suites, cases and harness as the guided kit, byte for byte: so every planted bug
    # check-mutants shows failing its stage by an analytic case fails it at this level too
    differ=$(for s in $assigned; do cmp -s "$lroot/tests/test_$s.c" "$root/tests/test_$s.c" || printf 'tests/test_%s.c ' "$s"
                 diff -r -q "$lroot/tests/golden/public/$s" "$root/tests/golden/public/$s" >/dev/null || printf 'tests/golden/public/%s ' "$s"; done
             for f in harness.c harness.h lib/stagecase.c lib/fielddiff.c; do cmp -s "$lroot/tests/$f" "$root/tests/$f" || printf 'tests/%s ' "$f"; done)
    if [ -z "$differ" ]; then
        ok "$lv kit: its $nassigned suites, their public cases and the harness are the guided kit's, byte for byte"
    else
        bad "$lv kit: tests differ from the guided kit's: $differ"
    fi
    # the guided kit's objects where the sources are the same bytes; what differs is made again
    if [ -d "$root/build" ]; then
        cp -a "$root/build" "$lroot/build" && (cd "$lroot" && find . -path ./build -prune -o -type f -print) |
            while read -r f; do cmp -s "$lroot/$f" "$root/$f" || touch "$lroot/$f"; done
    fi
    cd "$lroot" || return
    if run make help && grep -q "^Your stages and their levels" "$work/log"; then
        help=$(grep "^Your stages and their levels" "$work/log")
    else
        bad "$lv kit: make help does not list the stages' levels"; help=
    fi
    if run make -j2 CFLAGS="-O2 -g -Werror" all $(for s in $assigned; do echo "build/tests/test_$s"; done) build/flipgrade; then
        ok "$lv kit builds without a warning (-Werror), $nassigned suites${given:+, given compiled: $given}"
    else
        bad "$lv kit does not build with -Werror:"; grep -E "warning|error" "$work/log" | head -n 5
    fi
    run make -j2 test; rc=$?
    failing=$(grep -c -E "^[a-z0-9]+ +[0-9]+ +[0-9]+ +[1-9][0-9]* *$" "$work/log")
    if [ "$rc" -ne 0 ] && [ "$failing" -eq "$nassigned" ] &&
       [ "$(grep -c -E "^[a-z0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ *$" "$work/log")" -eq "$nassigned" ]; then
        ok "$lv kit: make test on its stubs fails all $nassigned assigned stages (exit $rc)"
    else
        bad "$lv kit: make test on its stubs: exit $rc, $failing of $nassigned assigned stages failing:"; tail -n 10 "$work/log"
    fi
    for s in $assigned; do cp "$kit/reference/$s.c" assignment/; done
    if run make -j2 test && grep -q "make test: all passed" "$work/log"; then
        ok "$lv kit: make test with the reference's files: all passed"
    else
        bad "$lv kit: make test with the reference's files:"; tail -n 10 "$work/log"
    fi
    # the scenes link the given stages' objects in place of the student's; without given stages
    # they run the same code as in the guided kit, checked above
    parts=stages; [ -n "$given" ] && parts=all
    run make grade GRADE_PARTS=$parts; rc=$?
    total=$(grep -E "^total [0-9.]+ / [0-9.]+" "$work/log" | head -n 1)
    got=$(echo "$total" | awk '{ print $2 }'); max=$(echo "$total" | awk '{ print $4 }')
    if [ "$rc" -eq 0 ] && [ -n "$got" ] && [ "$got" = "$max" ] &&
       { [ -z "$given" ] || grep -q "^given, not graded .*: $(echo $given | sed 's/ /, /g')$" "$work/log"; }; then
        ok "$lv kit: make grade (GRADE_PARTS=$parts) with the reference's files: $got / $max${given:+, $given given and not graded}"
    else
        bad "$lv kit: make grade with the reference's files: exit $rc, ${total:-no total}"; tail -n 12 "$work/log"
    fi
    [ -n "$help" ] && ok "$lv kit: make help says: $(echo "$help" | cut -c1-150)"
    echo "     ($lv kit checked in $(( $(date +%s) - t0 )) s)"
    cd "$kit" || exit 1
}
for pair in ${LEVEL_TARBALLS:-}; do
    check_level "${pair%%:*}" "${pair#*:}"
done

[ "$fail" -eq 0 ] && echo "check-dist: $tarball passes"
exit "$fail"
