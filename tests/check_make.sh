#!/bin/sh
# check_make.sh MAKEFILE — every phony target of MAKEFILE has a rule and a line in its `make help`.
# flipkit tests/: `make check-make` runs it on the kit's Makefile and on the student kit's
# (handout/student.mk, with the same common/build.mk and grader/kit.mk). Targets show in help
# through a `## text` on their rule line (common/build.mk says how); a target named there with
# <stage> stands for each of $(STAGES).
set -u
mk=${1:?usage: check_make.sh MAKEFILE | --planted}
# --planted: the check itself, on a makefile with a phony target that has no help line and one
# that has no rule; both must be reported.
if [ "$mk" = --planted ]; then
    tmp=$(mktemp)
    printf 'include common/build.mk\n.PHONY: documented undocumented ruleless help\ndocumented: ## fine\n\t@true\nundocumented:\n\t@true\n' > "$tmp"
    out=$("$0" "$tmp" 2>&1); rc=$?
    rm -f "$tmp"
    if [ "$rc" -ne 0 ] && echo "$out" | grep -q "undocumented has no line in make help" &&
       echo "$out" | grep -q "names ruleless, which has no rule"; then
        echo "check-make: a planted undocumented target and a planted target without a rule are both caught"
        exit 0
    fi
    echo "check-make: the planted makefile was not caught as it should be:" >&2; echo "$out" >&2
    exit 1
fi
: "${STAGES:?run me from make, which reads the stages from common/stagelist.h}"
db=$(mktemp)
trap 'rm -f "$db"' EXIT
# make's database: every target it knows, the ones that are only mentioned marked "Not a target".
make -f "$mk" -pRrq -- .check-make-nothing > "$db" 2>/dev/null
phony=$(sed -n 's/^\.PHONY: //p' "$db" | tr ' ' '\n' | sort -u | grep -v '^$')
# A target has a rule when its line lists prerequisites or its block has a recipe.
ruled=$(awk 'function flush() { if (t != "" && (deps || recipe)) print t; t = ""; deps = recipe = 0 }
             /^$/ { flush(); next }
             /^[^#\t. ][^=]*:/ && !/:=/ && t == "" { t = $0; sub(/:.*/, "", t); d = $0; sub(/^[^:]*:+/, "", d);
                                                    deps = d ~ /[^ ]/; next }
             /^#  recipe to execute/ { recipe = 1 }
             END { flush() }' "$db" | sort -u)
documented=$(make -f "$mk" --no-print-directory help 2>/dev/null | sed -n 's/^  make \([^ ]*\).*/\1/p' | sort -u)
fail=0
for t in $phony; do
    if ! printf '%s\n' "$ruled" | grep -qxF -- "$t"; then
        echo "check-make: $mk: .PHONY names $t, which has no rule" >&2; fail=1
    fi
    found=0
    for d in $documented; do
        case "$d" in
            *'<stage>'*) for s in $STAGES; do [ "$(echo "$d" | sed "s/<stage>/$s/")" = "$t" ] && found=1; done ;;
            *) [ "$d" = "$t" ] && found=1 ;;
        esac
    done
    [ "$found" = 1 ] || { echo "check-make: $mk: $t has no line in make help (end its rule line with ## text)" >&2; fail=1; }
done
for d in $documented; do
    case "$d" in *'<stage>'*) continue ;; esac
    printf '%s\n' "$phony" | grep -qxF -- "$d" ||
        { echo "check-make: $mk: make help lists $d, which is not a phony target" >&2; fail=1; }
done
n=$(printf '%s\n' "$phony" | grep -c .)
[ "$fail" = 0 ] && echo "check-make: $mk: all $n phony targets have a rule and a line in make help"
exit "$fail"
