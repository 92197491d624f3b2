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
exit $fail
