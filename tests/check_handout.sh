#!/bin/sh
# check_handout.sh — what the handout claims, checked against the kit it describes.
# flipkit tests/: `make check-handout` runs it after check-mutants (whose logs it reads) and
# handout/sync.sh --check (which keeps the quoted stages.h blocks and grading table current).
# The handout is DIR/README.md (getting started, conventions, debugging, grading) and a page
# per stage, DIR/stages/STAGE.md.
# Usage: check_handout.sh DIR MUTANT_LOG_DIR   (run from the kit's root). One line per check.
set -u
dir=${1:?usage: check_handout.sh HANDOUT_DIR MUTANT_LOG_DIR}
mutlogs=${2:?usage: check_handout.sh HANDOUT_DIR MUTANT_LOG_DIR}
stages=${STAGES:?run me from make, which reads the stages from common/stagelist.h}
readme=$dir/README.md
files="$readme $(for s in $stages; do echo "$dir/stages/$s.md"; done)"
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $dir: $*"; fail=1; }
all_text() { cat $files 2>/dev/null; }

# ---- a page per stage, linked in order from the README; each with the same parts, and the
# ---- step by step and the common bugs last, under "Stuck?" ---------------------------------
n=0
for s in $stages; do
    n=$((n + 1))
    page=$dir/stages/$s.md
    [ -f "$page" ] || { bad "no page $page for stage $s"; continue; }
    [ "$(head -n 1 "$page")" = "# Stage $n: $s" ] || bad "$page does not start \"# Stage $n: $s\""
    grep -q "^| $n | \[$s\](stages/$s.md) |" "$readme" || bad "$readme does not link stage $n to stages/$s.md"
    stuck=$(grep -n -x "## Stuck?" "$page" | cut -d: -f1)
    [ -n "$stuck" ] || bad "$page has no \"## Stuck?\" section"
    for part in "The math" "Boundary rules" "The contract" "What the tests check"; do
        at=$(grep -n -x "## $part" "$page" | cut -d: -f1)
        [ -n "$at" ] || { bad "$page has no \"## $part\""; continue; }
        [ -n "$stuck" ] && [ "$at" -gt "$stuck" ] && bad "$page: \"## $part\" comes after \"## Stuck?\""
    done
    for part in "Step by step" "Common bugs"; do
        at=$(grep -n -x "### $part" "$page" | cut -d: -f1)
        [ -n "$at" ] || { bad "$page has no \"### $part\""; continue; }
        [ -n "$stuck" ] && [ "$at" -lt "$stuck" ] && bad "$page: \"### $part\" comes before \"## Stuck?\""
    done
    grep -q -x "<!-- BEGIN stages.h: $s -->" "$page" || bad "$page does not quote stages.h's $s contract"
    grep -q "^<!-- mutant: $s-" "$page" || bad "$page quotes no failing test of a $s bug"
done
[ "$fail" -eq 0 ] && ok "8 stage pages in pipeline order, each with math, boundary rules, contract, tests, and Stuck? (step by step, bugs) last"

# ---- every quoted failure is what the suite really prints for that bug ---------------------
countfile=$(mktemp) || exit 1
awk -v logs="$mutlogs" -v countfile="$countfile" '
function bad(msg) { printf "FAIL %s:%d: %s\n", FILENAME, FNR, msg; failed = 1 }
/^<!-- mutant: [A-Za-z0-9-]+ -->$/ { name = $3; want_fence = 1; next }
want_fence {
    want_fence = 0
    if ($0 != "```text") { bad("<!-- mutant: " name " --> must be followed by a ```text block"); next }
    inside = 1; lines = 0; logf = logs "/" name "/run.log"
    if ((getline probe < logf) <= 0) { bad("no output of mutant " name " in " logf " (run make check-mutants)"); inside = 0 }
    close(logf); next
}
inside && $0 == "```" { inside = 0; if (!lines) bad("the quote of " name " is empty"); quoted++; next }
inside {
    lines++; found = 0
    while ((getline l < logf) > 0) if (index(l, $0)) { found = 1; break }
    close(logf)
    if (!found) bad("quoted for " name " but not in its output (" logf "): " substr($0, 1, 80))
}
END { print quoted + 0 > countfile; exit failed }
' $files || fail=1
quotes=$(cat "$countfile"); rm -f "$countfile"
for m in $(all_text | grep -o '^<!-- mutant: [A-Za-z0-9-]* -->' | cut -d' ' -f3); do
    [ -f "tests/mutants/$m.patch" ] || bad "quotes mutant $m, which tests/mutants/ does not have"
