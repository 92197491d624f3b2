#!/bin/sh
# check_watch.sh — a run that goes wrong names the stage that made it go wrong (watch.c).
# flipkit tests/: `make check-watch` runs it. Each line below plants one bug from tests/mutants/
# in a flipsim whose student track is the reference's stages, runs a short first_drop, and
# asserts that the run stops with the named stage in its line; the unplanted run must finish clean.
# Usage: check_watch.sh (the Makefile sets CC, WATCH_CFLAGS, WATCH_LDFLAGS, WATCH_LIBS, WATCH_OBJS, BUILD)
set -u
out="$BUILD/watch"
rm -rf "$out"; mkdir -p "$out"
bad=0

# build NAME [PATCH]: $out/NAME/flipsim, the reference's stages as the student's, one patched
build() {
    dir="$out/$1"; mkdir -p "$dir"; objs=""
    for st in $STAGES; do
        cp "reference/$st.c" "$dir/$st.c"
        if [ -n "${2:-}" ] && [ "${2%%-*}" = "$st" ]; then
            patch -s "$dir/$st.c" < "tests/mutants/$2.patch" || return 1
        fi
        $CC $WATCH_CFLAGS -c "$dir/$st.c" -o "$dir/$st.o" || return 1
        objs="$objs $dir/$st.o"
    done
    $CC $WATCH_LDFLAGS $WATCH_OBJS $objs $WATCH_LIBS -o "$dir/flipsim"
}

# expect NAME PATCH STAGE [ARGS...]: the planted run stops (exit 3) and its line names STAGE
expect() {
    name=$1 patchname=$2 stage=$3; shift 3
    [ -x "$out/$patchname/flipsim" ] || build "$patchname" "$patchname" || { echo "FAIL $name: does not build"; bad=$((bad + 1)); return; }
    "$out/$patchname/flipsim" --quiet --track student --frames 15 --set output.preview=false \
        --set output.particles=false --out "$out/$name.out" "$@" scenes/first_drop.json >"$out/$name.log" 2>&1
    rc=$?
    line=$(grep -m 1 '^flipsim: ' "$out/$name.log")
    if [ "$rc" -eq 3 ] && echo "$line" | grep -q "stage $stage "; then
        echo "named $name: $(echo "$line" | cut -c1-160)"
    else
        echo "FAIL $name: exit $rc, expected exit 3 naming stage $stage; got: ${line:-nothing}"; bad=$((bad + 1))
    fi
}

build clean || { echo "check-watch: the reference's stages do not build"; exit 1; }
if "$out/clean/flipsim" --quiet --track student --out "$out/clean.out" --set output.preview=false \
       scenes/first_drop.json >"$out/clean.log" 2>&1 && ! grep -q '^flipsim: ' "$out/clean.log"; then
    echo "clean: first_drop on the reference's stages runs to the end with no warning"
else
    echo "FAIL clean: the reference's stages did not run clean:"; cat "$out/clean.log"; bad=$((bad + 1))
fi
expect divergence-sign divergence-sign-flipped divergence
expect gradient-sign gradient-wrong-sign gradient
expect jacobi-rhs-sign jacobi-wrong-sign-rhs jacobi
expect p2g-no-division p2g-no-normalise p2g
expect p2g-no-division-gauss-seidel p2g-no-normalise p2g --set use_gauss_seidel=true
expect gravity-swapped gravity-swapped-axis gravity
[ "$bad" -eq 0 ] && echo "check-watch: every planted bug stopped the run naming its stage"
[ "$bad" -eq 0 ]
