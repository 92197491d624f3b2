#!/usr/bin/env bash
# setup.sh — Gradescope runs this once, as root, when it builds the autograder's image: the
# packages the grader needs from Ubuntu's apt, then the grader, its kit and the reference's data.
# flipkit grader/gradescope/: `make gradescope` puts it at the root of autograder.zip.
#
# FLIPKIT_GRADESCOPE_ROOT  the autograder's root [/autograder]; the zip is unpacked in its source/
# FLIPKIT_GRADESCOPE_NO_APT=1  never run apt-get: with a package missing, say which and stop
#                          (make check-gradescope sets it; with every package present apt-get
#                          is not run in any case)
set -euo pipefail
root=${FLIPKIT_GRADESCOPE_ROOT:-/autograder}
cd "$root/source"

# What building and running the grader needs (a subset of DEB_PKGS in the kit's Makefile: no
# clang, oclgrind, PoCL or Python; the reference's data is made on the CPU track).
pkgs=(build-essential make pkg-config check libjansson-dev libpng-dev libconfig-dev
      libarchive-dev ocl-icd-opencl-dev opencl-headers)
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
    echo "setup.sh: every package the grader needs is installed; apt-get not run"
elif [ "${FLIPKIT_GRADESCOPE_NO_APT:-}" = 1 ]; then
    echo "setup.sh: missing packages: ${missing[*]}; not installing them (FLIPKIT_GRADESCOPE_NO_APT=1)" >&2
    exit 1
else
    echo "setup.sh: installing ${missing[*]}"
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
fi

# The grader, the objects it links student code with, and the reference's hidden and public
# cases and frames: once, here, so each submission only grades.
make -j"$(nproc)" grade-kit grade-data
echo "setup.sh: the grader is built in $root/source/build"