done
[ "$fail" -eq 0 ] && ok "$quotes quoted test failures appear verbatim in their planted bug's output"

# ---- commands, options, names and figures it mentions exist -------------------------------
before=$fail
targets=$(sed -n 's/^\.PHONY: *//p' handout/student.mk | tr ' ' '\n' | grep -v '\$' ; for s in $stages; do echo "test-$s"; done)
for t in $(all_text | grep -o 'make [a-z][a-z0-9-]*' | cut -d' ' -f2 | sort -u); do
    echo "$targets" | grep -q -x "$t" || bad "mentions \"make $t\", which the student Makefile does not have"
done
for c in $(all_text | grep -o 'CK_RUN_CASE=[a-z_]*' | cut -d= -f2 | sort -u); do
    case $c in analytic|golden) ;; *) bad "CK_RUN_CASE=$c: the suites' cases are analytic and golden" ;; esac
done
for o in $(all_text | grep -o -- '--[a-z][a-z-]*[a-z]' | sort -u); do
    grep -q -e "\"${o#--}\"" -e " $o" common/cli.c grader/flipgrade.c ||
        bad "mentions option $o, which neither flipsim nor flipgrade has"
done
sources="common/*.c common/*.h tests/*.c tests/*.h assignment/*.c scenes/*.json grader/config grader/*.c handout/student.mk"
for id in $(all_text | grep -o '`[a-z_][a-z0-9_]*_[a-z0-9_]*`' | tr -d '`' | sort -u); do
    cat $sources | grep -q -w -- "$id" || bad "mentions \`$id\`, which no file the student gets defines or uses"
done
for f in $files; do
    for fig in $(grep -o '](\(\.\./\)*figures/[^)]*)' "$f" 2>/dev/null | sed 's/](\(.*\))/\1/' | sort -u); do
        [ -f "$(dirname "$f")/$fig" ] || bad "$f shows $fig, which is not there"
    done
done
[ "$fail" -eq "$before" ] && ok "every make target, CK_RUN_CASE, option, \`identifier\` and figure it names exists"

