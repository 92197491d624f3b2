#!/usr/bin/env bash
# check_gradescope.sh — make check-gradescope: build/gradescope/autograder.zip unpacked into a
# root laid out as Gradescope's, setup.sh and run_autograder run there, results.json checked.
# flipkit tests/: usage tests/check_gradescope.sh ZIP, from the kit's root, after grade-kit and grade-data.
#
# The root is a temporary directory with Gradescope's source/, submission/, results/ and
# submission_metadata.json (FLIPKIT_GRADESCOPE_ROOT points the scripts at it). setup.sh runs
# with FLIPKIT_GRADESCOPE_NO_APT=1 (the kit's `make deps` installed the packages) over a copy
# of the kit's own build/ (dated after the zip's files, so its make finds everything made and
# the check takes a minute, not the four of a fresh build); GRADESCOPE_FRESH=1 skips the copy
# and lets setup.sh build everything. results.json is read with Python's json and checked
# against the fields of Gradescope's autograder specification (grader/README.md, Gradescope).
set -u
zip=${1:?usage: tests/check_gradescope.sh ZIP}
STAGES="advect gravity p2g g2p divergence laplacian jacobi gradient"
SMALL=tests/grader/small.config     # 90 points, 8 frames of one scene: the quick gradings
fails=0
fail() { echo "check-gradescope: FAIL: $*" >&2; fails=$((fails + 1)); }
say() { echo "check-gradescope: $*"; }
t0=$(date +%s)

base=$(mktemp -d "${TMPDIR:-/tmp}/flipkit-gradescope.XXXXXX") || exit 1
chmod 755 "$base"          # as root, the sandbox's own user reads the kit's copy from here
trap 'rm -rf "$base"' EXIT
root=$base/autograder
mkdir -p "$root/source" "$root/submission" "$root/results" "$base/tmp"

# ---- 1. the zip, unpacked as Gradescope does: its files in source/, modes kept --------------------
python3 - "$zip" "$root/source" <<'EOF' || { fail "the zip could not be unpacked"; exit 1; }
import os, sys, time, zipfile
z = zipfile.ZipFile(sys.argv[1])
names = z.namelist()
for need in ("setup.sh", "run_autograder"):
    if need not in names:
        sys.exit(f"{sys.argv[1]}: no {need} at the zip's root (Gradescope looks for it there)")
for i in z.infolist():
    path = z.extract(i, sys.argv[2])
    os.chmod(path, (i.external_attr >> 16) & 0o777)
    t = time.mktime(i.date_time + (0, 0, -1))
    os.utime(path, (t, t))
for need in ("setup.sh", "run_autograder"):
    if not os.access(os.path.join(sys.argv[2], need), os.X_OK):
        sys.exit(f"{need} in the zip is not executable")
print(f"check-gradescope: unpacked the {len(names)} files of {sys.argv[1]} into {sys.argv[2]}")
EOF
# the same kit makes the same bytes
git ls-files -z | python3 grader/gradescope/mkzip.py "$base/again.zip" > /dev/null &&
    cmp -s "$zip" "$base/again.zip" && say "the zip made again is byte for byte the same" ||
    fail "the zip made again differs from $zip (or could not be made)"
cat > "$root/submission_metadata.json" <<'EOF'
{"id": 1, "created_at": "2026-01-01T12:00:00.000000-08:00", "submission_method": "upload",
 "assignment": {"id": 1, "title": "flipkit", "total_points": "100.0", "due_date": "2026-01-08T23:00:00.000000-08:00",
                "release_date": "2026-01-01T00:00:00.000000-08:00", "late_due_date": null,
                "group_submission": false, "group_size": null},
 "users": [{"email": "student@example.com", "id": 1, "name": "Student"}], "previous_submissions": []}
EOF

