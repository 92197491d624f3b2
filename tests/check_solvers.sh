#!/usr/bin/env bash
# check_solvers.sh SOLVERLAB — the convergence lab tells the truth: at 16^3 and 32^3 (500
# iterations at most) its CSV parses, every curve starts at 1, the fast solvers converge within
# stated bounds, Jacobi ends above Gauss-Seidel, the table agrees with the CSV, the SVG is XML.
# flipkit tests/: run by `make check` (make check-solvers); one line per check, non-zero exit on a failure.
set -u
lab=${1:?usage: check_solvers.sh SOLVERLAB}
out=build/tmp/solvers
rm -rf "$out" && mkdir -p "$out"
csv=$out/convergence.csv svg=$out/convergence.svg table=$out/table.txt
fail=0

if ! "$lab" --sizes 16,32 --cap 500 --out "$out" >"$table" 2>"$out/stderr.txt"; then
    echo "FAIL: $lab --sizes 16,32 --cap 500 exited non-zero:"; cat "$out/stderr.txt"; exit 1
fi

# Bounds, from the lab's own run here (16^3, 32^3): mgpcg 6, 7 iterations; multigrid 11, 11;
# pcg 18, 25; sor 171 at 16^3. The mgpcg bound is issue 4's target. Jacobi against
# Gauss-Seidel is compared at the cap: red-black Gauss-Seidel starts above Jacobi and passes it
# (after about 50 sweeps at 16^3, 200 at 32^3), which the handout shows.
awk -F, -v table="$table" -v csv="$csv" '
function fail(msg) { print "FAIL: " msg " (" csv ")"; bad = 1 }
BEGIN {
    nsolvers = split("jacobi gauss_seidel sor pcg multigrid mgpcg", solvers, " ")
    for (s = 1; s <= nsolvers; s++) known[solvers[s]] = 1
    split("16 32", sizes, " ")
    bound["mgpcg"] = 15; bound["multigrid"] = 30; bound["pcg"] = 50
    cap = 500; tol = 1e-6
}
NR == 1 {
    if ($0 != "solver,n,iteration,relative_residual") fail("header is \"" $0 "\"")
    next
}
{
    key = $1 "," $2
    if (NF != 4 || !($1 in known) || ($2 != 16 && $2 != 32) || $3 !~ /^[0-9]+$/ ||
        $4 !~ /^[0-9.]+(e[-+][0-9]+)?$/) {
        if (nbad++ < 3) fail("line " NR " does not parse: \"" $0 "\"")
        next
    }
    want = (key in last) ? last[key] + 1 : 0
    if ($3 + 0 != want) { fail("line " NR ": " key " iteration " $3 ", expected " want); next }
    last[key] = $3 + 0
    r[key, $3 + 0] = $4 + 0
}
END {
    if (NR <= 1) { fail("no rows"); exit 1 }
    for (z = 1; z <= 2; z++) {
        n = sizes[z]
        for (s = 1; s <= nsolvers; s++) {
            key = solvers[s] "," n
            if (!(key in last)) { fail(solvers[s] " at " n "^3: no rows"); continue }
            it = last[key]; end = r[key, it]
            d = r[key, 0] - 1; d = d < 0 ? -d : d
            if (d > 1e-6) fail(solvers[s] " at " n "^3: residual at iteration 0 is " r[key, 0] ", expected 1")
            if (it > cap) fail(solvers[s] " at " n "^3: " it " iterations, the cap is " cap)
            if (end > tol && it != cap)
                fail(solvers[s] " at " n "^3: stopped at iteration " it " with residual " end " (neither converged nor capped)")
            if ((solvers[s] in bound) && (end > tol || it > bound[solvers[s]]))
                fail(solvers[s] " at " n "^3: residual " end " after " it " iterations, expected <= 1e-6 within " bound[solvers[s]])
            iters[key] = it; conv[key] = end <= tol
        }
        if (!(("jacobi," n, cap) in r) || !(("gauss_seidel," n, cap) in r))
            fail("jacobi or gauss_seidel at " n "^3 has no residual at iteration " cap)
        else if (r["jacobi," n, cap] <= r["gauss_seidel," n, cap])
            fail("at " n "^3 after " cap " iterations jacobi is at " r["jacobi," n, cap] ", not above gauss_seidel at " r["gauss_seidel," n, cap])
    }
    if (!conv["sor,16"]) fail("sor at 16^3 did not reach 1e-6 within " cap " iterations (it needs about 171)")
    # The printed table must say what the CSV says.
    while ((getline line < table) > 0) {
        m = split(line, f, " ")
        if (m < 4 || !(f[1] in known) || f[2] !~ /^[0-9]+$/) continue
        key = f[1] "," f[2]; rows++
        said = f[4] == ">" ? "not converged" : f[4] + 0
        meant = conv[key] ? iters[key] : "not converged"
        if (said != meant) fail("the table says " key " took " said " iterations, the CSV says " meant)
    }
    if (rows != 12) fail("the table has " rows " solver rows, expected 12")
    if (!bad) print "PASS: convergence.csv: 12 curves from 1, mgpcg/multigrid/pcg within 15/30/50 iterations, sor converges at 16^3, jacobi above gauss_seidel at " cap ", the table agrees"
    exit bad
}' "$csv" || fail=1

