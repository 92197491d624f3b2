#!/bin/sh
# check_variants.sh — per-student variants (grader/README.md, "Per-student variants"; make check-grader).
# flipkit tests/: a class graded with tests/grader/variants.config (3 variants): the reference's
# files, as the class's reference check and under two names, draw the three variants and score
# full marks in each; two students' hidden cases differ and each is graded against its own
# variant's reference; the report, page and CSV say which variant; names reach no path; with
# variants off the report has no trace of them.
# Usage: check_variants.sh FLIPGRADE   (make grade-kit grade-data first)
set -u
: "${STAGES:?run me from make, which reads the stages from common/stagelist.h}"
grade=$1
out=build/check-variants
rm -rf "$out"; mkdir -p "$out/subs" "$out/tmp"
TMPDIR=$(cd "$out/tmp" && pwd); export TMPDIR
config=tests/grader/variants.config variants=$out/variants
failed=0 start=$(date +%s)
fail() { echo "FAIL check-variants: $*"; failed=1; }

submission() {   # submission DIR: a directory of the reference's eight stage files
    mkdir -p "$1/assignment"
    for s in $STAGES; do cp "reference/$s.c" "$1/assignment/$s.c"; done
}
for n in alice ann bob; do submission "$out/subs/$n"; done
patch -s -o "$out/subs/ann/assignment/divergence.c" reference/divergence.c < tests/mutants/divergence-sign-v.patch ||
    fail "tests/mutants/divergence-sign-v.patch does not apply"

# A class: the reference first (variant 1: it must get full marks there, or no one is graded),
# then alice (variant 0), ann (a planted divergence bug, variant 0) and bob (variant 2); alice
# and ann are graded at once (--jobs 2, in name order), so both find variant 0 missing and make it.
"$grade" --class "$out/subs" --jobs 2 --config "$config" --variants "$variants" --reports "$out/reports" \
    --class-csv "$out/grades.csv" > "$out/class.txt" 2>&1; rc=$?
[ "$rc" -eq 0 ] || { cat "$out/class.txt"; fail "the class run exited $rc, not 0"; }
grep -q 'variant' "$out/reports/alice/report.html" || fail "alice's report.html does not say its variant"

# A hostile name with --out: only its hash is used; it reaches no path and no shell.
hostile='x$(touch${IFS}VARIANTMARK1)y;`touch VARIANTMARK2`'
submission "$out/subs2/$hostile"
"$grade" --quiet --parts stages --config "$config" --variants "$variants" --out "$out/reports/hostile" \
    "$out/subs2/$hostile" > "$out/hostile.txt" 2>&1 || fail "the hostile name's grading exited $?: $(cat "$out/hostile.txt")"
[ -z "$(find . /tmp -maxdepth 3 -name 'VARIANTMARK*' 2>/dev/null)" ] || fail "a name ran as a command: $(find . /tmp -maxdepth 3 -name 'VARIANTMARK*')"

# Variants off (small.config): the report and CSV hold no trace of them.
"$grade" --quiet --parts stages --config tests/grader/small.config --variants "$variants" --out "$out/reports/off" \
    "$out/subs/alice" > /dev/null 2>&1 || fail "alice without variants lost points"
"$grade" --class-csv "$out/off.csv" "$out/reports/off/report.json" || fail "no CSV of the report without variants"

python3 - "$out" "$variants" <<'PY' || failed=1
import csv, json, os, re, sys
out, variants = sys.argv[1], sys.argv[2]
bad = []
def report(name):
    return json.load(open(os.path.join(out, "reports", name, "report.json")))
def cases(key, stage):   # the variant's recorded cases of a stage: {name: bytes}
    d = os.path.join(variants, key, "hidden", stage)
    return {f[:-6]: open(os.path.join(d, f), "rb").read() for f in sorted(os.listdir(d))}