# ---- 2. setup.sh, then run_autograder copied to the root as Gradescope's image build does --------
if [ "${GRADESCOPE_FRESH:-}" != 1 ]; then
    # what grade-kit and grade-data are made of, and no more: not the build cache (other
    # students' objects, written by a check-grader running beside this one) nor test programs
    mkdir -p "$root/source/build"
    tar -C build -cf - --exclude=grader/cache .pkgs-found common reference assignment gen \
        maintainer/mkgolden maintainer/mkgolden.o tests/lib grader flipgrade flipsim |
        tar -C "$root/source/build" -xf - ||
        fail "could not copy the kit's build/ (run make grade-kit grade-data first)"
fi
s0=$(date +%s)
if ! FLIPKIT_GRADESCOPE_ROOT=$root FLIPKIT_GRADESCOPE_NO_APT=1 "$root/source/setup.sh" > "$base/setup.txt" 2>&1; then
    fail "setup.sh failed: $(tail -5 "$base/setup.txt")"
    exit 1
fi
grep -q "apt-get not run" "$base/setup.txt" || fail "setup.sh did not say it skipped apt-get: $(head -3 "$base/setup.txt")"
say "setup.sh: $(head -1 "$base/setup.txt"); built in $(( $(date +%s) - s0 )) s"
cp "$root/source/run_autograder" "$root/run_autograder"

# ---- 3. submissions ----------------------------------------------------------------------------------
# grade NAME [CONFIG]: run_autograder on what submission/ holds now, with CONFIG (the zip's own
# grader/config without it); its results in $base/NAME.json
grade() {
    rm -rf "$root/results" && mkdir -p "$root/results"
    local g0; g0=$(date +%s)
    (cd "$root" && env TMPDIR="$base/tmp" FLIPKIT_GRADESCOPE_ROOT="$root" ${2:+FLIPKIT_GRADESCOPE_CONFIG="$2"} \
        ./run_autograder) > "$base/$1.out" 2>&1
    if [ ! -f "$root/results/results.json" ]; then
        fail "$1: run_autograder wrote no results.json: $(tail -3 "$base/$1.out")"
        return 1
    fi
    cp "$root/results/results.json" "$base/$1.json"
    say "$1: graded in $(( $(date +%s) - g0 )) s"
}
# stage_files DIR FROM: the eight stage files of FROM/ in DIR/assignment/
stage_files() {
    rm -rf "$1" && mkdir -p "$1/assignment"
    for s in $STAGES; do cp "$2/$s.c" "$1/assignment/"; done
}
total_of() {   # the config's total, from the handout's table flipgrade prints
    build/flipgrade --config "$1" --print grading-table | sed -n 's/^| \*\*total\*\* | | \*\*\([0-9.]*\)\*\* |$/\1/p'
}

# validate NAME EXPECTATION...: results.json against the documented fields, then what NAME must show
validate() {
    python3 - "$base/$1.json" "${@:2}" <<'EOF'
import json, re, sys
path, checks = sys.argv[1], sys.argv[2:]
raw = open(path, "rb").read()
bad = []
def err(msg): bad.append(msg)
try:
    r = json.loads(raw.decode("utf-8"))
except (UnicodeDecodeError, json.JSONDecodeError) as e:
    print(f"{path}: not JSON: {e}"); sys.exit(1)
# Gradescope's documented fields (autograder specification): nothing else, of the right types.
TOP = {"score", "execution_time", "output", "output_format", "test_output_format", "test_name_format",
       "visibility", "stdout_visibility", "extra_data", "tests", "leaderboard"}
TEST = {"score", "max_score", "status", "name", "name_format", "number", "output", "output_format",
        "tags", "visibility", "extra_data"}
VIS = {"hidden", "after_due_date", "after_published", "visible"}
FMT = {"text", "simple_format", "html", "md", "ansi"}
num = lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)
if not isinstance(r, dict): print(f"{path}: not an object"); sys.exit(1)
for k in r:
    if k not in TOP: err(f"undocumented top-level key {k!r}")
