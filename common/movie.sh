#!/bin/sh
# movie.sh FLIPSIM SCENE [FLIPSIM ARGS...] — joins a run's previews into OUT/preview.mp4 (ffmpeg).
# flipkit common/: `make movie` in the kit and the student kit; runs the scene first when its
# previews are missing or older than the scene file or flipsim. ARGS are flipsim's (--frames,
# --out, --set, ...; not --resume: the scene is given). Exit 0 done, 1 no ffmpeg or it failed,
# 2 bad scene or options, 3 the run produced NaN/Inf (as flipsim).
set -u
flipsim=${1:?usage: movie.sh FLIPSIM SCENE [ARGS...]}
scene=${2:?usage: movie.sh FLIPSIM SCENE [ARGS...]}
shift 2
# flipsim answers these itself, so --out, --frames and --set in ARGS count and no JSON is
# parsed here.
out=$("$flipsim" "$@" --print out "$scene") || exit 2
fps=$("$flipsim" "$@" --print frame_rate "$scene") || exit 2
last=$("$flipsim" "$@" --print last_frame "$scene") || exit 2
if ! command -v ffmpeg >/dev/null 2>&1; then
    echo "make movie: ffmpeg is not installed (sudo apt-get install ffmpeg); the previews are" \
         "the PNGs in $out/preview/" >&2
    exit 1
fi
first_png="$out/preview/000000.png"
last_png=$(printf '%s/preview/%06d.png' "$out" "$last")
why=""
if [ ! -f "$first_png" ] || [ ! -f "$last_png" ]; then
    why="no previews of frames 0-$last in $out/preview/ yet"
elif [ "$flipsim" -nt "$first_png" ] || [ "$scene" -nt "$first_png" ]; then
    why="the previews in $out/preview/ are older than $flipsim or $scene"
fi
if [ -n "$why" ]; then
    echo "make movie: $why: running $scene with output.preview on"
    "$flipsim" "$@" --set output.preview=true "$scene" || exit $?
fi
# Frames 0..last only: a longer earlier run may have left more previews behind.
frames=$((last + 1))
# Written beside and renamed, so an interrupted encode never leaves a half movie.
if ! ffmpeg -nostdin -y -loglevel error -framerate "$fps" -i "$out/preview/%06d.png" \
        -frames:v "$frames" -c:v libx264 -pix_fmt yuv420p -crf 20 -f mp4 "$out/preview.mp4.tmp"; then
    rm -f "$out/preview.mp4.tmp"
    echo "make movie: ffmpeg could not encode $out/preview/%06d.png (its message is above)" >&2
    exit 1
fi
mv "$out/preview.mp4.tmp" "$out/preview.mp4"
echo "make movie: $out/preview.mp4, $frames frames at $fps frames per second"