r = {n: report(n) for n in ("alice", "ann", "bob", "hostile")}
r["reference"] = json.load(open(os.path.join(out, "reports", ".reference", "reference", "report.json")))
keys = sorted(os.listdir(variants))
if len(keys) != 3 or not all(re.fullmatch(r"[0-9a-f]{16}", k) for k in keys):
    bad.append("the variants directory holds %s, not the three variants' keys" % keys)
got = {n: r[n]["variant"]["index"] for n in r}
if sorted(got[n] for n in ("reference", "alice", "bob")) != [0, 1, 2]:
    bad.append("the reference, alice and bob drew variants %s, not 0, 1 and 2" % got)
for n in ("reference", "alice", "bob"):   # the reference's files: full marks in every variant
    if not r[n]["full_marks"]:
        bad.append("%s (the reference's files) in variant %d: %s of %s" % (n, got[n], r[n]["total"], r[n]["max"]))
    if r[n]["data_hash"] != r["alice"]["data_hash"]:
        bad.append("%s: data_hash is not the class's" % n)
a, b = r["alice"]["variant"], r["bob"]["variant"]
if a["key"] == b["key"] or a["data_hash"] == b["data_hash"] or a["drawn"] == b["drawn"]:
    bad.append("alice and bob got the same variant: %s" % a["key"])
for stage in os.environ["STAGES"].split():
    ca, cb = cases(a["key"], stage), cases(b["key"], stage)
    if set(ca.values()) & set(cb.values()):
        bad.append("%s: alice and bob share a hidden case" % stage)
# ann, the planted bug: graded on its own variant's cases (alice's, 0), loses divergence only.
bug = r["ann"]
if bug["variant"]["key"] != a["key"]:
    bad.append("ann drew %s, not alice's variant 0" % bug["variant"])
mine = set(cases(bug["variant"]["key"], "divergence"))
log = open(os.path.join(out, "reports", "ann", "logs", "divergence.log")).read()
named = set(re.findall(r"---- case \d+ \(([^)]+)\)", log))
if named != mine:
    bad.append("ann's divergence log names cases %s, not its variant's %s" % (sorted(named), sorted(mine)))
for p in bug["parts"]:
    if p["kind"] == "stage" and (p["points"] < p["max"]) != (p["name"] == "divergence"):
        bad.append("ann: %s has %s of %s" % (p["name"], p["points"], p["max"]))
for n in ("alice", "ann"):
    if r[n]["variant"]["drawn"].split(";")[0] not in open(os.path.join(out, "reports", n, "report.html")).read():
        bad.append("%s's report.html does not show what was drawn" % n)
rows = list(csv.reader(open(os.path.join(out, "grades.csv"), newline="")))
if rows[0][:2] != ["student", "variant"] or {row[0]: int(row[1]) for row in rows[1:]} != {n: got[n] for n in ("alice", "ann", "bob")}:
    bad.append("grades.csv does not say each student's variant: %s" % rows[:2])
if not 0 <= r["hostile"]["variant"]["index"] < 3:
    bad.append("the hostile name drew %s" % r["hostile"]["variant"])
off = report("off")
offcsv = list(csv.reader(open(os.path.join(out, "off.csv"), newline="")))
if "variant" in off or offcsv[0][:2] != ["student", "advect"] or not off["full_marks"]:
    bad.append("with variants off the report or CSV says a variant (or alice lost points): %s" % offcsv[0][:3])
for line in bad:
    print("FAIL check-variants: " + line)
print("variants: reference %d, alice %d, bob %d, ann %d (her divergence %s of 10 on its own cases: %s); "
      "the reference's files full marks in all 3; alice's and bob's hidden cases differ in every stage"
      % (got["reference"], got["alice"], got["bob"], got["ann"],
         [p["points"] for p in bug["parts"] if p["name"] == "divergence"][0], ", ".join(sorted(mine))))
sys.exit(1 if bad else 0)
PY
echo "check-variants: $(($(date +%s) - start)) s"
rm -rf "$out/tmp"
[ "$failed" -eq 0 ] || exit 1
echo "check-variants: passed"
