#!/bin/bash
# background.sh start DIR PART... | wait DIR | stop DIR — make check's waiting parts, run aside.
# flipkit tests/: check-slurm waits on slurmd's scheduler passes and check-viewer on Chromium
# (78 s of wall time for 25 s of CPU, and 34 for 12), so in one of make -j2's two slots they left
# a core idle. `start` runs them one after the other (they would contend for apt-get's lock),
# in a make of its own outside the jobserver, into DIR/log; `wait` waits for that make, prints
# its log and exits with its status. A `wait` with nothing started, or whose make died without
# a status, fails. `stop` ends that make and its parts: it runs in a session of its own, which
# Ctrl-C does not reach, so make check's recipe calls `stop` when it is interrupted.
set -u
usage="usage: background.sh start DIR PART... | wait DIR | stop DIR"
cmd=${1:?$usage}
dir=${2:?$usage}
shift 2

case $cmd in
start)
    mkdir -p "$dir"
    rm -f "$dir/log" "$dir/rc" "$dir/pid"
    # MAKEFLAGS and MAKELEVEL cleared: this make takes no tokens from make check's jobserver,
    # and its parts print as if run alone. setsid: its own process group (pgid = pid).
    MAKEFLAGS= MAKELEVEL= setsid sh -c 'd=$1; shift
        make --no-print-directory "$@" > "$d/log" 2>&1 < /dev/null
        echo $? > "$d/rc"' sh "$dir" "$@" &
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
stop)
    if [ -f "$dir/pid" ] && [ ! -f "$dir/rc" ]; then
        kill -TERM -- "-$(cat "$dir/pid")" 2>/dev/null
        echo "background.sh: stopped the background parts"
    fi
    exit 0
    ;;
*)
    echo "background.sh: unknown command '$cmd' (start, wait or stop)"
    exit 2
    ;;
esac