if not num(r.get("score")): err("no numeric top-level score")
if not isinstance(r.get("tests"), list): err("no tests list")
for k in ("output_format", "test_output_format", "test_name_format"):
    if r.get(k, "text") != "text": err(f"{k} is {r.get(k)!r}, not text: a student's bytes would be rendered")
if r.get("stdout_visibility") not in VIS: err(f"stdout_visibility {r.get('stdout_visibility')!r}")
tests = r.get("tests") or []
for t in tests:
    for k in t:
        if k not in TEST: err(f"test {t.get('name')!r}: undocumented key {k!r}")
    for k in ("name", "score", "max_score", "status", "output", "visibility"):
        if k not in t: err(f"test {t.get('name')!r}: no {k}")
    if not (num(t.get("score")) and num(t.get("max_score")) and 0 <= t["score"] <= t["max_score"] + 1e-9):
        err(f"test {t.get('name')!r}: score {t.get('score')!r} of {t.get('max_score')!r}")
    if t.get("status") not in ("passed", "failed"): err(f"test {t.get('name')!r}: status {t.get('status')!r}")
    if t.get("visibility") not in VIS: err(f"test {t.get('name')!r}: visibility {t.get('visibility')!r}")
    for k in ("output_format", "name_format"):
        if t.get(k, "text") not in FMT or t.get(k, "text") != "text": err(f"test {t.get('name')!r}: {k} {t.get(k)!r}")
    if t.get("max_score", 0) > 0 and (t["status"] == "passed") != (t["score"] >= t["max_score"] - 1e-9):
        err(f"test {t.get('name')!r}: status {t['status']} with {t['score']} of {t['max_score']}")
# No byte that acts on a reader, in any string: C0 but newline, DEL, C1, bidi overrides/isolates.
def strings(v):
    if isinstance(v, str): yield v
    elif isinstance(v, dict):
        for k, x in v.items(): yield k; yield from strings(x)
    elif isinstance(v, list):
        for x in v: yield from strings(x)
for s in strings(r):
    m = re.search("[\x00-\x09\x0b-\x1f\x7f\x80-\x9f\u202a-\u202e\u2066-\u2069]", s)
    if m: err(f"raw control {m.group()!r} in {s[:80]!r}")
if re.search(rb"[\x00-\x09\x0b-\x1f\x7f]", raw): err("a raw control byte in the file")
by = {t.get("name"): t for t in tests}
points = [t for t in tests if "(public cases" not in t.get("name", "")]
pub = [t for t in tests if "(public cases" in t.get("name", "")]
for t in pub:
    if t["visibility"] != "visible" or t["max_score"] != 0: err(f"{t['name']}: public, but {t['visibility']}, max {t['max_score']}")
def test(name):
    if name not in by: err(f"no test {name!r} (have {sorted(by)})"); return {"score": 0, "max_score": 0, "output": "", "status": "", "visibility": ""}
    return by[name]
