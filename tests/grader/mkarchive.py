#!/usr/bin/env python3
# mkarchive.py — the eight stage files of a directory as one archive, honest or with a lie in it.
# flipkit tests/grader/: make check-grader grades these (the intake must refuse the lie by name
# and grade the rest), and the intake's fuzz seeds (tests/tests.mk) start from them.
# Usage: mkarchive.py OUT SRCDIR [--realsize STAGE=N] [--oversize STAGE]
#   OUT ends in .tar (pax), .tar.gz, .tgz or .zip; entries are assignment/<stage>.c from SRCDIR.
#   --realsize STAGE=N: the entry's pax header says SCHILY.realsize=N (libarchive's size for it)
#   --oversize STAGE:   the entry is padded with a comment to 2 MiB, past the intake's 1 MiB
import argparse
import io
import sys
import tarfile
import zipfile

STAGES = "advect gravity p2g g2p divergence laplacian jacobi gradient".split()


def contents(src, oversize):
    files = {}
    for s in STAGES:
        with open(f"{src}/{s}.c", "rb") as f:
            files[s] = f.read()
    if oversize:
        files[oversize] += b"/*" + b" " * (2 << 20) + b"*/\n"
    return files


def write_tar(out, files, realsize):
    mode = "w:gz" if out.endswith((".tar.gz", ".tgz")) else "w"
    with tarfile.open(out, mode, format=tarfile.PAX_FORMAT) as t:
        for s, data in files.items():
            info = tarfile.TarInfo(f"assignment/{s}.c")
            info.size, info.mode, info.mtime = len(data), 0o644, 0
            if s in realsize:
                info.pax_headers = {"SCHILY.realsize": realsize[s]}
            t.addfile(info, io.BytesIO(data))


def write_zip(out, files):
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for s, data in files.items():
            z.writestr(f"assignment/{s}.c", data)


def main():
    p = argparse.ArgumentParser(description="the stage files of SRCDIR as an archive")
    p.add_argument("out")
    p.add_argument("src")
    p.add_argument("--realsize", action="append", default=[], metavar="STAGE=N")
    p.add_argument("--oversize", metavar="STAGE", choices=STAGES)
    a = p.parse_args()
    realsize = dict(r.split("=", 1) for r in a.realsize)
    if not set(realsize) <= set(STAGES):
        sys.exit(f"mkarchive.py: --realsize names no stage: {a.realsize}")
    files = contents(a.src, a.oversize)
    if a.out.endswith(".zip"):
        if realsize:
            sys.exit("mkarchive.py: --realsize is a tar (pax) header; not for a .zip")
        write_zip(a.out, files)
    elif a.out.endswith((".tar", ".tar.gz", ".tgz")):
        write_tar(a.out, files, realsize)
    else:
        sys.exit(f"mkarchive.py: {a.out}: expected a name ending in .tar, .tar.gz, .tgz or .zip")


if __name__ == "__main__":
    main()
