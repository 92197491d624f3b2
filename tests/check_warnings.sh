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
    if out=$(make --no-print-directory -B BUILD="$dir" CC="$cc" CFLAGS="-O2 -Werror" "$dir/flipsim" "$dir/flipgrade" "$dir/flipclass" "$dir/grader/calibrate" "$dir/handout/mkfigures" grade-kit all-tests BUILD="$dir" 2>&1); then
        echo "PASS: $cc builds warning-free"
    else
        echo "FAIL: $cc reports warnings:"; echo "$out" | grep -v -E "^$cc " | grep -E "warning|error" | head -10; fail=1
    fi
done
# The kernels as the OpenCL runtime builds them (constants.h first, then the files in
# reference/pipedev.c's order): PoCL prints "N warnings generated." on the first run of a
# fresh kernel cache, which is the first thing a new user sees.
if command -v clang >/dev/null 2>&1; then
    srcs=$(sed -n '/pipe_sources\[\] = {/,/};/p' reference/pipedev.c | grep -o '"[a-z]*\.cl"' | tr -d '"')
    [ -n "$srcs" ] || { echo "FAIL: no kernel sources listed in reference/pipedev.c's pipe_sources"; fail=1; }
    tmp=$(mktemp --suffix=.cl)
    { echo '#include "common/constants.h"'
      for f in $srcs; do echo "#line 1 \"kernels/$f\""; cat "kernels/$f"; done; } >"$tmp"
    kernels_warn() {   # kernels_warn NAME FILE
        if out=$(clang -x cl -cl-std=CL1.2 -Xclang -finclude-default-header -fsyntax-only -I. \
                 -Werror "$2" 2>&1); then
            echo "PASS: the kernels ($1) build warning-free"
        else
            echo "FAIL: the kernels ($1) warn:"; echo "$out" | grep -E "warning|error" | head -10; fail=1
        fi
    }
    kernels_warn "$(echo $srcs)" "$tmp"
    kernels_warn bench.cl kernels/bench.cl
    rm -f "$tmp"
fi
exit $fail