# ---- the conventions CSC417's handout got wrong ---------------------------------------------
before=$fail
grep -q '\\frac{\\rho}{\\Delta t}' "$readme" || bad "the pressure equation is not scaled by \\frac{\\rho}{\\Delta t}"
grep -n '\\frac{1}{\\Delta t}' $files | head -n 1 | grep . && bad "scales the pressure equation by 1/Δt somewhere (stages.h: ρ/Δt)"
alphas=$(sed -n 's/.*"pic_flip_alpha": *\([0-9.]*\).*/\1/p' scenes/*.json common/scene.c | sort -u)
for a in $(all_text | grep -o -E '(alpha|\\alpha|pic_flip_alpha`?) ?=? ?\$?[0-9]+(\.[0-9]+)?' | grep -o -E '[0-9]+(\.[0-9]+)?$' | sort -u); do
    case $a in 0|1|0.0|1.0) continue ;; esac
    echo "$alphas" | grep -q -x "$a" || bad "suggests alpha = $a, which no scene uses (they use: $(echo $alphas))"
done
[ "$fail" -eq "$before" ] && ok "pressure scaled by rho/dt; every alpha it suggests is one the scenes use ($(echo $alphas))"

# ---- the checks can fail: each of five planted mistakes, alone in a copy, is caught -----------
if [ -z "${FLIPKIT_PLANTED:-}" ] && [ "$fail" -eq 0 ]; then
    planted=$(mktemp -d) || exit 1
    caught=0
    # plant FILE SED_SCRIPT WHAT EXPECTED_FAILURE_TEXT: FILE (under DIR) changed in a copy of DIR
    plant() {
        rm -rf "$planted/h"; cp -r "$dir" "$planted/h"
        sed -e "$2" "$dir/$1" > "$planted/h/$1"
        if FLIPKIT_PLANTED=1 "$0" "$planted/h" "$mutlogs" 2>&1 | grep '^FAIL' | grep -q -F -- "$4"; then
            caught=$((caught + 1))
        else
            echo "FAIL the checks miss a planted mistake: $3"; fail=1
        fi
    }
    plant stages/p2g.md 's/^# Stage 3: p2g$/# Stage 3: P2G/' "a stage page renamed" 'does not start "# Stage 3: p2g"'
    plant stages/advect.md '0,/^<!-- mutant: advect-no-dt -->$/{/^<!-- mutant: advect-no-dt -->$/{n;n;s/expected/EXPECTED/}}' \
          "a quoted failure changed" "quoted for advect-no-dt but not in its output"
    plant README.md '0,/make test-p2g/s/make test-p2g/make test-p2gg/' "a make target that does not exist" 'make test-p2gg'
    plant README.md '0,/\\frac{\\rho}{\\Delta t}/s/\\frac{\\rho}{\\Delta t}/\\frac{1}{\\Delta t}/' "1/dt scaling" "1/Δt"
    plant stages/p2g.md '0,/`grid_stencil`/s/`grid_stencil`/`grid_stencils`/' "an identifier that does not exist" 'grid_stencils'
    rm -rf "$planted"
    [ "$caught" -eq 5 ] && ok "each of 5 planted mistakes (section, quote, target, 1/dt, identifier) is caught on its own"
fi

# ==== issue 37: the prose of "## How it is graded" against grader/config ======================
# The scenes, frames, solvers and points are made from the config into the section's
# generated block (flipgrade --print grading-table; sync.sh --check keeps it current). The
# hand-written prose around it must not contradict that block: no scene, frame count, case
# count, total or solver the config does not grade. The block's rows are the config's word.
grading_section() {   # grading_section FILE [outside|inside]: the section, without/only the block
    awk -v want="$2" '
    /^## / { on = ($0 == "## How it is graded") }
    !on { next }
    /^<!-- BEGIN grader\/config: grading -->$/ { block = 1; next }
    /^<!-- END grader\/config -->$/ { block = 0; next }
    (want == "inside") == block { print }' "$1"
}
prose_must_fit_config() {   # one FAIL line per claim of the prose that the block contradicts
    prose=$(grading_section "$readme" outside)
    block=$(grading_section "$readme" inside)
    runs=$(echo "$block" | sed -n 's/^| `\([a-z0-9_]*\)\.\([a-z_]*\)` |.*/\1 \2/p')
    [ -n "$block" ] || { bad "README.md: \"## How it is graded\" has no generated grader/config block"; return; }
    graded=$(echo "$runs" | cut -d' ' -f1 | sort -u)
    for f in scenes/*.json; do
        s=$(basename "$f" .json)
        echo "$prose" | grep -q -w -- "$s" || continue
        echo "$graded" | grep -q -x -- "$s" ||
            bad "README.md, How it is graded: the prose names scene $s, which grader/config does not grade (it grades: $(echo $graded))"
    done
    frames=$(echo "$block" | grep -o '; [0-9]* frames against' | grep -o '[0-9]*' | sort -u)
    for n in $(echo "$prose" | grep -o -E '\b[0-9]+ frames' | grep -o -E '^[0-9]+' | sort -u); do
        echo "$frames" | grep -q -x "$n" ||
            bad "README.md, How it is graded: the prose says $n frames; grader/config's scenes run $(echo $frames) frames"
    done
    cases=$(echo "$block" | grep -o 'on [0-9]* hidden cases' | grep -o '[0-9]*' | sort -u)
    for n in $(echo "$prose" | grep -o -E '\b[0-9]+ hidden cases' | grep -o -E '^[0-9]+' | sort -u); do
        echo "$cases" | grep -q -x "$n" ||
            bad "README.md, How it is graded: the prose says $n hidden cases; grader/config has $(echo $cases)"
    done
    total=$(echo "$block" | sed -n 's/^| \*\*total\*\* | | \*\*\([0-9.]*\)\*\* |$/\1/p')
    for t in $(echo "$prose" | grep -o -E 'total [0-9.]+ / [0-9.]+' | awk '{ print $4 }' | sort -u); do
        awk -v a="$t" -v b="$total" 'BEGIN { exit !(a + 0 == b + 0) }' ||
            bad "README.md, How it is graded: the prose gives a total out of $t; grader/config's total is $total"
    done
    echo "$prose" | grep -q 'given Gauss-Seidel' && ! echo "$runs" | grep -q ' gauss_seidel$' &&
        bad "README.md, How it is graded: the prose speaks of a run with the given Gauss-Seidel; grader/config's scenes.solvers has no gauss_seidel"
    echo "$prose" | grep -q 'with your `jacobi`' && ! echo "$runs" | grep -q ' jacobi$' &&
        bad "README.md, How it is graded: the prose speaks of a run with your \`jacobi\`; grader/config's scenes.solvers has no jacobi"
    return 0
}
before=$fail
prose_must_fit_config
[ "$fail" -eq "$before" ] &&
    ok "the grading prose names only scenes, frame counts, case counts, totals and solvers grader/config grades"
if [ -z "${FLIPKIT_PLANTED:-}" ] && [ "$fail" -eq 0 ]; then
    planted=$(mktemp -d) || exit 1
    caught=0
    # plant_prose SED_SCRIPT WHAT EXPECTED_FAILURE_TEXT: README.md changed in a copy of DIR (plant,
    # above: this block runs only where that one did)
    plant_prose() { plant README.md "$1" "a contradiction of grader/config: $2" "$3"; }
    plant_prose '/^## How it is graded$/,/^## /s/`ball_drop\.jacobi: first failing/`maze.jacobi: first failing/' \
        "a scene the config does not grade" "names scene maze, which grader/config does not grade"
    plant_prose '/^## How it is graded$/,/^## /s/total 100\.0 \/ 100\.0/total 110.0 \/ 110.0/' \
        "another point total" "a total out of 110.0"
    plant_prose '/^## How it is graded$/,/^## /s/runs each scene listed below/runs each scene listed below for 30 frames/' \
        "another frame count" "the prose says 30 frames"
    rm -rf "$planted"
    [ "$caught" -eq 3 ] && ok "each of 3 planted contradictions of grader/config (scene, total, frames) is caught on its own"
fi
# ==== issue 38, item 5: one source for what the tests check ==================================
# Each stage page's "What the tests check" must name every START_TEST of tests/test_STAGE.c
# (golden aside: its cases are listed by file), and name no test that is not there: a test left
# out is a diagnosis the student never reads. The stubs must point at their stage's page, every
# `handout/README.md, "Section"` a student's file names must be a heading, every kit path the
# handout names must be in the kit (or shipped by mkdist.sh), and what it says plain `make run`
# prints must be what the stubs' run prints (FLIPKIT_STUBS: the stub folder, for planting).
before=$fail
stubdir=${FLIPKIT_STUBS:-assignment}
for s in $stages; do
    page=$dir/stages/$s.md suite=tests/test_$s.c
    [ -f "$page" ] && [ -f "$suite" ] || continue
    listed=$(sed -n '/^## What the tests check$/,/^## /p' "$page" | grep '^- `' | sed 's/: .*//' |
             grep -o '`[a-z_][a-z0-9_]*`' | tr -d '`' | sort -u)
    tests=$(sed -n 's/^START_TEST(\([a-z_0-9]*\)).*/\1/p' "$suite" | grep -v -x golden | sort -u)
    for t in $tests; do
        echo "$listed" | grep -q -x "$t" ||
            bad "stages/$s.md, \"What the tests check\": leaves out $t, a START_TEST of $suite (add a \"- \`$t\`: ...\" line)"
    done
    for t in $listed; do
        echo "$tests" | grep -q -x "$t" ||
            bad "stages/$s.md, \"What the tests check\": lists $t, which $suite has no START_TEST for"
    done
    stub=$stubdir/$s.c
    if [ -f "$stub" ]; then
        grep -q "handout/stages/$s\.md" "$stub" ||
            bad "$stub: its header does not point at handout/stages/$s.md (reference/mkstub.awk writes it; make stubs)"
    fi
