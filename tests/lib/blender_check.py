"""blender_check.py — run inside Blender: imports each PLY named after "--" and checks it with
bmesh: no non-manifold edge or vertex (Blender's own test, as Select > Non Manifold uses it) and
as many faces, all triangles, as the file's header says. flipkit tests/lib/: check_blender.sh
runs it (blender --background --python THIS -- FILE...); one line per file,
"PASS:" or "FAIL:", and exit status 1 when any file fails."""
import sys

import bmesh
import bpy


def header_counts(path):
    """The vertex and face counts of a PLY file's header."""
    counts = {}
    with open(path, "rb") as f:
        for raw in f:
            line = raw.decode("ascii", "replace").split()
            if line[:1] == ["element"] and len(line) == 3:
                counts[line[1]] = int(line[2])
            if line[:1] == ["end_header"]:
                break
    return counts.get("vertex", -1), counts.get("face", -1)


def import_ply(path):
    """The mesh object Blender makes of path, by whichever PLY importer this Blender has."""
    bpy.ops.object.select_all(action="DESELECT")
    if "ply_import" in dir(bpy.ops.wm):            # Blender 3.6 and later
        bpy.ops.wm.ply_import(filepath=path)
    else:                                          # the Python importer before it
        bpy.ops.import_mesh.ply(filepath=path)
    return bpy.context.selected_objects[0]


def check(path):
    nverts, nfaces = header_counts(path)
    obj = import_ply(path)
    bm = bmesh.new()
    bm.from_mesh(obj.data)
    bad_edges = sum(1 for e in bm.edges if not e.is_manifold)
    bad_verts = sum(1 for v in bm.verts if not v.is_manifold)
    tris = sum(1 for f in bm.faces if len(f.verts) == 3)
    faces = len(bm.faces)
    bm.free()
    bpy.data.objects.remove(obj, do_unlink=True)
    ok = bad_edges == 0 and bad_verts == 0 and faces == nfaces and tris == faces and nfaces > 0
    print("%s: %s: %d faces imported of %d in the file (%d triangles), %d vertices in the file, "
          "%d non-manifold edges, %d non-manifold vertices" %
          ("PASS" if ok else "FAIL", path, faces, nfaces, tris, nverts, bad_edges, bad_verts))
    return ok


def main():
    files = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    if not files:
        print("FAIL: blender_check.py: no PLY files given after --")
        sys.exit(1)
    results = [check(p) for p in files]
    sys.exit(0 if all(results) else 1)


main()
