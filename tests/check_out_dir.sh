#!/usr/bin/env bash
# check_out_dir.sh FLIPSIM — flipsim owns its --out: a second run into it refuses (exit 2, naming
# the first), the first's files are all its own; a shorter rerun or a resume leaves nothing of
# the earlier run past its own frames, and other files alone; a scene too big is refused at
# once with exit 4. flipkit tests/: run by `make check-determinism`; one line per check.
set -u
flipsim=${1:?usage: check_out_dir.sh FLIPSIM}
scene=scenes/dam_break.json
tmp=build/tmp/out-dir
rm -rf "$tmp" && mkdir -p "$tmp"
fail=0
pass() { echo "PASS: $*"; }
bad() { echo "FAIL: $*"; fail=1; }
frames_of() { (cd "$1/particles" && ls | tr '\n' ' '); }

"$flipsim" --quiet --frames 20 --out "$tmp/solo" "$scene" || bad "the solo run exited $?"

# Two runs into one directory: the second starts while the first holds the lock.
"$flipsim" --quiet --frames 20 --out "$tmp/shared" "$scene" & first=$!
for _ in $(seq 200); do [ -s "$tmp/shared/.lock" ] && break; sleep 0.05; done
"$flipsim" --quiet --frames 3 --out "$tmp/shared" "$scene" > "$tmp/second.txt" 2>&1; second=$?
wait "$first"; first_rc=$?
if [ "$second" -eq 2 ] && grep -q "another flipsim (pid $first)" "$tmp/second.txt"; then
    pass "a second run into a busy --out exits 2 and names pid $first"
else
    bad "the second run exited $second, not 2 naming pid $first: $(cat "$tmp/second.txt")"
fi
[ "$first_rc" -eq 0 ] || bad "the first run exited $first_rc"
if diff -r -q "$tmp/solo/particles" "$tmp/shared/particles" > /dev/null; then
    pass "the first run's frames are all its own: byte for byte those of a run alone ($(ls "$tmp/shared/particles" | wc -l) files)"
else
    bad "the shared directory's frames differ from a run alone: $(diff -r -q "$tmp/solo/particles" "$tmp/shared/particles" | head -3)"
fi

# A shorter rerun: only its own frames are left; a file of the user's stays.
echo mine > "$tmp/shared/notes.txt"
"$flipsim" --quiet --frames 3 --out "$tmp/shared" "$scene" || bad "the rerun exited $?"
want="000000.ply 000001.ply 000002.ply 000003.ply "
[ "$(frames_of "$tmp/shared")" = "$want" ] && pass "a shorter rerun leaves frames 0-3 only" ||
    bad "after a 3-frame rerun particles/ holds: $(frames_of "$tmp/shared")"
[ "$(cat "$tmp/shared/notes.txt" 2>/dev/null)" = mine ] || bad "the rerun removed a file flipsim does not write"

# A resume keeps its own earlier frames (byte for byte) and drops the later ones and checkpoints.
"$flipsim" --quiet --frames 6 --checkpoint-every 2 --out "$tmp/resumed" "$scene" || bad "the checkpointed run exited $?"
"$flipsim" --quiet --frames 4 --resume "$tmp/resumed/state/000002.state" --out "$tmp/resumed" ||
    bad "the resume exited $?"
want="000000.ply 000001.ply 000002.ply 000003.ply 000004.ply "
states=$(ls "$tmp/resumed/state" | tr '\n' ' ')
if [ "$(frames_of "$tmp/resumed")" = "$want" ] && [ "$states" = "000002.state " ]; then
    pass "a resume from frame 2 to 4 leaves frames 0-4 and checkpoint 2"
else
    bad "after resuming from 2 to 4: particles $(frames_of "$tmp/resumed"), state $states"
fi
for f in 000000 000002 000004; do
    cmp -s "$tmp/solo/particles/$f.ply" "$tmp/resumed/particles/$f.ply" || bad "resumed frame $f differs from the solo run's"
done

# Too big for this machine: refused before anything is allocated or written.
"$flipsim" --quiet --set 'grid.resolution=[1024,1024,1024]' --out "$tmp/huge" "$scene" > "$tmp/huge.txt" 2>&1; rc=$?
if [ "$rc" -eq 4 ] && grep -q "$scene: grid 1024x1024x1024 .* need at least [0-9.]* GiB" "$tmp/huge.txt" && [ ! -e "$tmp/huge" ]; then
    pass "a 1024^3 grid is refused with exit 4: $(cat "$tmp/huge.txt")"
else
    bad "a 1024^3 grid: exit $rc, $(cat "$tmp/huge.txt"), $(ls "$tmp" | tr '\n' ' ')"
fi
exit "$fail"
