#!/usr/bin/env bash
# check_viewer.sh FLIPSIM — `make view`'s page in headless Chromium on two small runs and one 64³ frame.
# flipkit tests/: run by `make check`; installs Debian's chromium when missing, and when it cannot, says
# the viewer test was skipped and why, and exits 0. Otherwise tests/viewer_test.mjs's lines and its exit.
set -u
flipsim=${1:?usage: check_viewer.sh FLIPSIM}
tmp=build/tmp/viewer
modules=build/viewer-test/node_modules

skip() { echo "SKIP: the viewer test was skipped: $1"; exit 0; }

rm -rf "$tmp" && mkdir -p "$tmp/shots"
. tests/lib/browser.sh && browser_ready check-viewer "$tmp"

# Two runs of a 16³ ball drop onto a block, 4 frames: the same seeding, FLIP against PIC, so
# frame 0 is the same in both and later frames part. Surface and diffuse particles on.
small=(--quiet --device cpu --frames 4 --set 'grid.resolution=[16,16,16]' --set grid.cell_size=0.5
       --set 'solids=[{"box": {"min": [5, 0, 5], "max": [7.5, 2, 7.5]}}]'
       --set output.surface=true --set output.diffuse=true --set output.preview=false)
"$flipsim" "${small[@]}" --out "$tmp/a" scenes/ball_drop.json || { echo "FAIL: flipsim run a"; exit 1; }
"$flipsim" "${small[@]}" --set pic_flip_alpha=1 --out "$tmp/b" scenes/ball_drop.json ||
    { echo "FAIL: flipsim run b"; exit 1; }
# ball_drop at 64³: frame 0 is the seeding alone (463 K particles), frame 1 one simulated frame.
"$flipsim" --quiet --frames 1 --set 'grid.resolution=[64,64,64]' --set grid.cell_size=0.125 \
    --set output.preview=false --out "$tmp/big" scenes/ball_drop.json || { echo "FAIL: flipsim run big"; exit 1; }

node tests/viewer_test.mjs --modules "$modules" --chromium "$browser" --shots "$tmp/shots" \
    --run "$tmp/a" --vs "$tmp/b" --big "$tmp/big"
