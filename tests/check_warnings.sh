#!/usr/bin/env bash
# check_warnings.sh — the whole kit compiles without a single warning under gcc and clang
# at -Wall -Wextra (and the Makefile's extra warnings), each into its own build directory.
# flipkit tests/: run by `make check`.
set -u
fail=0
for cc in gcc clang; do
    if ! command -v "$cc" >/dev/null 2>&1; then
        echo "SKIP: $cc is not installed"
        continue
    fi
    dir=build/warn-$cc
    if out=$(make --no-print-directory -B BUILD="$dir" CC="$cc" CFLAGS="-O2 -Werror" "$dir/flipsim" "$dir/flipgrade" "$dir/grader/calibrate" "$dir/handout/mkfigures" grade-kit all-tests BUILD="$dir" 2>&1); then
        echo "PASS: $cc builds warning-free"
    else
        echo "FAIL: $cc reports warnings:"; echo "$out" | grep -v -E "^$cc " | grep -E "warning|error" | head -10; fail=1
    fi
done
exit $fail
