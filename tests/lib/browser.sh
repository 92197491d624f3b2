# browser.sh — sourced by the page checks (check_viewer.sh, check_class.sh): Debian's chromium
# (installed when missing, as root) and playwright-core from common/viewer's lockfile.
# flipkit tests/lib/: browser_ready WHO TMPDIR sets $browser, or calls the caller's skip().
browser_ready() {
    browser=$(command -v chromium || true)
    if [ -z "$browser" ]; then
        if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
            skip "chromium is not installed and this is not root on Debian (apt-get install chromium)"
        fi
        echo "$1: installing chromium (Debian's package) for this test"
        # under a lock: check-viewer and check-class may both install it at once under make -j2
        flock -w 900 /tmp/flipkit-apt.lock sh -c 'apt-get update -qq &&
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null' 2>"$2/apt.log" ||
            skip "apt-get could not install chromium: $(tail -1 "$2/apt.log")"
        browser=$(command -v chromium) || skip "chromium installed but not on PATH"
    fi
    common/viewer/setup.sh build/viewer-test --dev >/dev/null ||
        skip "npm ci could not install three and playwright-core (see above)"
    # make view itself runs on Debian 12's node 18; playwright-core, the tests' driver, needs 20.
    node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 20 ? 0 : 1)' ||
        skip "node $(node --version) is older than 20, which playwright-core (the test's driver) needs"
}
