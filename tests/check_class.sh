#!/usr/bin/env bash
# check_class.sh FLIPGRADE FLIPCLASS — make check-class: a made-up class graded, then make class-report's page.
# flipkit tests/: the reference, the stubs, two planted bugs, a renamed and reordered copy of one
# (tests/class/disguise.py), an independent rewrite of p2g and jacobi (tests/class/rewrite/) and two
# hostile names; checks class.json's pass rates and similar pairs, then the page in headless Chromium.
set -u
grader=${1:?usage: check_class.sh FLIPGRADE FLIPCLASS}
flipclass=${2:?usage: check_class.sh FLIPGRADE FLIPCLASS}
tmp=build/tmp/class
stages="advect gravity p2g g2p divergence laplacian jacobi gradient"
fail() { echo "FAIL: $*"; exit 1; }
start=$(date +%s)

rm -rf "$tmp" && mkdir -p "$tmp/subs" "$tmp/work" || fail "cannot make $tmp"
# A submission NAME from the reference's files, with DIR's files (if any) in their place.
submission() {
    mkdir -p "$tmp/subs/$1/assignment" || fail "cannot make $tmp/subs/$1"
    for s in $stages; do cp "reference/$s.c" "$tmp/subs/$1/assignment/"; done
    if [ -n "${2:-}" ]; then cp "$2"/*.c "$tmp/subs/$1/assignment/" || fail "cannot copy $2"; fi
}
submission ref
submission stubs assignment
submission bug-p2g
patch -s -o "$tmp/subs/bug-p2g/assignment/p2g.c" reference/p2g.c < tests/mutants/p2g-swapped-index.patch ||
    fail "tests/mutants/p2g-swapped-index.patch does not apply"
submission bug-g2p
patch -s -o "$tmp/subs/bug-g2p/assignment/g2p.c" reference/g2p.c < tests/mutants/g2p-alpha-reversed.patch ||
    fail "tests/mutants/g2p-alpha-reversed.patch does not apply"
mkdir -p "$tmp/subs/copy-g2p"
python3 tests/class/disguise.py "$tmp/subs/bug-g2p/assignment" "$tmp/subs/copy-g2p/assignment" common ||
    fail "tests/class/disguise.py failed"
submission rewrite tests/class/rewrite
# Refused by the grader's safe set: the class report must list them, as text.
mkdir -p "$tmp/subs/<img src=x onerror=alert(1)>" "$tmp/subs/\$(touch x)"

"$grader" --class "$tmp/subs" --jobs 2 --reports "$tmp/reports" --config tests/class/class.config \
    --work "$tmp/work" --quiet > "$tmp/grade.txt" 2>&1
rc=$?
[ "$rc" = 1 ] || { cat "$tmp/grade.txt"; fail "flipgrade --class exited $rc, not 1 (two names refused, the rest graded)"; }
graded=$(date +%s)

"$flipclass" --class "$tmp/subs" --reports "$tmp/reports" --work "$tmp/work" > "$tmp/class.txt" 2>&1 ||
    { cat "$tmp/class.txt"; fail "flipclass exited $?"; }
# Every pair's score, to show how far below the threshold the honest rewrite stays.
mkdir -p "$tmp/all"
"$flipclass" --class "$tmp/subs" --reports "$tmp/reports" --work "$tmp/work" --threshold 0 --out "$tmp/all" \
    > "$tmp/class-all.txt" 2>&1 || { cat "$tmp/class-all.txt"; fail "flipclass --threshold 0 exited $?"; }
[ -z "$(ls -A "$tmp/work")" ] || fail "flipclass left files in its work directory: $(ls "$tmp/work")"

python3 - "$tmp/reports/class.json" "$tmp/all/class.json" "$tmp/reports/class.html" <<'PY' || exit 1
import json, sys
c = json.load(open(sys.argv[1])); every = json.load(open(sys.argv[2])); html = open(sys.argv[3]).read()
fails = 0
def check(ok, what):
    global fails
    print(("PASS: " if ok else "FAIL: ") + what)
    fails += not ok
students = sorted(s["student"] for s in c["students"])
check(students == ["bug-g2p", "bug-p2g", "copy-g2p", "ref", "rewrite", "stubs"], "six reports: %s" % students)
check(sorted(c["refused"]) == sorted(["$(touch x)", "<img src=x onerror=alert(1)>"]),
      "the two hostile names are listed as refused: %s" % c["refused"])
# Who fails each stage case: the stubs everywhere, a planted bug in its own stage only, the copy
# with its original; so the pass rate of every case of p2g is 4 of 6, of g2p 3 of 6, else 5 of 6.
caught = {"p2g": {"stubs", "bug-p2g"}, "g2p": {"stubs", "bug-g2p", "copy-g2p"}}
rows = c["cases"]
check(len(rows) == 8 * 7, "56 case rows (8 stages, 7 cases): %d" % len(rows))
for r in rows:
    want = caught.get(r["part"], {"stubs"})
    ok = set(r["failed_by"]) == want and r["run"] == 6 and r["passed"] == 6 - len(want) \
        and abs(r["pass_rate"] - (6 - len(want)) / 6) < 1e-9
    if not ok or r["case"] == "corner_6x6x8":
        check(ok, "%s/%s: %d of %d pass (%.0f%%), failed by %s" % (r["part"], r["case"], r["passed"], r["run"],
              100 * r["pass_rate"], sorted(r["failed_by"])))
check(rows[0]["part"] == "g2p", "the hardest case is first: %s/%s" % (rows[0]["part"], rows[0]["case"]))
# The bug and its copy fail each g2p case the same way: that reason is the most common, twice.
g2p = [r for r in rows if r["part"] == "g2p"][0]
mc, pl = g2p["most_common_reason"], g2p["most_common_place"]
check(mc is not None and mc["count"] == 2 and mc["text"].startswith("g2p: "), "g2p/%s's most common reason, twice: %s"
      % (g2p["case"], mc))
check(pl is not None and pl["count"] == 2 and pl["text"] in mc["text"], "g2p/%s's most common place: %s"
      % (g2p["case"], pl))
scenes = {r["part"]: r for r in c["scene_parts"]}
check(set(scenes) == {"ball_drop.jacobi", "ball_drop.gauss_seidel"}, "the whole-scene parts: %s" % sorted(scenes))
for name, r in scenes.items():
    check("stubs" in r["failed_by"] and "ref" not in r["failed_by"] and "rewrite" not in r["failed_by"],
          "%s: failed by %s, not by ref or rewrite" % (name, sorted(r["failed_by"])))
check(len(c["slowest"]) == 5 and all(s["seconds"] > 0 for s in c["slowest"]), "five slowest gradings listed")
thr = c["similarity"]["threshold"]
pairs = {(p["stage"], p["a"], p["b"]): p for p in c["similarity"]["pairs"]}
cp = pairs.get(("g2p", "bug-g2p", "copy-g2p"))
check(cp is not None and cp["similarity"] >= 0.9,
      "g2p: the renamed, reordered copy is flagged against its original: %s" % (cp and round(cp["similarity"], 3)))
for stage in ("p2g", "g2p", "divergence", "jacobi"):
    check(any(p[0] == stage and "copy-g2p" in p[1:] and p[1:] != ("copy-g2p", "stubs") for p in pairs),
          "%s: the copy is flagged against someone" % stage)
for (stage, a, b), p in pairs.items():
    if stage in ("p2g", "jacobi") and "rewrite" in (a, b):
        check(False, "%s: the independent rewrite is flagged against %s (%.2f)" % (stage, a if b == "rewrite" else b,
              p["similarity"]))
for p in every["similarity"]["pairs"]:
    if p["stage"] in ("p2g", "jacobi") and "rewrite" in (p["a"], p["b"]) and \
            ({p["a"], p["b"]} & {"ref", "reference/ (the kit's)"}):
        check(p["similarity"] < thr, "%s: the rewrite against %s: %.2f, below the threshold %.2f" %
              (p["stage"], p["a"] if p["b"] == "rewrite" else p["b"], p["similarity"], thr))
check(not any("stubs" in (p["a"], p["b"]) for p in every["similarity"]["pairs"] if p["similarity"] > 0),
      "the stubs' own text is left out: no pair with the stubs has any token in common")
check("<img" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html and "$(touch x)" in html,
      "class.html holds the hostile name and the copy's comment only as escaped text")
sys.exit(1 if fails else 0)
PY
[ -e x ] && fail "a file named x appeared: something ran \$(touch x)"
echo "check-class: graded in $((graded - start)) s, the class report in $(($(date +%s) - graded)) s"

# The page in headless Chromium, as tests/check_viewer.sh runs it (tests/lib/browser.sh); says
# SKIP when it cannot.
skip() { echo "SKIP: the class page was not opened in a browser: $1"; exit 0; }
. tests/lib/browser.sh && browser_ready check-class "$tmp"
mkdir -p "$tmp/shots"
node tests/class_page_test.mjs --modules build/viewer-test/node_modules --chromium "$browser" \
    --page "$tmp/reports/class.html" --shots "$tmp/shots" || exit 1
echo "check-class: the page in $tmp/reports/class.html, screenshots in $tmp/shots; $(($(date +%s) - start)) s in all"
