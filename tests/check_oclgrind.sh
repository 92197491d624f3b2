#!/bin/sh
# check_oclgrind.sh — the stage suites' OpenCL track run under Oclgrind, which reports every
# out-of-bounds access and data race of a kernel as it happens. A kernel that adds 0 past a
# buffer's end, or writes a face another work-item owns with the value it holds, passes every
# suite (the values come out the same) but not this. Then the planted bugs of
# tests/mutants/oclgrind/ (each STAGE-BUG.patch against kernels/), which the suites pass, must
# be reported. flipkit tests/: `make check-oclgrind`.
# Small scenes run whole under it too, for the kernels no stage suite reaches (the sort,
# the solvers, extrapolation): dam_break's liquid against the walls, ball_drop's splash, and
# dam_break on an odd grid large enough for the split-layout sweeps (mgpcg and pcg).
# Usage: check_oclgrind.sh BUILD_DIR STAGE...
build=$1; shift
if ! command -v oclgrind >/dev/null 2>&1; then
    echo "check-oclgrind: oclgrind is not installed (make deps installs it)"; exit 1
fi
out=$build/oclgrind; rm -rf "$out"; mkdir -p "$out"
# The pipeline keeps some buffers as regions of one (pipe_sub_buffer): each its own buffer
# here, so an access past one is past a buffer, which Oclgrind reports.
export FLIPKIT_CL_SEPARATE_REGIONS=1
# Oclgrind's reports start with these words (Uninitialized is left out: it flags the
# solvers' loads outside the fluid box, which the info bits then drop by design).
reports() { grep -c -E '^(Invalid (read|write)|Data race|Read-write data race|Write-write data race)' "$1"; }
run() { # run KERNEL_DIR STAGE LOG: the suite under Oclgrind; prints the report count
    FLIPKIT_KERNELS=$1 FLIPKIT_TRACK=opencl oclgrind --data-races --max-errors 20 \
        "$build/tests/test_$2" >"$3" 2>&1
    echo "$? $(reports "$3")"
}
bad=0
for stage in "$@"; do
    set -- $(run kernels "$stage" "$out/$stage.log")
    if [ "$1" -ne 0 ] || [ "$2" -ne 0 ]; then
        echo "FAIL $stage: the suite under Oclgrind exited $1 with $2 reports; first:"
        grep -m 1 -A 4 -E '^(Invalid|Data race|Read-write|Write-write)' "$out/$stage.log"
        bad=$((bad + 1))
    else
        echo "ok   $stage: $(grep -E '^[0-9]+%: Checks' "$out/$stage.log"), no out-of-bounds access or race"
    fi
done
scene() { # scene NAME SCENE FRAMES SETS...: flipsim on OpenCL under Oclgrind
    name=$1 file=$2 frames=$3; shift 3
    log="$out/scene-$name.log"
    oclgrind --data-races --max-errors 20 "$build/flipsim" --device opencl --frames "$frames" \
        --set output.surface=false --set output.preview=false --out "$out/run-$name" "$@" "$file" \
        >"$log" 2>&1
    rc=$? n=$(reports "$log")
    if [ "$rc" -ne 0 ] || [ "$n" -ne 0 ]; then
        echo "FAIL $name: flipsim under Oclgrind exited $rc with $n reports; first:"
        grep -m 1 -A 4 -E '^(Invalid|Data race|Read-write|Write-write)' "$log" || tail -n 3 "$log"
        bad=$((bad + 1))
    else
        echo "ok   $name: $(grep -o 'frames [0-9-]*, [0-9]* particles, [0-9]* substeps' "$log"), no out-of-bounds access or race"
    fi
}
# dam_break and ball_drop carry production stepping (kernels/stages.cl's g2p_move, the
# extrapolation's wider reach); the teaching stepping's advect runs in the pcg scene below.
scene dam_break scenes/dam_break.json 4 --set 'grid.resolution=[16,8,8]' --set grid.cell_size=0.3
scene ball_drop scenes/ball_drop.json 9 --set 'grid.resolution=[12,12,12]' --set grid.cell_size=0.6667
# Over 16^3 cells, so level 0 is swept in the colour-split layout (pipesolve.c); an odd nx
# gives rows whose last pair has one cell. Once with mgpcg (the V-cycle's split legs), once
# with pcg (the one-level preconditioner's path). A grid with two split levels (35x33x37)
# took 35-50 s here, so it is left to test_pipeline's comparison with C.
scene dam_break_odd scenes/dam_break.json 4 --set 'grid.resolution=[21,12,17]' --set grid.cell_size=0.3
scene dam_break_odd_pcg scenes/dam_break.json 2 --set 'grid.resolution=[21,12,17]' --set grid.cell_size=0.3 \
    --set pressure.solver=pcg --set production.integrator=none
# jacobi on a small grid: its sweeps down the FLUID list in one work-group, with a barrier
# between sweeps (kernels/solvers.cl's jacobi_sweeps)
scene first_drop_jacobi scenes/first_drop.json 3 --set 'grid.resolution=[10,10,10]' --set grid.cell_size=0.8
for patchfile in tests/mutants/oclgrind/*.patch; do
    [ -e "$patchfile" ] || break
    name=$(basename "$patchfile" .patch); stage=${name%%-*}
    dir="$out/$name"; mkdir -p "$dir"; cp -r kernels "$dir/kernels"
    target=$(sed -n '1s/^--- \([^ 	]*\).*/\1/p' "$patchfile")
    if ! patch -s "$dir/$target" <"$patchfile" >/dev/null 2>&1; then
        echo "FAIL $name: does not apply"; bad=$((bad + 1)); continue
    fi
    set -- $(run "$dir/kernels" "$stage" "$dir/run.log")
    if [ "$2" -gt 0 ]; then
        echo "caught $name: $2 reports, first: $(grep -m 1 -E '^(Invalid|Data race|Read-write|Write-write)' "$dir/run.log")"
    else
        echo "FAIL $name: Oclgrind reported nothing (suite exit $1)"; bad=$((bad + 1))
    fi
done
[ "$bad" -eq 0 ]
