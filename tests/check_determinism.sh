#!/usr/bin/env bash
# check_determinism.sh FLIPSIM — the same scene run twice writes the same bytes, and
# 20 frames in one go equal 10 frames + --resume + 10 more, byte for byte.
# flipkit tests/: run by `make check`; one line per check, non-zero exit on a failure.
set -u
flipsim=${1:?usage: check_determinism.sh FLIPSIM}
scene=scenes/ball_drop.json
tmp=build/tmp/determinism
rm -rf "$tmp" && mkdir -p "$tmp"
fail=0

run() { "$flipsim" --quiet "$@" || { echo "FAIL: flipsim $* exited $?"; exit 1; }; }

run --frames 20 --out "$tmp/a" "$scene"
run --frames 20 --out "$tmp/b" "$scene"
if diff -r -q "$tmp/a/particles" "$tmp/b/particles" >/dev/null; then
    echo "PASS: two runs of $scene wrote identical frames 0-20"
else
    echo "FAIL: two runs of $scene differ:"; diff -r -q "$tmp/a/particles" "$tmp/b/particles" | head -5; fail=1
fi

run --frames 10 --checkpoint-every 10 --out "$tmp/c" "$scene"
run --frames 20 --resume "$tmp/c/state/000010.state" --out "$tmp/c"
if diff -r -q "$tmp/a/particles" "$tmp/c/particles" >/dev/null; then
    echo "PASS: 10 frames + resume + 10 frames equal 20 frames in one go, byte for byte"
else
    echo "FAIL: resumed run differs from the one-go run:"; diff -r -q "$tmp/a/particles" "$tmp/c/particles" | head -5; fail=1
fi
exit $fail
