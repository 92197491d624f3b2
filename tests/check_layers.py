#!/usr/bin/python3
"""check_layers.py — the dependencies run one way: no include from a folder to one it must not
know (common/ never names reference/, the student kit has none), and no circle between files.
flipkit tests/: `make check-layers` runs it on the kit's sources and objects, then --planted.

Usage: check_layers.py OBJ...             the tree's includes, and the calls between OBJ files
       check_layers.py --planted CC OBJ... the same with a wrong-way include, a circle of headers
                                           and a circle of calls planted; each must be caught
A circle between files is either headers that include each other, or objects that call each
other (read with nm: A's undefined symbol defined by B is an arrow A -> B)."""
import os
import re
import subprocess
import sys
import tempfile

# Which folders each folder's files may include from. A folder is the path's first part, but
# tests/lib (the library the suites and the grader share) is a layer of its own.
ALLOWED = {
    "common": {"common"},
    "assignment": {"common"},
    "reference": {"common", "reference"},
    "kernels": {"kernels", "common"},
    "tests/lib": {"common", "tests/lib"},
    "grader": {"common", "grader", "tests/lib"},
    "handout": {"common", "reference", "tests/lib"},
    "maintainer": {"common", "reference", "tests/lib", "maintainer"},
    "tests": {"common", "reference", "grader", "tests", "tests/lib", "assignment"},
}
# Files allowed one more folder, each with its reason.
EXCEPTIONS = {
    ("grader/calibrate.c", "reference"): "the calibration runs the reference on the OpenCL "
                                         "device; the student kit does not ship it",
}
# Circles of calls that are known, each with the issue that removes it. A listed circle that
# is gone is an error too, so the list cannot outlive its circle: delete the line.
KNOWN_CIRCLES = [
]
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def layer(path):
    if path.startswith("tests/lib/"):
        return "tests/lib"
    return path.split("/")[0]


def sources(root):
    """Every C, header and kernel file under root, by its path relative to root."""
    out = {}
    for folder in ALLOWED:
        base = os.path.join(root, folder)
        for d, _, names in os.walk(base):
            if folder == "tests" and os.path.relpath(d, root).startswith("tests/lib"):
                continue
            for n in names:
                if n.endswith((".c", ".h", ".cl")):
                    full = os.path.join(d, n)
                    out[os.path.relpath(full, root)] = full
    return out


def include_graph(files):
    """{path: [included path]} for quoted includes that name a file of the tree (by basename:
    the kit's header names are unique, which this checks too)."""
    by_name, problems = {}, []
    for p in files:
        by_name.setdefault(os.path.basename(p), []).append(p)
    for name, paths in by_name.items():
        if len(paths) > 1 and name.endswith(".h"):
            problems.append("two headers named %s: %s" % (name, ", ".join(sorted(paths))))
    graph = {}
    for p, full in files.items():
        with open(full, encoding="utf-8", errors="replace") as f:
            text = f.read()
        graph[p] = [by_name[os.path.basename(m)][0] for m in INCLUDE.findall(text)
                    if os.path.basename(m) in by_name]
    return graph, problems


def wrong_way(graph):
    out = []
    for p, targets in sorted(graph.items()):
        for t in targets:
            src, dst = layer(p), layer(t)
            if dst not in ALLOWED[src] and (p, dst) not in EXCEPTIONS:
                out.append("%s includes %s: %s/ may include only from %s/" %
                           (p, t, src, "/, ".join(sorted(ALLOWED[src]))))
    return out


def circles(graph):
    """The strongly connected parts of more than one file (Tarjan, iterative)."""
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                part = set()
                while True:
                    w = stack.pop()
                    on.discard(w)
                    part.add(w)
                    if w == v:
                        break
                if len(part) > 1:
                    found.append(part)
    return found


def source_of(obj):
    """build/<dir>/x.o (any build directory) -> <dir>/x.c."""
    parts = os.path.normpath(obj).split(os.sep)
    for i in range(len(parts)):
        if parts[i] in ALLOWED or parts[i] == "tests":
            return "/".join(parts[i:])[:-2] + ".c"
    return obj