STAGES = "advect gravity p2g g2p divergence laplacian jacobi gradient".split()
for c in checks:
    key, _, val = c.partition("=")
    if key == "score":        # the top-level score and the tests' sum
        if abs(r["score"] - float(val)) > 1e-6: err(f"score {r['score']}, expected {val}")
        if points and abs(sum(t["score"] for t in points) - r["score"]) > 1e-6 and r["score"] > 0:
            err(f"score {r['score']} is not the tests' sum {sum(t['score'] for t in points)}")
    elif key == "max":        # what the point tests add up to
        if abs(sum(t["max_score"] for t in points) - float(val)) > 1e-6:
            err(f"the tests' max_score add up to {sum(t['max_score'] for t in points)}, not {val}")
    elif key == "vis":        # the visibility of every test that carries points
        for t in points:
            if t["visibility"] != val: err(f"{t['name']}: visibility {t['visibility']}, expected {val}")
    elif key == "all":        # every test passed / failed
        for t in tests:
            if t["status"] != val: err(f"{t['name']}: {t['status']}, expected {val}: {t['output'][:120]!r}")
    elif key == "lose":       # STAGE loses points, on hidden and public cases; the others keep all
        t = test(f"{val} (hidden cases)")
        if t["score"] >= t["max_score"]: err(f"{val}: {t['score']} of {t['max_score']}: the planted bug cost nothing")
        if not re.search(r"\(\d+,\d+,\d+\)", t["output"]) or f"{val}: " not in t["output"]:
            err(f"{val}: the output names no stage and first differing cell: {t['output'][:200]!r}")
        if test(f"{val} (public cases, no points)")["status"] != "failed": err(f"{val}: its public cases passed")
        for s in STAGES:
            o = test(f"{s} (hidden cases)")
            if s != val and o["score"] < o["max_score"]: err(f"{s} lost points to {val}'s bug: {o['output'][:120]!r}")
    elif key == "has":        # TEST~TEXT: TEXT in that test's output
        name, _, text = val.partition("~")
        if text not in test(name)["output"]: err(f"{name}: {text!r} not in {test(name)['output'][:300]!r}")
    elif key == "full":       # that test has its full points
        if test(val)["score"] < test(val)["max_score"] or test(val)["status"] != "passed":
            err(f"{val}: {test(val)['score']} of {test(val)['max_score']}: {test(val)['output'][:200]!r}")
    elif key == "zero":
        if test(val)["score"] != 0: err(f"{val}: {test(val)['score']}, expected 0")
    elif key == "top":        # TEXT in the top-level output
        if val not in r.get("output", ""): err(f"top-level output {r.get('output', '')[:200]!r} lacks {val!r}")
    elif key == "ntests":
        if len(tests) != int(val): err(f"{len(tests)} tests, expected {val}")
    else:
        err(f"unknown check {c!r}")
for b in bad: print(f"{path}: {b}")
sys.exit(1 if bad else 0)
EOF
}
check() {   # check NAME EXPECTATION...: validate, and say how it went
    if out=$(validate "$@"); then say "$1: results.json holds Gradescope's fields and ${*:2}"
    else fail "$1: $out"; fi
}

full=$(total_of grader/config) small=$(total_of "$SMALL")
[ -n "$full" ] && [ -n "$small" ] || { fail "no total in flipgrade --print grading-table"; exit 1; }

# The reference's files: full marks, every test passed. (tests/grader/small.config, as every
# grading here but one: grader/config's 20 frames of two scenes take four times as long, and
# check-grader grades the reference with it.)
stage_files "$root/submission" reference
grade reference "$SMALL" && check reference "score=$small" "max=$small" all=passed vis=after_published ntests=$((8 + 8 + 2))

# The kit's untouched stubs: 0, every test failed; with a config that hides the point tests.
{ cat "$SMALL"; printf 'gradescope: { hidden_visibility = "hidden"; };\n'; } > "$base/hidden.config"
stage_files "$root/submission" assignment
grade stubs "$base/hidden.config" && check stubs score=0 "max=$small" all=failed vis=hidden

# A planted bug, uploaded as the submission.tar.gz that `make submission` packs: p2g loses its
# points, with the place, and no other stage loses any.
stage_files "$base/mutant" reference
patch -s "$base/mutant/assignment/p2g.c" tests/mutants/p2g-no-normalise.patch ||
    fail "tests/mutants/p2g-no-normalise.patch does not apply to reference/p2g.c"
rm -rf "$root/submission" && mkdir -p "$root/submission"
tar -C "$base/mutant" -czf "$root/submission/submission.tar.gz" assignment
grade mutant "$SMALL" && check mutant lose=p2g vis=after_published   # (the archive not opened:
                                                 # every stage would lose its points)

