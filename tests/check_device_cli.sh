#!/usr/bin/env bash
# check_device_cli.sh FLIPSIM — the device options: listing, a wrong value, a device that does not
# exist, the student track on OpenCL; each a non-zero exit with one line naming what was wrong.
# flipkit tests/: run by `make check`.
set -u
flipsim=${1:?usage: check_device_cli.sh FLIPSIM}
tmp=build/tmp/device_cli
rm -rf "$tmp" && mkdir -p "$tmp"
fail=0

expect() { # expect STATUS PATTERN WHAT -- ARGS...
    local want=$1 pattern=$2 what=$3; shift 4
    "$flipsim" "$@" >"$tmp/out" 2>"$tmp/err"
    local got=$?
    local text; text=$(cat "$tmp/out" "$tmp/err")
    if [ "$got" = "$want" ] && grep -q -- "$pattern" <<<"$text"; then
        echo "PASS $what: $(head -1 <<<"$text")"
    else
        echo "FAIL $what: exit $got (expected $want), output: $text"; fail=1
    fi
}

expect 0 "0:0" "--list-devices" -- --list-devices
expect 2 "expected cpu, opencl or auto" "--device gpu" -- --device gpu --frames 1 --out "$tmp/a" scenes/dam_break.json
expect 2 "--device opencl:.*7:0" "--cl-device 7:0" -- --device opencl --cl-device 7:0 --frames 1 --out "$tmp/b" scenes/dam_break.json
expect 2 "needs --track reference" "student track on opencl" -- --device opencl --track student --frames 1 --out "$tmp/c" scenes/dam_break.json
expect 0 "running the C reference" "auto falls back to C" -- --device auto --cl-device 7:0 --frames 1 --out "$tmp/d" scenes/dam_break.json

# One solver name, two algorithms: the log's start line says which one ran.
logline() { # logline WHAT PATTERN LOG: the start line of LOG names the variant
    if head -1 "$3" | grep -q -- "$2"; then echo "PASS $1: $(head -1 "$3" | sed 's/.*, solver /solver /; s/, [0-9]* particles.*//')"
    else echo "FAIL $1: the start line of $3 does not say \"$2\": $(head -1 "$3")"; fail=1; fi
}
"$flipsim" --quiet --device cpu --frames 1 --set pressure.solver=pcg --out "$tmp/e" scenes/dam_break.json &&
    logline "pcg on cpu names MIC(0)" "solver pcg (CG with a MIC(0) preconditioner, in C)" "$tmp/e/log.txt"
"$flipsim" --quiet --device opencl --frames 1 --set pressure.solver=pcg --out "$tmp/f" scenes/dam_break.json &&
    logline "pcg on opencl names its preconditioner" "solver pcg (CG with a symmetric red-black Gauss-Seidel preconditioner" "$tmp/f/log.txt"
"$flipsim" --quiet --device cpu --track student --frames 1 --set use_gauss_seidel=true --out "$tmp/g" scenes/dam_break.json &&
    logline "the given sor is lexicographic" "solver sor (lexicographic SOR" "$tmp/g/log.txt"
"$flipsim" --quiet --device cpu --frames 1 --set pressure.solver=sor --out "$tmp/h" scenes/dam_break.json &&
    logline "the reference's sor is red-black" "solver sor (red-black SOR" "$tmp/h/log.txt"
exit $fail
