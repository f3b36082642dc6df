"""Collision meshes read without trimesh (``model/mesh_vertices.py``) and hulled on first use.

Checked against trimesh (the reader ``ConvexMesh.from_file`` used for every format before):
the hulls of example-robot-data's STL and OBJ meshes are the same arrays; hand-written
ASCII STL and OBJ files (negative indices, a vertex no face uses); and a robot loaded for its
dynamics imports neither trimesh nor scipy.spatial (their imports were about 1 s of
``load_urdf``), in a fresh process.
"""
import glob
import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

import multibody as mb
from multibody.model.mesh_vertices import mesh_vertices
from multibody.model.shapes import _hull_vertices
from robots import robot_urdf, robots_dir

trimesh = pytest.importorskip("trimesh")


def _trimesh_hull(path):
    mesh = trimesh.load(path, force="mesh", process=False)
    v = np.asarray(mesh.vertices, dtype=float)
    return _hull_vertices(v[trimesh.grouping.unique_rows(v)[0]], path)


def _robot_meshes(n):
    """n STL/OBJ files of example-robot-data spread over its robots (every 8th, sorted)."""
    files = sorted(p for p in glob.glob(os.path.join(robots_dir(), "**", "*"), recursive=True)
                   if os.path.splitext(p)[1].lower() in (".stl", ".obj") and os.path.getsize(p) < 2_000_000)
    return files[::max(1, len(files) // n)][:n]


def test_robot_meshes_give_trimeshs_hulls():
    files = _robot_meshes(40)
    kinds = set()
    for p in files:
        with open(p, "rb") as f:
            kinds.add(os.path.splitext(p)[1].lower() + (" ascii" if f.read(5) == b"solid" else ""))
        ours = _hull_vertices(mesh_vertices(p), p)
        np.testing.assert_array_equal(ours, _trimesh_hull(p), err_msg=p)
    assert {".stl", ".obj"} <= {k.split()[0] for k in kinds}


def test_ascii_stl_and_obj(tmp_path):
    cube = np.array([[x, y, z] for x in (0, 1) for y in (0, 2) for z in (0, 3)], dtype=float)
    tris = [(0, 1, 3), (0, 3, 2), (4, 6, 7), (4, 7, 5), (0, 4, 5), (0, 5, 1),
            (2, 3, 7), (2, 7, 6), (0, 2, 6), (0, 6, 4), (1, 5, 7), (1, 7, 3)]
    stl = ["solid cube"] + [f"facet normal 0 0 0\n outer loop\n" + "".join(
        f"  vertex {cube[i][0]:.17g} {cube[i][1]:.17g} {cube[i][2] + 1e-10 * (k % 2):.17g}\n" for i in t)
        + " endloop\nendfacet" for k, t in enumerate(tris)] + ["endsolid cube"]
    (tmp_path / "cube.stl").write_text("\n".join(stl))
    obj = ["# cube", "v 9 9 9"] + [f"v {x} {y} {z}" for x, y, z in cube] + ["vt 0 0", "vn 0 0 1"]
    obj += [f"f {a + 2}/1/1 {b + 2}//1 {c - 8}" for a, b, c in tris]  # 1-based, and counted back
    (tmp_path / "cube.obj").write_text("\n".join(obj))
    for name in ("cube.stl", "cube.obj"):
        p = str(tmp_path / name)
        v = mesh_vertices(p)
        assert len(v) == 8, name  # 1e-10 apart is one vertex; "v 9 9 9" is no face's
        np.testing.assert_allclose(_hull_vertices(v, p), np.unique(cube, axis=0), rtol=0, atol=2e-10, err_msg=name)
        if name.endswith(".stl"):  # (trimesh's OBJ reader keeps 5 of this cube's corners)
            np.testing.assert_array_equal(_hull_vertices(v, p), _trimesh_hull(p), err_msg=name)
        mesh = mb.ConvexMesh.from_file(p, scale=2.0)
        moved = pickle.loads(pickle.dumps(mb.ConvexMesh.from_file(p, scale=2.0)))  # (its hull not made yet)
        os.rename(p, p + ".gone")  # the process that unpickles it need not see the file
        np.testing.assert_allclose(mesh.vertices.max(axis=0), [2, 4, 6], atol=1e-9)
        assert np.array_equal(moved.vertices, mesh.vertices) and moved == mesh


def test_flat_and_broken_meshes_are_refused_at_load(tmp_path):
    (tmp_path / "flat.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 1 2 3\nf 2 4 3\n")
    with pytest.raises(ValueError, match="flat.obj: degenerate mesh"):
        mb.ConvexMesh.from_file(str(tmp_path / "flat.obj"))
    (tmp_path / "bad.stl").write_bytes(b"\x00" * 90)
    with pytest.raises(ValueError, match="bad.stl"):
        mb.ConvexMesh.from_file(str(tmp_path / "bad.stl"))


def test_dynamics_load_imports_no_mesh_library():
    code = (f"import sys, multibody as mb; m = mb.load_urdf({robot_urdf('ur5')!r}); c = m.compiled; "
            "assert c.contact.n_shapes == 8; "
            "print('trimesh' in sys.modules, 'scipy.spatial' in sys.modules); "
            "v = c.contact.verts; print('scipy.spatial' in sys.modules, len(v))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "False", "True", "1076"], out
