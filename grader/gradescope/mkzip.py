#!/usr/bin/env python3
"""mkzip.py — build/gradescope/autograder.zip: the kit's files and, at the zip's root,
setup.sh and run_autograder, as Gradescope's autograder specification wants them.
flipkit grader/gradescope/: `make gradescope` runs it with the kit's files (git ls-files -z)
on stdin; the entries are sorted and dated 1980-01-01, so the same kit makes the same bytes."""
import os
import sys
import zipfile

ROOT_FILES = {"setup.sh": "grader/gradescope/setup.sh",
              "run_autograder": "grader/gradescope/run_autograder"}
EPOCH = (1980, 1, 1, 0, 0, 0)


def add(z, name, path):
    with open(path, "rb") as f:
        data = f.read()
    info = zipfile.ZipInfo(name, EPOCH)
    mode = 0o755 if os.stat(path).st_mode & 0o111 else 0o644
    info.external_attr = (0o100000 | mode) << 16    # a regular file with its mode, as unzip reads it
    info.create_system = 3                           # Unix, so unzip takes that mode
    info.compress_type = zipfile.ZIP_DEFLATED
    z.writestr(info, data)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: mkzip.py OUT.zip < NUL-separated file list")
    files = sorted(p for p in sys.stdin.buffer.read().decode().split("\0") if p)
    missing = [p for p in files if not os.path.isfile(p)]
    if missing:
        sys.exit(f"mkzip.py: {missing[0]}: listed by git but not in the work tree "
                 f"({len(missing)} such); commit or restore it (nothing written)")
    out = sys.argv[1]
    tmp = out + ".tmp"
    with zipfile.ZipFile(tmp, "w") as z:
        for name, path in ROOT_FILES.items():
            add(z, name, path)
        for p in files:
            if p not in ROOT_FILES:
                add(z, p, p)
    os.replace(tmp, out)
    print(f"make gradescope: {out}: {len(files) + len(ROOT_FILES)} files; upload it as the "
          f"autograder of a Gradescope programming assignment (grader/README.md, Gradescope)")


main()
