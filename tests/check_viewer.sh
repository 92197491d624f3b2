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
browser=$(command -v chromium || true)
if [ -z "$browser" ]; then
    if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
        skip "chromium is not installed and this is not root on Debian (apt-get install chromium)"
    fi
    echo "check-viewer: installing chromium (Debian's package) for this test"
    # under a lock: check-viewer and check-class may both install it at once under make -j2
    flock -w 900 /tmp/flipkit-apt.lock sh -c 'apt-get update -qq &&
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null' 2>"$tmp/apt.log" ||
        skip "apt-get could not install chromium: $(tail -1 "$tmp/apt.log")"
    browser=$(command -v chromium) || skip "chromium installed but not on PATH"
fi
common/viewer/setup.sh build/viewer-test --dev >/dev/null ||
    skip "npm ci could not install three and playwright-core (see above)"
# make view itself runs on Debian 12's node 18; the test's playwright-core needs 20.
node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 20 ? 0 : 1)' ||
    skip "node $(node --version) is older than 20, which playwright-core (the test's driver) needs"

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