# Nothing compiles: score 0, and the compiler's words in every stage's test, the public ones too.
rm -rf "$root/submission" && mkdir -p "$root/submission/assignment"
for s in $STAGES; do printf 'int %s_oops(void) { return missing_name; }\n' "$s" > "$root/submission/assignment/$s.c"; done
grade nocompile "$SMALL" && check nocompile score=0 all=failed \
    "has=jacobi (hidden cases)~jacobi: does not compile: jacobi.c:1:" \
    "has=p2g (public cases, no points)~error: 'missing_name' undeclared" \
    "has=ball_drop.jacobi (whole scene)~not run"

# No files at all, and no submission directory (flipgrade writes no report: the reason still comes).
rm -rf "$root/submission" && mkdir -p "$root/submission"
grade empty "$SMALL" && check empty score=0 all=failed "has=p2g (hidden cases)~no p2g.c in the submission"
rm -rf "$root/submission"
grade nosubmission && check nosubmission score=0 ntests=1 "max=$full" "top=No grade" \
    "has=grading~no such submission"
mkdir -p "$root/submission"
# A config whose visibility would show the hidden cases: refused in one line, results.json still written.
{ cat "$SMALL"; printf 'gradescope: { hidden_visibility = "visible"; };\n'; } > "$base/visible.config"
grade badconfig "$base/visible.config" && check badconfig score=0 ntests=0 "top=No grade"
grep -q 'gradescope.hidden_visibility: expected "after_published", "after_due_date" or "hidden", not "visible"' \
    "$base/badconfig.out" || fail "badconfig: flipgrade did not refuse hidden_visibility = \"visible\" in one line: $(head -c 400 "$base/badconfig.out")"

# A hostile submission (tests/attacks, appended to the reference's files as check-grader does):
# terminal escapes printed and quoted by the compiler, a socket, sethostname, reading secrets.
stage_files "$root/submission" reference
for a in advect-prints-escapes p2g-phones-home gravity-uses-root g2p-reads-secrets; do
    cat "tests/attacks/$a.c" >> "$root/submission/assignment/${a%%-*}.c"
done
printf '\n#error \033]52;c;ZWNobyBwd25lZA==\007 \033]0;laplacian: 10.0 / 10.0\007 \302\2332J \342\200\256evil\n' \
    >> "$root/submission/assignment/laplacian.c"
host=$(hostname)
grade hostile "$SMALL" && check hostile vis=after_published \
    "full=advect (hidden cases)" "full=g2p (hidden cases)" "zero=p2g (hidden cases)" \
    "has=p2g (hidden cases)~forbidden system call (socket)" "zero=gravity (hidden cases)" \
    "has=gravity (hidden cases)~forbidden system call (sethostname)" "zero=laplacian (hidden cases)" \
    'has=laplacian (public cases, no points)~\x1b]52;c;' 'has=laplacian (hidden cases)~\x1b]0;laplacian: 10.0'
[ "$(hostname)" = "$host" ] || fail "hostile: the hostname changed to $(hostname)"
left=$(find "$base/tmp" -mindepth 1 -maxdepth 1 | head -3)
[ -z "$left" ] || fail "the gradings left files in their TMPDIR: $left"

# ---- 4. the check can fail: a results.json that lies about its total, and one with a raw escape --
python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); r["score"] += 1; json.dump(r, open(sys.argv[2], "w"))' \
    "$base/reference.json" "$base/planted-total.json"
printf '{"score": 0, "output_format": "text", "stdout_visibility": "hidden", "tests": [{"name": "x", "score": 0, "max_score": 1, "status": "failed", "output": "\\u001b]52;c;x", "visibility": "visible"}]}' \
    > "$base/planted-escape.json"
validate planted-total "score=$small" > /dev/null && fail "planted: a score of $small + 1 passed the check"
validate planted-escape > /dev/null && fail "planted: a raw ESC in an output passed the check"
say "planted: a wrong total and a raw escape are both caught"

say "$(( $(date +%s) - t0 )) s in all"
[ "$fails" -eq 0 ] || { echo "check-gradescope: $fails failure(s)" >&2; exit 1; }
echo "check-gradescope: passed"
