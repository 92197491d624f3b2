#!/usr/bin/env bash
# check_bad_scenes.sh — runs flipsim on every malformed scene in tests/bad_scenes/ and on a missing file.
# flipkit tests/: usage tests/check_bad_scenes.sh FLIPSIM (make check-sanitize passes the ASan build).
# Each case must exit with status 2, print exactly one line to stderr naming the file, and trip no sanitizer.
set -u

if [ $# -ne 1 ]; then
    echo "usage: $0 FLIPSIM" >&2
    exit 2
fi
flipsim=$1
if [ ! -x "$flipsim" ]; then
    echo "check_bad_scenes: $flipsim: not an executable (build it first)" >&2
    exit 2
fi

here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/flipkit-bad-scenes.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

# A scene that is wrongly accepted would start simulating; --frames 1 keeps that short and
# the time limit keeps a hang from stalling make check.
run=()
if command -v timeout >/dev/null 2>&1; then
    run=(timeout 120)
fi

# check_case SCENE: runs flipsim on SCENE and prints one PASS or FAIL line; returns 1 on FAIL.
check_case() {
    local scene=$1 name status nlines first
    local problems=()
    name=$(basename "$scene")
    ${run[@]+"${run[@]}"} "$flipsim" --frames 1 --out "$tmp/out" "$scene" >"$tmp/stdout" 2>"$tmp/stderr"
    status=$?
    nlines=$(wc -l <"$tmp/stderr")
    first=$(head -n 1 "$tmp/stderr" | cut -c 1-200)

    [ "$status" -eq 2 ] || problems+=("exit status $status, expected 2")
    # One line: exactly one newline, and nothing after it.
    if [ ! -s "$tmp/stderr" ]; then
        problems+=("stderr is empty, expected one line")
    elif [ "$nlines" -eq 0 ]; then
        problems+=("stderr does not end its line with a newline")
    elif [ "$nlines" -ne 1 ] || [ -n "$(tail -n +2 "$tmp/stderr")" ]; then
        problems+=("stderr has more than one line")
    fi
    grep -qF -- "$scene" "$tmp/stderr" || problems+=("stderr does not name $scene")
    if grep -qE 'AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|runtime error' "$tmp/stderr"; then
        problems+=("sanitizer report")
    fi

    if [ ${#problems[@]} -eq 0 ]; then
        echo "PASS $name: $first"
        return 0
    fi
    local why="" p
    for p in "${problems[@]}"; do
        why="$why$p; "
    done
    echo "FAIL $name: ${why}stderr began: $first"
    return 1
}

shopt -s nullglob
scenes=("$here"/bad_scenes/*.json)
if [ ${#scenes[@]} -eq 0 ]; then
    echo "check_bad_scenes: no scenes in $here/bad_scenes" >&2
    exit 1
fi
# The missing file lives in the fresh temporary directory, so it surely does not exist.
scenes+=("$tmp/missing.json")

failed=0
for scene in "${scenes[@]}"; do
    check_case "$scene" || failed=$((failed + 1))
done

if [ "$failed" -ne 0 ]; then
    echo "check_bad_scenes: $failed of ${#scenes[@]} cases failed" >&2
    exit 1
fi
echo "check_bad_scenes: all ${#scenes[@]} cases passed"
