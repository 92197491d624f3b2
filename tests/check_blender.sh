#!/usr/bin/env bash
# check_blender.sh FLIPSIM — Blender imports the liquid surface as it is: a 64³ ball_drop
# (scenes/ball_drop.json at grid.resolution [64,64,64], cell_size 0.125) through its splash,
# frames 12, 14 and 16 of surface/ into Blender (tests/lib/blender_check.py, bmesh): 0
# non-manifold edges and vertices and every triangle of the file. Then two copies of frame 14
# must fail: one with a triangle written twice, one with a fin (a third triangle on an edge).
# flipkit tests/: `make check-blender` (not in make check: Blender's install alone takes minutes;
# the check itself about 45 s); one line per check, non-zero exit on a failure.
set -u
flipsim=${1:?usage: check_blender.sh FLIPSIM}
tmp=build/tmp/blender
rm -rf "$tmp" && mkdir -p "$tmp"
fail=0
pass() { echo "PASS: $1"; }
bad() { echo "FAIL: $1"; fail=1; }
command -v blender >/dev/null || { echo "FAIL: blender is not installed (make deps-blender)"; exit 1; }
start=$(date +%s)

"$flipsim" --quiet --frames 16 --set 'grid.resolution=[64,64,64]' --set grid.cell_size=0.125 \
    --set output.preview=false --set output.particles=false --out "$tmp/run" \
    scenes/ball_drop.json >"$tmp/run.log" 2>&1 || { bad "flipsim: $(tail -3 "$tmp/run.log")"; exit 1; }
frames=("$tmp/run/surface/000012.ply" "$tmp/run/surface/000014.ply" "$tmp/run/surface/000016.ply")

blender_check() {   # FILE... -> blender_check.py's lines on stdout, its exit status
    blender --background --factory-startup --python-exit-code 1 --python tests/lib/blender_check.py -- "$@" 2>&1 |
        grep -E '^(PASS|FAIL): '
    return "${PIPESTATUS[0]}"
}

out=$(blender_check "${frames[@]}"); rc=$?
echo "$out"
if [ $rc = 0 ] && [ "$(grep -c '^PASS: ' <<<"$out")" = 3 ]; then
    pass "Blender imports ball_drop 64³ frames 12, 14, 16: closed manifold, every triangle"
else
    bad "Blender found a defect in ball_drop 64³'s surface (exit $rc)"
fi

# The planted defect: frame 14 with its last triangle once more at the end.
python3 - "${frames[1]}" "$tmp/duplicated.ply" <<'PY'
import re, sys
data = open(sys.argv[1], "rb").read()
end = data.index(b"end_header\n") + len(b"end_header\n")
head = data[:end].decode("ascii")
faces = int(re.search(r"element face (\d+)", head).group(1))
head = head.replace("element face %d" % faces, "element face %d" % (faces + 1))
open(sys.argv[2], "wb").write(head.encode("ascii") + data[end:] + data[-13:])
PY
# And a fin: a new vertex and a triangle on the first triangle's first edge, which then has 3.
python3 - "${frames[1]}" "$tmp/fin.ply" <<'PY'
import re, struct, sys
data = open(sys.argv[1], "rb").read()
end = data.index(b"end_header\n") + len(b"end_header\n")
head = data[:end].decode("ascii")
nv = int(re.search(r"element vertex (\d+)", head).group(1))
nf = int(re.search(r"element face (\d+)", head).group(1))
head = head.replace("element vertex %d" % nv, "element vertex %d" % (nv + 1))
head = head.replace("element face %d" % nf, "element face %d" % (nf + 1))
verts, faces = data[end:end + 12 * nv], data[end + 12 * nv:]
a, b = struct.unpack_from("<ii", faces, 1)
x, y, z = struct.unpack_from("<fff", verts, 12 * a)
fin = struct.pack("<fff", x + 0.05, y + 0.05, z + 0.05)
tri = struct.pack("<Biii", 3, a, b, nv)
open(sys.argv[2], "wb").write(head.encode("ascii") + verts + fin + faces + tri)
PY
for defect in duplicated fin; do
    out=$(blender_check "$tmp/$defect.ply"); rc=$?
    echo "$out"
    if [ $rc != 0 ] && grep -q '^FAIL: ' <<<"$out"; then
        pass "the planted defect ($defect triangle) fails the check"
    else
        bad "the planted defect ($defect triangle) passed (exit $rc)"
    fi
done
echo "check-blender: $(( $(date +%s) - start )) s"
exit $fail
