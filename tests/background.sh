#!/bin/bash
# background.sh start DIR PART... | wait DIR — make check's parts that mostly wait, run aside.
# flipkit tests/: check-slurm waits on slurmd's scheduler passes and check-viewer on Chromium
# (78 s of wall time for 25 s of CPU, and 34 for 12), so in one of make -j2's two slots they left
# a core idle. `start` runs them one after the other (they would contend for apt-get's lock),
# in a make of its own outside the jobserver, into DIR/log; `wait` waits for that make, prints
# its log and exits with its status. A `wait` with nothing started, or whose make died without
# a status, fails.
set -u
cmd=${1:?usage: background.sh start DIR PART... | wait DIR}
dir=${2:?usage: background.sh start DIR PART... | wait DIR}
shift 2

case $cmd in
start)
    mkdir -p "$dir"
    rm -f "$dir/log" "$dir/rc" "$dir/pid"
    # MAKEFLAGS and MAKELEVEL cleared: this make takes no tokens from make check's jobserver,
    # and its parts print as if run alone
    ( MAKEFLAGS= MAKELEVEL= make --no-print-directory "$@" > "$dir/log" 2>&1 < /dev/null
      echo $? > "$dir/rc" ) &
    echo $! > "$dir/pid"
    echo "started in the background (printed at the end): $*"
    ;;
wait)
    [ -f "$dir/pid" ] || { echo "background.sh: nothing was started in $dir"; exit 1; }
    pid=$(cat "$dir/pid")
    while [ ! -f "$dir/rc" ] && kill -0 "$pid" 2>/dev/null; do
        sleep 1
    done
    cat "$dir/log"
    [ -f "$dir/rc" ] || { echo "background.sh: the background make ($pid) ended without a status"; exit 1; }
    rc=$(cat "$dir/rc")
    [ "$rc" = 0 ] || echo "background.sh: the background parts failed (exit $rc)"
    exit "$rc"
    ;;
*)
    echo "background.sh: unknown command '$cmd' (start or wait)"
    exit 2
    ;;
esac