done
for f in $stubdir/*.c; do
    for p in $(grep -o 'handout/stages/[a-z0-9_]*\.md' "$f" | sort -u); do
        [ -f "$dir/stages/$(basename "$p")" ] || bad "$f points at $p, which is not there"
    done
done
headings=$(sed -n 's/^##* //p' "$readme")
grep -o 'handout/README\.md, \\*"[^"\\]*' $stubdir/*.c common/*.c common/*.h tests/*.c tests/lib/*.c grader/*.c handout/student.mk 2>/dev/null |
while IFS= read -r hit; do
    h=${hit#*\"}; src=${hit%%:*}
    echo "$headings" | grep -q -x -F -- "$h" ||
        echo "FAIL $dir: $src points at handout/README.md, \"$h\", which is no heading of $readme"
done | grep . && fail=1
for f in $files; do
    for p in $(grep -o -E '(^|[^A-Za-z0-9_./-])(common|assignment|tests|scenes|grader|handout|reference|kernels|lib)(/[A-Za-z0-9_.<>*-]+)+' "$f" 2>/dev/null |
               sed -E 's/^[^a-z]//; s/[.]$//' | sort -u); do
        q=$(echo "$p" | sed 's/<stage>/p2g/g')
        ls -d $q >/dev/null 2>&1 && continue
        grep -q -F -- "${p%/}" handout/mkdist.sh && continue   # shipped or made by make handout
        bad "$f names $p, which is not in the kit"
    done
done
# What plain `make run` prints: the scene and notes "## Getting started" promises.
started=$(sed -n '/^## Getting started$/,/^## /p' "$readme")
first_solver=$(sed -n 's/.*"solver": *"\([a-z_]*\)".*/\1/p' scenes/first_drop.json)
first_solver=${first_solver:-jacobi}
for x in $(echo "$started" | grep -o 'asks for the `[a-z_]*` solver' | cut -d'`' -f2 | sort -u); do
    [ "$x" = "$first_solver" ] ||
        bad "README.md, Getting started: says make run's scene asks for the \`$x\` solver; scenes/first_drop.json asks for $first_solver"
