#!/bin/sh
# movie.sh FLIPSIM SCENE [FLIPSIM ARGS...] — joins a run's previews into OUT/preview.mp4 (ffmpeg).
# flipkit common/: `make movie` in the kit and the student kit; runs the scene first when it
# has no previews yet. Exit 0 done, 1 no ffmpeg or ffmpeg failed, 2 bad scene or options.
set -u
flipsim=${1:?usage: movie.sh FLIPSIM SCENE [ARGS...]}
scene=${2:?usage: movie.sh FLIPSIM SCENE [ARGS...]}
shift 2
# flipsim answers these itself, so --out and --set in ARGS count and no JSON is parsed here.
out=$("$flipsim" "$@" --print out "$scene") || exit 2
fps=$("$flipsim" "$@" --print frame_rate "$scene") || exit 2
if ! command -v ffmpeg >/dev/null 2>&1; then
    echo "make movie: ffmpeg is not installed (sudo apt-get install ffmpeg); the previews are" \
         "the PNGs in $out/preview/" >&2
    exit 1
fi
if [ ! -f "$out/preview/000000.png" ]; then
    echo "make movie: no previews in $out/preview/ yet: running $scene with output.preview on"
    "$flipsim" "$@" --set output.preview=true "$scene" || exit $?
fi
frames=$(ls "$out/preview" | grep -c '^[0-9]\{6\}\.png$')
# Written beside and renamed, so an interrupted encode never leaves a half movie.
if ! ffmpeg -nostdin -y -loglevel error -framerate "$fps" -i "$out/preview/%06d.png" \
        -c:v libx264 -pix_fmt yuv420p -crf 20 -f mp4 "$out/preview.mp4.tmp"; then
    rm -f "$out/preview.mp4.tmp"
    echo "make movie: ffmpeg could not encode $out/preview/%06d.png (its message is above)" >&2
    exit 1
fi
mv "$out/preview.mp4.tmp" "$out/preview.mp4"
echo "make movie: $out/preview.mp4, $frames frames at $fps frames per second"
