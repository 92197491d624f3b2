#!/bin/sh
# setup.sh DIR [--dev] — node, npm and the viewer's npm packages (three; with --dev, playwright-core too) in DIR/node_modules.
# flipkit common/viewer/: `make view` runs it first (DIR build/viewer), the kit's viewer test with
# --dev; `npm ci` installs exactly package-lock.json, and runs again only when the lockfile changes.
set -u
dir=${1:?usage: setup.sh DIR [--dev]}
dev=${2:-}
here=$(dirname "$0")

# One setup at a time per DIR: make check runs check-viewer and check-class side by side, and two
# npm ci (or two apt-get) in one place at once break each other. The second waits, then finds
# the first one's stamp.
mkdir -p "$(dirname "$dir")" || exit 1
if command -v flock >/dev/null 2>&1; then
    exec 9>"$dir.lock" && flock -w 900 9 || { echo "make view: $dir is being set up by another run (waited 15 min)" >&2; exit 1; }
fi

# Debian's nodejs and npm when they are missing, as `make deps` installs system packages.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1; then
        if [ "$(id -u)" = 0 ]; then sudo=""; else sudo="sudo"; fi
        echo "make view: installing nodejs and npm"
        echo "+ $sudo apt-get update -qq && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm"
        { $sudo apt-get update -qq && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null; } ||
            { echo "make view: apt-get failed; install nodejs (18 or later) and npm by hand" >&2; exit 1; }
    else
        echo "make view: node and npm are missing: install Node.js 18 or later with npm" >&2
        exit 1
    fi
fi

stamp="$dir/node_modules/.flipkit-installed$dev"
if [ -f "$stamp" ] && [ ! "$here/package-lock.json" -nt "$stamp" ]; then
    exit 0
fi
mkdir -p "$dir" && cp "$here/package.json" "$here/package-lock.json" "$dir/" || exit 1
omit="--omit=dev"
[ "$dev" = --dev ] && omit=""
echo "make view: npm ci in $dir (the versions common/viewer/package-lock.json pins)"
# playwright-core drives the system's chromium: it must not fetch a browser of its own.
if ! (cd "$dir" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci $omit --no-audit --no-fund --loglevel=error); then
    echo "make view: npm ci failed in $dir (is the npm registry reachable?)" >&2
    exit 1
fi
rm -f "$dir"/node_modules/.flipkit-installed*
touch "$stamp"
