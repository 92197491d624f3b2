#!/bin/sh
# check_guide.sh — every make target and kit file a guide names exists.
# flipkit tests/: `make check-make` runs it on grader/GUIDE.md, the instructor's guide, so the page
# cannot send an instructor to a target or file the kit has lost. Usage: check_guide.sh FILE | --planted
set -u
page=${1:?usage: check_guide.sh FILE | --planted}
# --planted: a copy of the guide with a target and a file that do not exist; both must be caught.
if [ "$page" = --planted ]; then
    tmp=$(mktemp)
    sed -e '0,/make grade-data/s/make grade-data/make grade-dat/' \
        -e '0,/`common\/given_sor.c`/s/`common\/given_sor.c`/`common\/given_sorr.c`/' grader/GUIDE.md > "$tmp"
    out=$("$0" "$tmp" 2>&1); rc=$?
    rm -f "$tmp"
    if [ "$rc" -ne 0 ] && echo "$out" | grep -q '"make grade-dat", which the kit'"'"'s Makefile does not have' &&
       echo "$out" | grep -q 'common/given_sorr.c, which the kit does not have'; then
        echo "check-guide: a planted missing target and a planted missing file are both caught"
        exit 0
    fi
    echo "check-guide: the planted guide was not caught as it should be:" >&2; echo "$out" >&2
    exit 1
fi
[ -r "$page" ] || { echo "check-guide: $page: cannot read it" >&2; exit 1; }
db=$(mktemp)
trap 'rm -f "$db"' EXIT
make -f Makefile -pRrq -- .check-guide-nothing > "$db" 2>/dev/null
phony=$(sed -n 's/^\.PHONY: //p' "$db" | tr ' ' '\n' | sort -u | grep -v '^$')
fail=0
for t in $(grep -o 'make [a-z][a-z0-9-]*' "$page" | cut -d' ' -f2 | sort -u); do
    printf '%s\n' "$phony" | grep -qxF -- "$t" ||
        { echo "check-guide: $page: names \"make $t\", which the kit's Makefile does not have" >&2; fail=1; }
done
# Files of the kit: a code span or a link under one of its source folders (build/, dist/ and
# a class's subs/ are made by the steps, not kept in the kit).
files=$( { grep -o '`[a-z][a-zA-Z0-9_./-]*`' "$page" | tr -d '`'; grep -o '](\([^)#]*\))' "$page" | sed 's/](\(.*\))/\1/'; } |
        grep -E '^(common|grader|tests|handout|scenes|reference|assignment|kernels)/|^[A-Za-z]+\.md$' | sort -u)
for f in $files; do
    case $f in */*) path=$f ;; *) path=$(dirname "$page")/$f ;; esac   # a bare X.md is beside the page
    [ -e "$path" ] || { echo "check-guide: $page: names $f, which the kit does not have" >&2; fail=1; }
done
[ "$fail" -eq 0 ] && echo "check-guide: $page: its $(grep -o 'make [a-z][a-z0-9-]*' "$page" | sort -u | wc -l) make targets and $(echo "$files" | grep -c .) kit files exist"
exit "$fail"
