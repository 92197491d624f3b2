#!/bin/sh
# check_suites.sh — proves the stage suites can fail: they pass on the reference, fail (not
# crash) on the untouched stubs, and each fails only for its own stage when that one stage is
# the stub. flipkit tests/: `make check-suites` runs it. Usage: check_suites.sh BIN...
set -u
log=$(mktemp) || exit 1
xml=$(mktemp) || exit 1
trap 'rm -f "$log" "$xml"' EXIT
bad=0
# Counts from Check's XML record of every test (as run_suites.sh reads them): success,
# failure, error (a crash or a timeout); "" when the suite did not finish its record.
run() { : > "$xml"; CK_XML_LOG_FILE_NAME=$xml "$@" >"$log" 2>&1; }
finished() { grep -q '</testsuites>' "$xml"; }
count() { grep -o "result=\"$1\"" "$xml" | wc -l; }

# 1. the reference passes every suite
if tests/run_suites.sh reference "$@" >"$log" 2>&1; then
    echo "PASS reference: all $# suites pass"
else
    cat "$log"; echo "FAIL reference: the reference does not pass its own suites"; bad=1
fi

# 2. the stubs fail every suite, with failures a student can read rather than crashes
for bin in "$@"; do
    stage=${bin##*/test_}
    FLIPKIT_TRACK=student run "$bin"
    rc=$?
    if ! finished; then
        echo "FAIL stub $stage: the suite did not finish (exit $rc)"; bad=1; continue
    fi
    failures=$(count failure); errors=$(count error); checks=$((failures + errors + $(count success)))
    first=$(grep -m 1 -E ':F:' "$log" | sed -E 's/^[^:]*:[0-9]+:F:[^:]*:([^:]*):[0-9]+: /\1: /' | cut -c1-110)
    if [ "$rc" -ne 0 ] && [ "$failures" -gt 0 ] && [ "$errors" -eq 0 ]; then
        echo "PASS stub $stage: $failures of $checks checks fail, none crash; e.g. $first"
    else
        echo "FAIL stub $stage: exit $rc, $failures failures, $errors errors (crashes or timeouts)"; bad=1
    fi
done

# 3. isolation: the stub for one stage, the reference for the other seven
for sbin in "$@"; do
    s=${sbin##*/test_}
    wrong=""
    for bin in "$@"; do
        t=${bin##*/test_}
        FLIPKIT_TRACK=reference FLIPKIT_STUDENT_STAGES=$s run "$bin"
        rc=$?
        if [ "$t" = "$s" ]; then
            [ "$rc" -ne 0 ] && finished && [ "$(count error)" -eq 0 ] || wrong="$wrong $t(should fail)"
        else
            [ "$rc" -eq 0 ] || wrong="$wrong $t(should pass)"
        fi
    done
    if [ -z "$wrong" ]; then
        echo "PASS isolation $s: stub $s + reference for the rest fails suite $s only"
    else
        echo "FAIL isolation $s:$wrong"; bad=1
    fi
done
[ "$bad" -eq 0 ] && echo "check-suites: all passed"
exit "$bad"