done
[ "$first_solver" = jacobi ] && echo "$started" | grep -q 'pressure.solver.*is not in' &&
    bad "README.md, Getting started: promises a note that pressure.solver is not in the student track; scenes/first_drop.json asks for jacobi, which is"
echo "$started" | tr '\n' ' ' | grep -o '`flipsim: note: [^`.]*' | cut -c2- |
while IFS= read -r note; do
    fixed=$(echo "$note" | sed 's/in frame [0-9]*:.*/in frame /')
    grep -q -F -- "\"$fixed" common/cli.c common/sim.c ||
        echo "FAIL $dir: README.md, Getting started: quotes \"$fixed...\", which flipsim (common/cli.c) does not print"
done | grep . && fail=1
# The log's flags the handout quotes (` capped`, ` NOT-CONVERGED`) are what flipsim writes, and
# the solvers it says the student kit lacks are the ones flipsim's --help says fall back.
for flag in $(grep -o '` [A-Za-z][A-Za-z-]*`' "$readme" | tr -d '` ' | sort -u); do
    grep -q -F -- "\" $flag\"" common/cli.c ||
        bad "README.md quotes the log flag \" $flag\", which flipsim (common/cli.c) does not write"
done
said=$(grep -o '`[a-z_]*`\(, `[a-z_]*`\)* and `[a-z_]*` are not in your kit' "$readme" | grep -o '`[a-z_]*`' | tr -d '`' | sort | tr '\n' ' ')
helped=$(${FLIPSIM:-build/flipsim} --help 2>/dev/null | sed -n 's/.*student track has only.*; there \(.*\) fall back to its jacobi.*/\1/p' | tr ' ' '\n' | sort | tr '\n' ' ')
[ -n "$helped" ] && [ "$said" = "$helped" ] ||
    bad "README.md says the student kit lacks the solvers \"$said\"; flipsim --help says \"$helped\" fall back to its jacobi"