# The device columns: the same solves on the OpenCL pipeline, where the fast solvers converge
# too (their iterations within the C bounds above, pcg's, another preconditioner there, within
# 100). A kit without a device says so in stderr and prints "-".
if grep -q "no OpenCL columns" "$out/stderr.txt"; then
    echo "PASS: no OpenCL device here, so no device columns: $(grep "no OpenCL columns" "$out/stderr.txt")"
elif awk 'BEGIN { b["mgpcg"] = 15; b["multigrid"] = 30; b["pcg"] = 100 }
          $1 in b && $2 ~ /^[0-9]+$/ { rows++; it = $(NF - 1)
              if (it !~ /^[0-9]+$/ || it + 0 > b[$1]) { print "FAIL: OpenCL " $1 " at " $2 "^3: \"" it "\" iterations, expected a number <= " b[$1]; bad = 1 } }
          END { if (rows != 6) { print "FAIL: " rows " pcg/multigrid/mgpcg rows with OpenCL columns, expected 6"; bad = 1 }; exit bad }' "$table"; then
    echo "PASS: the table's OpenCL columns: pcg, multigrid and mgpcg converge on the device too, within 100/30/15 iterations"
else
    fail=1
fi

# Multigrid's transfers and the device's CG, by their iteration counts: multigrid alone within
# 12 V-cycles at 16^3 and 32^3 (11 and 11 with the wall's weight folded onto the parent in
# mg_parents; 14 and 19 when prolongation dropped it), and on the device multigrid and mgpcg
# take exactly C's iterations (the same V-cycle; CG's A s summed in double as pcg.c does: in
# float its recurrence residual drifted from the true one and mgpcg restarted, 9 against 8 at
# 32^3 before the fold, 8 against 7 with it). A row that did not converge fails here too.
nodev=$(grep -c "no OpenCL columns" "$out/stderr.txt")
if awk -v nodev="$nodev" '
          ($1 == "multigrid" || $1 == "mgpcg") && $2 ~ /^[0-9]+$/ { rows++
              if ($4 !~ /^[0-9]+$/) {
                  print "FAIL: " $1 " at " $2 "^3 did not converge in C"; bad = 1; next }
              if ($1 == "multigrid" && $4 + 0 > 12) {
                  print "FAIL: multigrid at " $2 "^3 took " $4 " V-cycles in C, expected <= 12"; bad = 1 }
              if (!nodev && $(NF - 1) != $4) {
                  print "FAIL: " $1 " at " $2 "^3: OpenCL \"" $(NF - 1) "\" iterations, C " $4 ", expected the same"; bad = 1 } }
          END { if (rows != 4) { print "FAIL: " rows " multigrid/mgpcg rows, expected 4"; bad = 1 }; exit bad }' "$table"; then
    if [ "$nodev" -gt 0 ]; then
        echo "PASS: multigrid within 12 V-cycles in C at 16^3 and 32^3 (no OpenCL device here, so no comparison with it)"
    else
        echo "PASS: multigrid within 12 V-cycles in C at 16^3 and 32^3, and multigrid and mgpcg take C's iterations on the device"
    fi
else
    fail=1
fi

# The plot: well-formed XML (xmllint, from libxml2-utils), a panel per size, a curve per run.
if ! command -v xmllint >/dev/null 2>&1; then
    echo "FAIL: xmllint is missing (make deps installs libxml2-utils)"; fail=1
elif ! err=$(xmllint --noout "$svg" 2>&1); then
    echo "FAIL: $svg is not well-formed XML:"; echo "$err" | head -5; fail=1
else
    panels=$(grep -c '<g class="panel"' "$svg")
    curves=$(grep -c '<g class="curve"' "$svg")
    if [ "$panels" = 2 ] && [ "$curves" = 12 ] && grep -q 'stroke-dasharray' "$svg"; then
        echo "PASS: convergence.svg is well-formed XML: 2 panels, 12 curves, the tolerance line"
    else
        echo "FAIL: $svg has $panels panels and $curves curves (expected 2 and 12), or no dashed tolerance line"
        fail=1
    fi
fi
exit $fail
