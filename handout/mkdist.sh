#!/bin/sh
# mkdist.sh — assembles the student tarball, dist/flipkit-student.tar.gz, from the kit.
# flipkit handout/: `make handout` runs it after building what it ships (golden cases, stubs).
# It copies by list, never by "everything but": a new file in the kit ships only when added here.
#
# Usage: mkdist.sh OUT.tar.gz GOLDEN_DIR STUBS_DIR REFERENCE_OBJECTS_LIB|-
#   GOLDEN_DIR: the public golden cases the reference recorded (build/golden)
#   STUBS_DIR: the eight stubs, made from reference/ by mkstub.awk (not copied from assignment/,
#   which an instructor trying the assignment may have filled in)
#   REFERENCE_OBJECTS_LIB: lib/reference_stages.a to ship (grader/config handout.reference_objects),
#   or - for none
# Environment: STAGES (the eight stage names), METRICS (the reference's scene metrics,
# build/grader/data/metrics), GIVEN_OBJ (when set: the given SOR solve compiled, shipped as
# lib/given_sor.o in place of common/given_sor.c; grader/config handout.given_objects), FRAMES
# (when set: the reference's frames to ship, build/grader/data/frames; handout.reference_frames),
# CLASSROOM_POINTS (when set: a file of "STAGE POINTS" lines, `flipgrade --print stage-points`;
# the tarball then holds .github/workflows/classroom.yml, GitHub Classroom's autograding with
# one test per stage; grader/config handout.github_classroom);
# lib/given_sor.o in place of common/given_sor.c; grader/config handout.given_objects);
# the assignment's levels (issue 39; grader/config's handout group, through flipgrade --print):
# LEVEL (the whole handout's: guided, standard or open), LEVELS ("stage=level ...", level
# "given" for a stage shipped compiled), GIVEN_DIR (the given stages' objects, <stage>.o),
# CONFIG (the config the kit's grader gets, grader/config by default) and TABLE (its grading
# table, flipgrade --print grading-table). Run from the kit's root.
set -eu
[ $# -eq 4 ] || { echo "usage: mkdist.sh OUT.tar.gz GOLDEN_DIR STUBS_DIR REFERENCE_OBJECTS_LIB|-" >&2; exit 2; }
out=$1 golden=$2 stubs=$3 reflib=$4
name=flipkit-student
stage=$(mktemp -d) || exit 1
trap 'rm -rf "$stage"' EXIT
root="$stage/$name"
config=${CONFIG:-grader/config}
level=${LEVEL:-guided}
levels=${LEVELS:-$(for s in $STAGES; do printf '%s=guided ' "$s"; done)}
# given STAGE: whether the stage ships compiled from the reference (not assigned).
given() { case " $levels " in *" $1=given "*) return 0;; esac; return 1; }

# put FILE... DIR: copies kit files into the tarball's DIR, failing on a missing one.
put() {
    dir=$1; shift
    mkdir -p "$root/$dir"
    for f in "$@"; do
        [ -f "$f" ] || { echo "mkdist.sh: $f: missing from the kit" >&2; exit 1; }
        cp "$f" "$root/$dir/"
    done
}

mkdir -p "$root"
# The kit's Makefile knows each stage's level (make help says it); levels are plain words.
levels=$(echo $levels)   # one line of words, whether given one a line or one a space
case "$levels" in *[!a-z0-9_=\ ]*) echo "mkdist.sh: LEVELS=\"$levels\": not stage=level words" >&2; exit 1;; esac
awk -v levels="$levels" '/^KIT_LEVELS := / { print "KIT_LEVELS := " levels; next } { print }' \
    handout/student.mk > "$root/Makefile"