[ "$fail" -eq "$before" ] &&
    ok "each stage page lists every test of its suite; the stubs point at their pages; every path and README section named is there; make run's notes are what it prints; the log flags and the solvers the student kit lacks are flipsim's"
if [ -z "${FLIPKIT_PLANTED:-}" ] && [ "$fail" -eq 0 ]; then
    planted=$(mktemp -d) || exit 1
    caught=0
    # plant_drift FILE SED_SCRIPT WHAT EXPECTED_FAILURE_TEXT: FILE under DIR, or a stub when it
    # starts "assignment/", changed in a copy
    plant_drift() {
        rm -rf "$planted/h" "$planted/a"; cp -r "$dir" "$planted/h"; cp -r "$stubdir" "$planted/a"
        case $1 in
            assignment/*) sed -e "$2" "$stubdir/${1#assignment/}" > "$planted/a/${1#assignment/}" ;;
            *) sed -e "$2" "$dir/$1" > "$planted/h/$1" ;;
        esac
        if FLIPKIT_PLANTED=1 FLIPKIT_STUBS="$planted/a" "$0" "$planted/h" "$mutlogs" 2>&1 | grep '^FAIL' | grep -q -F -- "$4"; then
            caught=$((caught + 1))
        else
            echo "FAIL the checks miss a planted drift: $3"; fail=1
        fi
    }
    plant_drift stages/g2p.md '/^- `each_component_on_its_own_staggering`:/,/^- /{/^- `each_component/d;/^  /d}' \
        "a test left out of g2p's list" "leaves out each_component_on_its_own_staggering"
    plant_drift assignment/g2p.c 's#handout/stages/g2p\.md#handout/README.md, "Stage 4: g2p"#' \
        "a stub pointing at the README's old stage section" "does not point at handout/stages/g2p.md"
    plant_drift README.md 's#`tests/lib/stagecase\.c`#`tests/stagecase.c`#' \
        "a path that moved" "names tests/stagecase.c, which is not in the kit"
    plant_drift README.md '/^## Getting started$/,/^## /s/which asks for your$/which asks for the `mgpcg` solver, not your/' \
        "a note plain make run never prints" 'asks for the `mgpcg` solver; scenes/first_drop.json asks for jacobi'
    plant_drift README.md 's/` capped`/` CAPPED`/' \
        "a log flag flipsim does not write" 'quotes the log flag " CAPPED"'
    plant_drift README.md 's/`pcg`, `multigrid` and `mgpcg` are not in your kit/`pcg` and `multigrid` are not in your kit/' \
        "a solver left out of the student kit's fallbacks" 'lacks the solvers "multigrid pcg "'
    rm -rf "$planted"
    [ "$caught" -eq 6 ] && ok "each of 6 planted drifts (test list, stub pointer, path, make run's note, log flag, fallback solvers) is caught on its own"
fi
[ "$fail" -eq 0 ] && echo "check-handout: $dir (README.md and stages/) agrees with the kit"
exit "$fail"
