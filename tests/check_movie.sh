#!/usr/bin/env bash
# check_movie.sh FLIPSIM — `make movie` (common/movie.sh): the previews become one video with a
# frame per preview at the scene's frame rate; without ffmpeg, one line and exit 1; bad input, 2.
# flipkit tests/: run by `make check`; one line per check, non-zero exit on a failure.
set -u
flipsim=${1:?usage: check_movie.sh FLIPSIM}
tmp=build/tmp/movie
rm -rf "$tmp" && mkdir -p "$tmp/bin"
fail=0
pass() { echo "PASS: $1"; }
bad() { echo "FAIL: $1"; fail=1; }

# A PATH with what movie.sh uses besides ffmpeg.
for t in ls grep rm mv; do ln -s "$(command -v $t)" "$tmp/bin/$t"; done
msg=$(PATH=$tmp/bin common/movie.sh "$flipsim" scenes/ball_drop.json --quiet --frames 1 \
      --out "$tmp/none" 2>&1); rc=$?
if [ $rc = 1 ] && grep -q "ffmpeg is not installed (sudo apt-get install ffmpeg)" <<<"$msg"; then
    pass "without ffmpeg: exit 1 and says how to install it"
else
    bad "without ffmpeg: exit $rc, said: $msg"
fi

msg=$(common/movie.sh "$flipsim" scenes/no_such_scene.json 2>&1); rc=$?
if [ $rc = 2 ] && grep -q "no_such_scene.json" <<<"$msg"; then
    pass "a missing scene: exit 2 naming it"
else
    bad "a missing scene: exit $rc, said: $msg"
fi

if ! command -v ffmpeg >/dev/null || ! command -v ffprobe >/dev/null; then
    echo "NOTE: ffmpeg is not installed here: the encoding itself was not tried (.ci/run installs it)"
    exit $fail
fi
# 24 fps, not the default 30, so the rate is known to come from the scene.
common/movie.sh "$flipsim" scenes/ball_drop.json --quiet --frames 5 --set frame_rate=24 \
    --set output.surface=false --set output.usd=false --out "$tmp/run" >"$tmp/log" 2>&1 ||
    bad "make movie failed: $(tail -3 "$tmp/log")"
got=$(ffprobe -v error -count_frames -select_streams v:0 \
      -show_entries stream=nb_read_frames,r_frame_rate,width,height -of csv=p=0 "$tmp/run/preview.mp4" 2>&1)
if [ "$got" = "800,600,24/1,6" ]; then
    pass "preview.mp4: 800x600, 24 frames per second as the scene says, 6 frames for previews 0-5"
else
    bad "preview.mp4: width,height,rate,frames = $got; expected 800,600,24/1,6"
fi
[ ! -e "$tmp/run/preview.mp4.tmp" ] && pass "no half-written movie left behind" ||
    bad "$tmp/run/preview.mp4.tmp left behind"

# A shorter second call: the 6 previews on disk are not spliced into a 3-frame movie, and a
# scene file newer than the previews makes it run again.
common/movie.sh "$flipsim" scenes/ball_drop.json --quiet --frames 2 --set frame_rate=24 \
    --set output.surface=false --set output.usd=false --out "$tmp/run" >"$tmp/log2" 2>&1 ||
    bad "make movie (second call) failed: $(tail -3 "$tmp/log2")"
got=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames \
      -of csv=p=0 "$tmp/run/preview.mp4" 2>&1)
[ "$got" = 3 ] && pass "--frames 2 after a run of 5: 3 frames, not the 6 previews on disk" ||
    bad "--frames 2 after a run of 5: $got frames, expected 3"
cp scenes/ball_drop.json "$tmp/scene.json"
common/movie.sh "$flipsim" "$tmp/scene.json" --quiet --frames 2 --set output.surface=false \
    --set output.usd=false --out "$tmp/fresh" >/dev/null 2>&1
touch -d '+1 minute' "$tmp/scene.json"
msg=$(common/movie.sh "$flipsim" "$tmp/scene.json" --quiet --frames 2 --set output.surface=false \
      --set output.usd=false --out "$tmp/fresh" 2>&1)
grep -q "older than .* or $tmp/scene.json: running" <<<"$msg" &&
    pass "an edited scene makes make movie run it again" ||
    bad "an edited scene did not make make movie rerun: $msg"
exit $fail