def call_graph(objs):
    defined = {source_of(o): set() for o in objs}
    undefined = {source_of(o): set() for o in objs}
    if not objs:
        return {}
    out = subprocess.run(["nm", "-A"] + list(objs), capture_output=True, text=True,
                         check=True).stdout     # one nm for all: "file.o: [value] type symbol"
    for line in out.splitlines():
        obj, _, rest = line.partition(":")
        src, f = source_of(obj), rest.split()
        if len(f) == 3 and f[1] in "TDBRCGV":
            defined[src].add(f[2])
        elif len(f) == 2 and f[0] in "Uw":
            undefined[src].add(f[1])
    owner = {}
    for src, syms in defined.items():
        for s in syms:
            owner.setdefault(s, set()).add(src)
    return {src: sorted({t for s in syms for t in owner.get(s, ()) if t != src})
            for src, syms in undefined.items()}


def check(root, objs, extra_root=None):
    files = sources(root)
    if extra_root:
        files.update(sources(extra_root))
    inc, problems = include_graph(files)
    problems += wrong_way(inc)
    for part in circles(inc):
        problems.append("headers include each other: " + " <-> ".join(sorted(part)))
    calls = call_graph(objs)
    known = [k for k in KNOWN_CIRCLES if k[0] <= set(calls)]   # only those whose objects came
    listed = list(known)
    for part in circles(calls):
        match = [k for k in known if k[0] == part]
        if match:
            known.remove(match[0])
            continue
        problems.append("files call each other: " + " <-> ".join(sorted(part)))
    for part, why in known:
        problems.append("the known circle %s is gone (%s): delete its line from "
                        "KNOWN_CIRCLES in tests/check_layers.py" % (" <-> ".join(sorted(part)), why))
    return problems, len(files), len(objs), listed


def planted(cc, objs):
    """Each plant alone in a scratch tree beside the kit's; each must be reported."""
    plants = {
        "a wrong-way include": {"common/planted_wrong.c": '#include "reference.h"\n'},
        "a circle of headers": {"common/planted_a.h": '#include "planted_b.h"\n',
                                "common/planted_b.h": '#include "planted_a.h"\n'},
        "a circle of calls": {"common/planted_ping.c": "void planted_pong(int n);\n"
                              "void planted_ping(int n);\n"
                              "void planted_ping(int n) { if (n) planted_pong(n - 1); }\n",
                              "common/planted_pong.c": "void planted_ping(int n);\n"
                              "void planted_pong(int n);\n"
                              "void planted_pong(int n) { if (n) planted_ping(n - 1); }\n"},
    }
    fail = 0
    for what, plant in plants.items():
        with tempfile.TemporaryDirectory() as tmp:
            extra = []
            for rel, text in plant.items():
                os.makedirs(os.path.join(tmp, os.path.dirname(rel)), exist_ok=True)
                with open(os.path.join(tmp, rel), "w") as f:
                    f.write(text)
                if what == "a circle of calls":
                    o = os.path.join(tmp, "build", rel[:-2] + ".o")
                    os.makedirs(os.path.dirname(o), exist_ok=True)
                    subprocess.run([cc, "-c", os.path.join(tmp, rel), "-o", o], check=True)
                    extra.append(o)
            problems, _, _, _ = check(".", objs + extra, tmp if what != "a circle of calls" else None)
            caught = [p for p in problems if "planted" in p]
            if caught:
                print("check-layers: planted %s caught: %s" % (what, caught[0]))
            else:
                print("FAIL check-layers: planted %s was not caught" % what)
                fail = 1
    return fail


def main(argv):
    if len(argv) > 2 and argv[1] == "--planted":
        return planted(argv[2], argv[3:])
    problems, nfiles, nobjs, listed = check(".", argv[1:])
    for p in problems:
        print("FAIL check-layers: " + p)
    if problems:
        return 1
    print("check-layers: %d files include only from the folders they may, no header circle; "
          "%d objects call in no circle%s" % (nfiles, nobjs, "".join(
              " but %s (%s)" % (" <-> ".join(sorted(k[0])), k[1]) for k in listed)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
