#!/bin/sh
# check_mutants.sh — proves each stage suite catches the kit's planted bugs.
# flipkit tests/: `make check-mutants` runs it. Each tests/mutants/STAGE-BUG.patch is a small
# diff against reference/STAGE.c; the patched file is compiled as the student's STAGE, linked
# into that stage's suite, and the suite must fail, and fail in its hand-worked (analytic) cases
# alone (CK_RUN_CASE=analytic): a bug only a golden case catches gets a wall of differing faces
# instead of a message that names the mistake. A mutant the suite passes is a hole in it.
# tests/mutants/kernels/STAGE-BUG.patch plants a bug in a kernel the OpenCL pipeline runs
# (kernels/*.cl); the stage's suite on the opencl track (TRACK=opencl runs the pipeline's own
# phase code and kernels) must fail on it, in its analytic cases too. Needs an OpenCL device.
# Usage: check_mutants.sh (the Makefile sets CC, MUT_CFLAGS, MUT_LIBS, MUT_OBJS, BUILD)
set -u
out="$BUILD/mutants"
rm -rf "$out"; mkdir -p "$out"
total=0; caught=0; bad=0
for patchfile in tests/mutants/*.patch; do
    [ -e "$patchfile" ] || { echo "check-mutants: no patches in tests/mutants/" >&2; exit 1; }
    name=$(basename "$patchfile" .patch)
    stage=${name%%-*}
    dir="$out/$name"; mkdir -p "$dir"
    total=$((total + 1))
    if [ ! -f "reference/$stage.c" ]; then
        echo "FAIL $name: no stage \"$stage\" (a mutant is named STAGE-BUG.patch)"; bad=$((bad + 1)); continue
    fi
    if ! patch -s -o "$dir/$stage.c" "reference/$stage.c" < "$patchfile" >"$dir/patch.log" 2>&1; then
        echo "FAIL $name: does not apply to reference/$stage.c: $(head -n 1 "$dir/patch.log")"; bad=$((bad + 1)); continue
    fi
    objs=$(echo "$MUT_OBJS" | sed "s#$BUILD/assignment/$stage\.o#$dir/$stage.o#")
    if ! $CC $MUT_CFLAGS -c "$dir/$stage.c" -o "$dir/$stage.o" >"$dir/build.log" 2>&1 ||
       ! $CC $MUT_LDFLAGS "$BUILD/tests/test_$stage.o" $objs $MUT_LIBS -o "$dir/test_$stage" >>"$dir/build.log" 2>&1; then
        echo "FAIL $name: does not build:"; cat "$dir/build.log"; bad=$((bad + 1)); continue
    fi
    t0=$(date +%s)
    FLIPKIT_TRACK=student "$dir/test_$stage" >"$dir/run.log" 2>&1
    rc=$? t1=$(date +%s)
    summary=$(grep -E '^[0-9]+%: Checks: ' "$dir/run.log" | tail -n 1)
    # A stage that never returns costs one short timeout; the suite skips the rest in one line.
    if grep -q 'Test timeout expired' "$dir/run.log" &&
       { [ $((t1 - t0)) -ge 15 ] || [ "$(grep -c 'later cases* w[ea][rs]e* skipped' "$dir/run.log")" -ne 1 ]; }; then
        echo "FAIL $name: a case timed out, and the suite took $((t1 - t0)) s and did not skip the rest in one line"
        bad=$((bad + 1)); continue
    fi
    first=$(grep -m 1 -E ':[FE]:' "$dir/run.log" | sed -E 's/^[^:]*:[0-9]+:[FE]:([^:]*):([^:]*):[0-9]+: /\1\/\2: /' | cut -c1-150)
    FLIPKIT_TRACK=student CK_RUN_CASE=analytic "$dir/test_$stage" >"$dir/analytic.log" 2>&1
    analytic_rc=$?
    if [ "$rc" -ne 0 ] && [ -n "$summary" ] && { [ "$analytic_rc" -eq 0 ] || ! grep -q ':[FE]:analytic:' "$dir/analytic.log"; }; then
        echo "FAIL $name: only a golden case catches it: add a hand-worked case to tests/test_$stage.c"; bad=$((bad + 1))
    elif [ "$rc" -ne 0 ] && [ -n "$summary" ]; then
        caught=$((caught + 1))
        echo "caught $name: $summary; first: $first"
    else
        echo "FAIL $name: test_$stage passed it (exit $rc): the suite has a hole"; bad=$((bad + 1))
    fi
done
# Kernel mutants: a patched copy of kernels/, found through FLIPKIT_KERNELS.
for patchfile in tests/mutants/kernels/*.patch; do
    [ -e "$patchfile" ] || break
    name=$(basename "$patchfile" .patch)
    stage=${name%%-*}
    dir="$out/kernels-$name"; mkdir -p "$dir"
    total=$((total + 1))
    target=$(sed -n '1s/^--- \([^ 	]*\).*/\1/p' "$patchfile")
    cp -r kernels "$dir/kernels"
    if [ ! -x "$BUILD/tests/test_$stage" ]; then
        echo "FAIL $name: no suite $BUILD/tests/test_$stage (a mutant is named STAGE-BUG.patch)"; bad=$((bad + 1)); continue
    fi
    if ! patch -s "$dir/$target" < "$patchfile" >"$dir/patch.log" 2>&1; then
        echo "FAIL $name: does not apply to $target: $(head -n 1 "$dir/patch.log")"; bad=$((bad + 1)); continue
    fi
    FLIPKIT_KERNELS="$dir/kernels" FLIPKIT_TRACK=opencl "$BUILD/tests/test_$stage" >"$dir/run.log" 2>&1
    rc=$?
    summary=$(grep -E '^[0-9]+%: Checks: ' "$dir/run.log" | tail -n 1)
    first=$(grep -m 1 -E ':[FE]:' "$dir/run.log" | sed -E 's/^[^:]*:[0-9]+:[FE]:([^:]*):([^:]*):[0-9]+: /\1\/\2: /' | cut -c1-150)
    FLIPKIT_KERNELS="$dir/kernels" FLIPKIT_TRACK=opencl CK_RUN_CASE=analytic "$BUILD/tests/test_$stage" >"$dir/analytic.log" 2>&1
    analytic_rc=$?
    if [ "$rc" -ne 0 ] && [ -n "$summary" ] && { [ "$analytic_rc" -eq 0 ] || ! grep -q ':[FE]:analytic:' "$dir/analytic.log"; }; then
        echo "FAIL $name ($target): only a golden case catches it: add a hand-worked case to tests/test_$stage.c"; bad=$((bad + 1))
    elif [ "$rc" -ne 0 ] && [ -n "$summary" ]; then
        caught=$((caught + 1))
        echo "caught $name ($target, opencl track): $summary; first: $first"
    else
        echo "FAIL $name ($target): test_$stage on the opencl track passed it (exit $rc): the suite has a hole"
        bad=$((bad + 1))
    fi
done
echo "check-mutants: $caught of $total planted bugs caught, each by a hand-worked case"
[ "$bad" -eq 0 ]