put common common/*.c common/*.h common/movie.sh common/build.mk
if [ -n "${GIVEN_OBJ:-}" ]; then   # common/build.mk links lib/given_sor.o where the source is not
    rm "$root/common/given_sor.c"
    put lib "$GIVEN_OBJ"
fi
put common/writers common/writers/*.c common/writers/*.h common/writers/README.md
# The viewer (make view): its page, server and npm lockfile; three.js itself comes from npm.
put common/viewer common/viewer/index.html common/viewer/viewer.js common/viewer/viewer.css \
                  common/viewer/serve.mjs common/viewer/setup.sh common/viewer/package.json \
                  common/viewer/package-lock.json
put assignment assignment/track.c
for s in $STAGES; do
    if given "$s"; then
        put lib/stages "${GIVEN_DIR:?the given stages' objects}/$s.o"
    else
        put assignment "$stubs/$s.c"
    fi
done
put scenes scenes/*.json scenes/README.md
put common/python/flipkit common/python/flipkit/__init__.py
put common/python/examples common/python/examples/*.py
put handout handout/README.md
put handout/stages handout/stages/*.md
put handout/figures handout/figures/*.svg

# The tests: the eight stage suites, what they share, the runner of `make test`, and the public
# golden cases, recorded (the reference that records them does not ship).
for s in $STAGES; do given "$s" || put tests "tests/test_$s.c"; done
put tests tests/harness.c tests/harness.h tests/golden.c tests/golden.h tests/compare.c tests/compare.h \
          tests/run_suites.sh tests/checkphysics.c
put tests/lib tests/lib/fielddiff.c tests/lib/fielddiff.h tests/lib/stagecase.c tests/lib/stagecase.h
put tests/golden tests/golden/*.json
for s in $STAGES; do
    given "$s" && continue   # not graded, not tested: no cases
    set -- "$golden/$s"/*.state
    [ -f "$1" ] || { echo "mkdist.sh: $golden/$s: no golden cases (run make golden)" >&2; exit 1; }
    put "tests/golden/public/$s" "$@"
done

# The reference's per-frame metrics of the graded scenes (what the scene parts compare with:
# count, centre of mass, height quantiles, occupied cells, motion; no frames, no code), so the
# self-check scores the whole-scene parts too. Environment: METRICS, make grade-data's metrics/.
set -- "${METRICS:?the reference's scene metrics (build/grader/data/metrics)}"/*.txt
[ -f "$1" ] || { echo "mkdist.sh: $METRICS: no scene metrics (run make grade-data)" >&2; exit 1; }
put tests/golden/metrics "$@"

# Only when grader/config says handout.reference_frames = true (environment FRAMES, make
# grade-data's frames/): the reference's particle frames of the graded scenes, so make grade's
# first failing frame names a make view beside them (grader/scenepart.c finds them there).
if [ -n "${FRAMES:-}" ]; then
    set -- "$FRAMES"/*/particles/000000.ply
    [ -f "$1" ] || { echo "mkdist.sh: $FRAMES: no reference frames (run make grade-data)" >&2; exit 1; }
    for first in "$@"; do
        run=$(dirname "$(dirname "$first")")
        put "tests/golden/frames/$(basename "$run")" "$run/scene.json" "$run/log.txt"
        put "tests/golden/frames/$(basename "$run")/particles" "$run"/particles/*.ply
    done
fi

# The self-check grader: its program and config, the untouched stubs (they stand in for a file
# that does not compile), no hidden cases and no calibration (that links the reference).
put grader grader/flipgrade.c grader/grading.c grader/grading.h grader/gradeconfig.c grader/gradeconfig.h \
           grader/intake.c grader/intake.h grader/escape.c grader/escape.h grader/classrun.c \
           grader/gradebook.c grader/gradebook.h \
           grader/classrun.h grader/metrics.c grader/metrics.h grader/build.c \
           grader/buildcache.c grader/buildcache.h \
           grader/stagepart.c grader/scenepart.c grader/report.c grader/report.h grader/feedback.c \
           grader/gradescope.c grader/gradescope.h \
           grader/variant.c grader/variant.h \
           grader/feedback.h grader/render.c \
           grader/render.h grader/sandbox.c grader/sandbox.h grader/sbjail.c grader/sbjail.h \
           grader/sbcalls.c grader/sbcalls.h grader/guard.c grader/guard.h grader/runsettings.h \
           grader/stagerun.c grader/scenerun.c grader/solvertrap.c grader/handin.c \
           grader/grade.h grader/kit.mk
# The config without the hidden cases (their list is the instructor's business), and a README
# for the self-check instead of grader/README.md, which is the instructor's manual.
awk '/^ *cases = \[/ { skipping = 1 } skipping { if (/\];/) skipping = 0; next } { print }' \
    "$config" > "$root/grader/config"
if grep -q 'grader/cases' "$root/grader/config"; then
    echo "mkdist.sh: grader/config: hidden cases left in the student config" >&2; exit 1
fi
cat > "$root/grader/README.md" <<'EOF'
# The self-check grader

`make grade` runs the instructor's grader (`build/flipgrade`) on your `assignment/`, with the
public golden cases in `tests/golden/public/` instead of the hidden ones. Each stage file is
compiled on its own and run in a sandbox (time, memory, disk and output limits; only the
system calls a stage needs; no writes outside its directory), so one stage that crashes or
hangs costs only its own points, and the reason says what it did.
The points per stage come from `grader/config`. The report is `build/grades/self/report.html`.

The whole-scene parts run your pipeline on the graded scenes, once with your `jacobi` and once
with the given Gauss-Seidel, and compare every frame with the reference's, using the grader's own
code and thresholds: the kit ships the reference's per-frame metrics (`tests/golden/metrics/`:
particle count, centre of mass, height quantiles, occupied cells, motion), not its frames. The
first failing frame of a part is named with its metric, and the line that shows your run in
`make view` is printed. What it does not do: the hidden cases and hidden scenes run only at
grading time, so the total is out of the public parts. `handout/README.md`, "How it is graded",
lists every part and its points. `build/flipgrade --help` lists its options.
EOF
for s in $STAGES; do put grader/stubs "$stubs/$s.c"; done

if [ "$reflib" != - ]; then
    put lib "$reflib"
fi

# The level: the README's grading table from this kit's config (given stages are not graded),
# then every file with @level blocks cut to its stages' levels (handout/level.awk): stages.h,
# grid.h and grid.c, the handout's pages. No marker ships.
if [ -n "${TABLE:-}" ]; then
    handout/sync.sh "$root/handout/README.md" common/stages.h "$TABLE" ||
        { echo "mkdist.sh: $TABLE: cannot write the grading table into the README" >&2; exit 1; }
fi
grep -rl '@level' "$root" | while read -r f; do
    case "$f" in */handout/stages/*.md) own=$(basename "$f" .md);; *) own=;; esac
    awk -v levels="$levels" -v level="$level" -v stage="$own" -f handout/level.awk "$f" > "$f.cut" ||
        { echo "mkdist.sh: cutting $f to its level failed" >&2; exit 1; }
    mv "$f.cut" "$f"
done
if grep -rl '@level' "$root" >&2; then
    echo "mkdist.sh: level markers left in the files above" >&2; exit 1
fi

cat > "$root/README.md" <<'EOF'
# flipkit — the student kit

You write the eight stages of a PIC/FLIP liquid simulator in `assignment/`. The assignment,
with the math of every stage, is **handout/README.md**: start there.

```sh
make run     # installs what is missing (Debian/Ubuntu), builds, runs scenes/first_drop.json:
             # your stages on a small ball of water, about a second; particles and previews in
             # out/first_drop/ (SCENE=scenes/ball_drop.json for the full-size one)
make test    # all eight stage suites on your assignment/, then a table
make submission  # submission.tar.gz: your eight stage files, checked as the grader will take them
make help    # everything else
```
EOF
{
    echo
    echo "## Your stages and their level"
    echo
    echo "This kit is handed out at the **$level** level (handout/README.md says what that gives you)."
    echo
    echo "| stage | level |"
    echo "|---|---|"
    for pair in $levels; do
        s=${pair%%=*} l=${pair#*=}
        if [ "$l" = given ]; then
            echo "| \`$s\` | given: the reference's, compiled in \`lib/stages/$s.o\`; not yours to write, not graded |"
        else
            echo "| \`$s\` | $l: yours, in \`assignment/$s.c\` |"
        fi
    done
    echo
    echo "*guided*: the contract in \`common/stages.h\` gives each stage's formula and boundary rules,"
    echo "the helpers do the grid's staggering, and each page has a step-by-step section. *standard*:"
    echo "the contracts state the math and the grid's layout, not the code (no stencil helper for"
    echo "\`p2g\` and \`g2p\`); the pages explain the ideas and the tests in words. *open*: the"
    echo "conventions and each stage's inputs and outputs; the rest, walls included, is yours."
} >> "$root/README.md"

# GitHub Classroom's autograding (handout.github_classroom): one command-grader test per stage,
# `make test-<stage>` worth that stage's points when it exits 0, and the reporter that adds them
# up. The stage names come from the kit's own table and the points from flipgrade, so nothing
# here is anyone's free text; the points are checked to be whole numbers (the action's
# max-score is one).
if [ -n "${CLASSROOM_POINTS:-}" ]; then
    mkdir -p "$root/.github/workflows"
    wf="$root/.github/workflows/classroom.yml"
    cat > "$wf" <<'EOF'
# GitHub Classroom's autograding for the flipkit student kit, made by the instructor's
# `make handout` from grader/config (handout.github_classroom = true): one test per stage,
# `make test-<stage>`, worth that stage's points (stages.points, stages.points_by_stage) when
# its suite passes. The hidden cases and the whole-scene parts are graded by the instructor.
name: Autograding Tests
"on":
  - push
  - workflow_dispatch
  - repository_dispatch
permissions:
  checks: write
  actions: read
  contents: read
jobs:
  run-autograding-tests:
    runs-on: ubuntu-latest
    if: github.actor != 'github-classroom[bot]'
    steps:
      - name: Checkout code
        uses: actions/checkout@v4
      - name: Install the packages the kit needs
        run: make deps
EOF
    runners=
    while read -r sname points; do
        case " $STAGES " in *" $sname "*) ;; *) echo "mkdist.sh: $CLASSROOM_POINTS: \"$sname\" is not a stage" >&2; exit 1;; esac
        case "$points" in ''|*[!0-9]*) echo "mkdist.sh: $CLASSROOM_POINTS: $sname: points \"$points\" (expected a whole number)" >&2; exit 1;; esac
        cat >> "$wf" <<EOF
      - name: $sname
        id: $sname
        uses: classroom-resources/autograding-command-grader@v1
        with:
          test-name: $sname
          command: make test-$sname
          timeout: 10
          max-score: $points
EOF
        runners=${runners:+$runners,}$sname
    done < "$CLASSROOM_POINTS"
    [ -n "$runners" ] || { echo "mkdist.sh: $CLASSROOM_POINTS: no stages" >&2; exit 1; }
    {
        echo "      - name: Autograding Reporter"
        echo "        uses: classroom-resources/autograding-grading-reporter@v1"
        echo "        env:"
        for sname in $(echo "$runners" | tr ',' ' '); do
            echo "          $(echo "$sname" | tr '[:lower:]' '[:upper:]')_RESULTS: \"\${{steps.$sname.outputs.result}}\""
        done
        echo "        with:"
        echo "          runners: $runners"
    } >> "$wf"
fi

if [ -n "${CLASSROOM_POINTS:-}" ]; then
    cat >> "$root/README.md" <<'EOF'

On GitHub Classroom, every push runs `.github/workflows/classroom.yml`: `make test-<stage>`
for each stage, worth that stage's points when its suite passes (the total is under your
repository's Actions and in Classroom). Those are the public suites you have here; your
instructor grades the hidden cases and the whole scenes apart.
EOF
fi

chmod -R u+rwX,go+rX "$root"
mkdir -p "$(dirname "$out")"
# The same kit makes the same bytes: sorted names, no owners, no dates.
# (Two steps, not a pipe: /bin/sh has no pipefail, and a failed tar must not ship.)
tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner --format=gnu -C "$stage" \
    -cf "$stage/$name.tar" "$name"
gzip -n -9 -c "$stage/$name.tar" > "$out.tmp"
mv "$out.tmp" "$out"
echo "make handout: $out ($(du -k "$out" | cut -f1) KiB, $(tar -tzf "$out" | grep -vc '/$') files)"
