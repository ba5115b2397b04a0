"""The mass properties of `shape mesh` (a solid of uniform density bounded by a triangle mesh)
against trimesh's, on real meshes: the STL and OBJ files that pybullet ships in `pybullet_data`
(robot links, grippers, toys, convex decompositions), read by trimesh, not by fmu3d.

- `test_closed_meshes_have_trimeshs_mass_properties`: for up to 20 closed STL and 20 closed OBJ
  files spread over the sizes up to 2 MB, the mass, centre of mass and inertia about it that
  `fmu3d check` prints agree with trimesh's `mass_properties` at the same density to 1e-9;
- `test_scale_and_mirror_reach_the_mass_properties`: a `scale` (uniform, and a mirror with
  unequal factors) multiplies the coordinates before the integration;
- `test_convex_decompositions_weigh_their_pieces`: a convex decomposition (`*_vhacd*.obj`, one
  closed piece per `o` object) with `collision = pieces` weighs the sum of its pieces, which
  trimesh weighs one by one;
- `test_several_files_weigh_together`: `files = [a, b]` is one solid of both files' pieces;
- `test_open_meshes_are_refused_with_their_open_edges`: a mesh that bounds no volume (a real open
  file of the package, one with a triangle cut off, one with a triangle turned round) is refused,
  naming the file and its count of open edges, which is the one counted here;
- `test_a_mesh_of_nan_vertices_is_refused`: the package's file of `nan` vertices is refused.

fmu3d welds the corners of a file's triangles that have exactly the same coordinates into one
vertex and drops triangles with two equal corners; it merges no vertices that are merely close.
trimesh is asked for the same: each file is loaded with `process=False` and its triangles welded
here by exact coordinates (`weld`), so that both tools judge the same surface closed. An OBJ file
is one piece per `o` or `g` line for fmu3d (tobj), and each piece must be closed: `obj_pieces`
splits it the same way (racecar/meshes/cone.obj, one closed surface in two open `o` objects, is
closed for trimesh but not for fmu3d, and so left out). trimesh integrates about the origin and
fmu3d about the mean of the vertices, so the two agree to rounding: 2.5e-14 at worst when written
(STL stores float32 and both read the same floats; OBJ decimals are read as float64 by both).
"""

import functools
import hashlib
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from conftest import FMU3D, NUMBER

try:
    import pybullet_data
    import trimesh
except ImportError as missing:  # set-up problem: fail, never skip
    pytest.fail(
        f"{missing}: run `bash scripts/setup.sh --python`, which installs "
        "tests/python/requirements.txt (pybullet for its meshes, trimesh)",
        pytrace=False,
    )

DENSITY = 1000.0  # kg/m3, as the model files write it
#: Relative tolerance of mass, centre (to the mesh's size) and inertia (to its largest principal
#: moment); the errors measured are 2.5e-14 at most.
RTOL = 1e-9
#: Files above this size are left out, to keep the test quick.
MAX_BYTES = 2_000_000
#: Closed files compared per format (STL, OBJ), one from each of as many bins of the size-sorted
#: files, so that small and large meshes are both compared.
PER_FORMAT = 20

DATA = Path(pybullet_data.getDataPath())


# --- The meshes of the package, read the way fmu3d reads them --------------------------------


def weld(triangles):
    """(vertices, faces) of triangles (n, 3, 3): corners with exactly equal coordinates (-0 as +0)
    become one vertex, and triangles with two equal corners are dropped, as fmu3d does."""
    corners = np.asarray(triangles, dtype=float).reshape(-1, 3) + 0.0
    vertices, index = np.unique(corners, axis=0, return_inverse=True)
    faces = index.reshape(-1, 3)
    a, b, c = faces.T
    return vertices, faces[(a != b) & (b != c) & (c != a)]


def open_edges(faces):
    """The undirected edges where the surface is not closed and consistently oriented: every
    directed edge a→b must be met by exactly one b→a (fmu3d's definition: a hole's rim, a
    flipped triangle's three edges, an edge of three triangles all count)."""
    faces = np.asarray(faces, dtype=np.int64)
    if len(faces) == 0:
        return 0
    n = int(faces.max()) + 1
    a = faces.reshape(-1)
    b = faces[:, [1, 2, 0]].reshape(-1)
    directed, count = np.unique(a * n + b, return_counts=True)
    start, end = directed // n, directed % n
    key = np.minimum(start, end) * n + np.maximum(start, end)
    undirected, which = np.unique(key, return_inverse=True)
    forward = np.zeros(len(undirected), dtype=np.int64)
    backward = np.zeros(len(undirected), dtype=np.int64)
    np.add.at(forward, which[start < end], count[start < end])
    np.add.at(backward, which[start > end], count[start > end])
    return int(np.count_nonzero(~((forward == 1) & (backward == 1))))


def obj_pieces(path):
    """The triangles (n, 3, 3) of each piece of an OBJ file as fmu3d (tobj) splits and
    triangulates it: a new piece at every `o` or `g` line after faces, polygons as fans from
    their first corner, negative indices from the end; points and lines are not faces."""
    positions, pieces, current = [], [], []
    for line in path.read_text(errors="replace").splitlines():
        words = line.split()
        if not words:
            continue
        if words[0] == "v":
            positions.append([float(x) for x in words[1:4]])
        elif words[0] in ("o", "g"):
            if current:
                pieces.append(current)
            current = []
        elif words[0] == "f":
            corners = [int(word.split("/")[0]) for word in words[1:]]
            corners = [len(positions) + i if i < 0 else i - 1 for i in corners]
            for k in range(1, len(corners) - 1):
                fan = (corners[0], corners[k], corners[k + 1])
                current.append([positions[i] for i in fan])
    if current:
        pieces.append(current)
    return [np.array(piece, dtype=float) for piece in pieces]


def fmu3d_pieces(path):
    """The triangles of each piece fmu3d makes of the file: an STL file is one piece (trimesh
    reads the same float32 numbers), an OBJ file one per object or group."""
    if path.suffix.lower() == ".obj":
        return obj_pieces(path)
    return [np.asarray(trimesh.load(path, force="mesh", process=False).triangles)]


def trimesh_solid(triangles):
    """A trimesh.Trimesh of the triangles welded by exact coordinates, not processed."""
    return trimesh.Trimesh(*weld(triangles), process=False)


def is_closed_volume(mesh):
    return bool(mesh.is_watertight and mesh.is_winding_consistent and mesh.volume > 0)


def loaded(path):
    """trimesh's mesh of the file: loaded with process=False (every object of an OBJ file
    concatenated), then welded by exact coordinates."""
    return trimesh_solid(trimesh.load(path, force="mesh", process=False).triangles)


@functools.cache
def mesh_files():
    """The package's STL and OBJ files up to MAX_BYTES, smallest first (then by path), without
    the copies of a file that the package ships twice."""
    files = sorted(
        (
            p
            for p in DATA.rglob("*")
            if p.suffix.lower() in (".stl", ".obj") and p.stat().st_size <= MAX_BYTES
        ),
        key=lambda p: (p.stat().st_size, p.relative_to(DATA).as_posix()),
    )
    seen, unique = set(), []
    for path in files:
        digest = hashlib.sha256(path.read_bytes()).digest()
        if digest not in seen:
            seen.add(digest)
            unique.append(path)
    return tuple(unique)


def closed_for_both(path):
    """trimesh sees a closed, consistently wound volume and fmu3d sees every piece closed."""
    pieces = fmu3d_pieces(path)
    if not all(np.isfinite(p).all() for p in pieces):
        return False
    return is_closed_volume(loaded(path)) and all(open_edges(weld(p)[1]) == 0 for p in pieces)


@functools.cache
def closed_files():
    """Up to PER_FORMAT closed files of each format: the files of a format, sorted by size, cut
    into PER_FORMAT bins of equal count, and the smallest file of each bin that both tools see
    closed."""
    chosen = []
    for suffix in (".stl", ".obj"):
        files = [p for p in mesh_files() if p.suffix.lower() == suffix]
        for part in np.array_split(np.arange(len(files)), PER_FORMAT):
            chosen.extend(next(([files[i]] for i in part if closed_for_both(files[i])), []))
    return tuple(chosen)


# --- fmu3d check --------------------------------------------------------------------------


def model(folder, shape, density=True):
    """A model file in `folder` whose object `part`, free from the world (its own body), has the
    shape `shape` and, with `density`, the mass of 1000 kg/m3 (else 1 kg and a unit inertia)."""
    if density:
        mass = f"mass {{ density = {DENSITY:g} kg/m3 }}"
    else:
        mass = "mass { m = 1 kg; inertia = diag(1, 1, 1) kg.m2 }"
    path = folder / "mesh_check.m3d"
    path.write_text(
        'model mesh_check "one mesh part"\n\n'
        f"object part {{\n  {mass}\n  shape mesh {{ {shape} }}\n}}\n"
        "joint j free { from = world; to = part }\n"
    )
    return path


def run_check(path):
    if not FMU3D.is_file():
        pytest.fail(f"{FMU3D} is missing: run `bash scripts/build.sh` first")
    return subprocess.run([str(FMU3D), "check", str(path)], capture_output=True, text=True)


def mass_properties(path):
    """(mass [kg], centre of mass [m], inertia about it [kg m2]) of the body of `part`, as
    `fmu3d check` prints them."""
    run = run_check(path)
    assert run.returncode == 0, f"fmu3d check {path} failed:\n{run.stderr}"
    m = re.search(
        rf"^\s*\d+: \[part\] .*, mass ({NUMBER}) kg\n"
        r"\s*centre of mass \[([^\]]*)\] m, inertia about it \[([^\]]*)\] kg\.m2$",
        run.stdout,
        re.M,
    )
    assert m, f"no mass properties of `part` in:\n{run.stdout}"
    centre = np.array([float(x) for x in m.group(2).split(",")])
    inertia = np.array([[float(x) for x in row.split(",")] for row in m.group(3).split(";")])
    assert centre.shape == (3,) and inertia.shape == (3, 3), m.group(0)
    return float(m.group(1)), centre, inertia


def mesh_check(folder, source, shape_fields=""):
    """fmu3d's mass properties of the mesh file `source` copied into `folder`, at 1000 kg/m3."""
    shutil.copy(source, folder / source.name)
    return mass_properties(model(folder, f'file = "{source.name}"; {shape_fields}'))


def trimesh_properties(mesh):
    """(mass, centre, inertia about the centre in the mesh's axes) of trimesh at 1000 kg/m3."""
    mesh.density = DENSITY
    p = mesh.mass_properties
    return float(p.mass), np.asarray(p.center_mass), np.asarray(p.inertia)


def combined(parts):
    """The mass properties of several solids (mass, centre, inertia about it) as one body:
    masses added, centres weighted, inertias moved to the common centre (Steiner)."""
    mass = sum(m for m, _, _ in parts)
    centre = sum(m * c for m, c, _ in parts) / mass
    inertia = sum(
        i + m * (np.dot(c - centre, c - centre) * np.eye(3) - np.outer(c - centre, c - centre))
        for m, c, i in parts
    )
    return mass, centre, inertia


def errors(actual, expected, size):
    """Relative errors (mass, centre to `size`, inertia to the largest principal moment)."""
    (m, c, i), (m0, c0, i0) = actual, expected
    largest = float(np.max(np.linalg.eigvalsh(i0)))
    return (
        abs(m - m0) / m0,
        float(np.max(np.abs(c - c0))) / size,
        float(np.max(np.abs(i - i0))) / largest,
    )


def assert_agree(what, actual, expected, size):
    mass, centre, inertia = errors(actual, expected, size)
    assert mass <= RTOL, f"{what}: mass {actual[0]!r} kg, trimesh {expected[0]!r} kg"
    assert centre <= RTOL, f"{what}: centre {actual[1]} m, trimesh {expected[1]} m"
    assert inertia <= RTOL, f"{what}: inertia\n{actual[2]}\ntrimesh\n{expected[2]}"
    return mass, centre, inertia


def report(what, error):
    """Prints the relative errors of `errors`."""
    print(f"{what}: errors mass {error[0]:.1e}, centre {error[1]:.1e}, inertia {error[2]:.1e}")


def size_of(mesh):
    """The length of the diagonal of the mesh's bounding box."""
    return float(np.linalg.norm(mesh.extents))


# --- The tests ---------------------------------------------------------------------------


def test_closed_meshes_have_trimeshs_mass_properties(tmp_path):
    files = closed_files()
    stl = [p for p in files if p.suffix.lower() == ".stl"]
    assert len(stl) >= 10 and len(files) - len(stl) >= 10, [str(p.relative_to(DATA)) for p in files]
    worst = np.zeros(3)
    for k, path in enumerate(files):
        mesh = loaded(path)
        folder = tmp_path / f"{k:02d}"
        folder.mkdir()
        what = path.relative_to(DATA)
        expected = trimesh_properties(mesh)
        error = assert_agree(what, mesh_check(folder, path), expected, size_of(mesh))
        report(f"{what} ({path.stat().st_size} bytes, {len(mesh.faces)} triangles)", error)
        worst = np.maximum(worst, error)
    print(
        f"{len(files)} closed meshes ({len(stl)} STL, {len(files) - len(stl)} OBJ) agree with "
        "trimesh: "
        f"worst relative errors mass {worst[0]:.1e}, centre {worst[1]:.1e}, inertia {worst[2]:.1e}"
    )


@pytest.mark.parametrize("scale", [(0.001, 0.001, 0.001), (-1.0, 2.0, 0.5)], ids=["mm", "mirror"])
def test_scale_and_mirror_reach_the_mass_properties(tmp_path, scale):
    """The largest closed STL file of the comparison, scaled: trimesh gets the scaled vertices,
    its triangles turned round when the scale mirrors (an odd number of negative factors)."""
    path = [p for p in closed_files() if p.suffix.lower() == ".stl"][-1]
    vertices, faces = weld(fmu3d_pieces(path)[0])
    if np.prod(scale) < 0:
        faces = faces[:, ::-1]
    mesh = trimesh.Trimesh(vertices * np.array(scale), faces, process=False)
    assert is_closed_volume(mesh)
    written = ", ".join(f"{s:g}" for s in scale)
    actual = mesh_check(tmp_path, path, f"scale = [{written}]")
    what = f"{path.relative_to(DATA)} scaled by {scale}"
    report(what, assert_agree(what, actual, trimesh_properties(mesh), size_of(mesh)))


def decompositions():
    """The convex decompositions of the package (`*vhacd*.obj`) of several pieces, each closed
    for trimesh, which splits the file into the same number of objects as fmu3d."""
    chosen = []
    for path in mesh_files():
        if path.suffix.lower() != ".obj" or "vhacd" not in path.name.lower():
            continue
        pieces = obj_pieces(path)
        scene = trimesh.load(path, process=False, split_objects=True, group_material=False)
        meshes = scene.dump(concatenate=False) if isinstance(scene, trimesh.Scene) else [scene]
        solids = [trimesh_solid(m.triangles) for m in meshes]
        if len(pieces) > 1 and len(solids) == len(pieces) and all(map(is_closed_volume, solids)):
            chosen.append((path, solids))
    return chosen


def test_convex_decompositions_weigh_their_pieces(tmp_path):
    chosen = decompositions()
    assert len(chosen) >= 5, [str(p.relative_to(DATA)) for p, _ in chosen]
    worst = np.zeros(3)
    for k, (path, meshes) in enumerate(chosen):
        folder = tmp_path / f"{k:02d}"
        folder.mkdir()
        actual = mesh_check(folder, path, "collision = pieces")
        volume = sum(float(m.volume) for m in meshes)
        assert abs(actual[0] - DENSITY * volume) <= RTOL * DENSITY * volume, (
            f"{path.relative_to(DATA)}: mass {actual[0]!r} kg, density × the pieces' volumes "
            f"{DENSITY * volume!r} kg"
        )
        whole = combined([trimesh_properties(m) for m in meshes])
        size = size_of(trimesh.util.concatenate(meshes))
        error = assert_agree(path.relative_to(DATA), actual, whole, size)
        report(f"{path.relative_to(DATA)} ({len(meshes)} pieces)", error)
        worst = np.maximum(worst, error)
    print(
        f"{len(chosen)} convex decompositions weigh their pieces: worst relative errors "
        f"mass {worst[0]:.1e}, centre {worst[1]:.1e}, inertia {worst[2]:.1e}"
    )


def test_several_files_weigh_together(tmp_path):
    """`files = [STL, OBJ]`: the smallest closed STL and OBJ files of the comparison, one solid."""
    files = closed_files()
    first = next(p for p in files if p.suffix.lower() == ".stl")
    second = next(p for p in files if p.suffix.lower() == ".obj")
    for path in (first, second):
        shutil.copy(path, tmp_path / path.name)
    actual = mass_properties(model(tmp_path, f'files = ["{first.name}", "{second.name}"]'))
    meshes = [loaded(first), loaded(second)]
    expected = combined([trimesh_properties(m) for m in meshes])
    what = f"files = [{first.name}, {second.name}]"
    size = size_of(trimesh.util.concatenate(meshes))
    report(what, assert_agree(what, actual, expected, size))


def open_cases(folder):
    """(file, the open edges counted here) of meshes that bound no volume: the smallest open STL
    and OBJ files of the package with more than 12 triangles (trimesh finds them open too), and a
    closed OBJ file of the comparison with one triangle cut off and with one turned round, saved
    by trimesh as binary STL."""
    cases = []
    for suffix in (".stl", ".obj"):
        for path in mesh_files():
            if path.suffix.lower() != suffix:
                continue
            pieces = fmu3d_pieces(path)
            if not all(np.isfinite(p).all() for p in pieces):
                continue  # test_a_mesh_of_nan_vertices_is_refused
            count = sum(open_edges(weld(p)[1]) for p in pieces)
            triangles = sum(len(p) for p in pieces)
            if count > 0 and triangles > 12 and not is_closed_volume(loaded(path)):
                shutil.copy(path, folder / path.name)
                cases.append((folder / path.name, count))
                break
    assert len(cases) == 2, cases
    source = next(
        p for p in closed_files() if p.suffix.lower() == ".obj" and len(loaded(p).faces) > 50
    )
    vertices, faces = weld(obj_pieces(source)[0])
    for what, changed in (("cut", faces[1:]), ("flipped", np.vstack([faces[:1, ::-1], faces[1:]]))):
        mesh = trimesh.Trimesh(vertices, changed, process=False)
        assert not is_closed_volume(mesh), what
        path = folder / f"{source.stem}_{what}.stl"
        mesh.export(path)
        cases.append((path, sum(open_edges(weld(p)[1]) for p in fmu3d_pieces(path))))
    return cases


def test_open_meshes_are_refused_with_their_open_edges(tmp_path):
    for path, count in open_cases(tmp_path):
        assert count > 0, path
        run = run_check(model(tmp_path, f'file = "{path.name}"'))
        assert run.returncode != 0, (
            f"{path.name} ({count} open edges) was accepted with a density:\n{run.stdout}"
        )
        message = run.stderr
        assert "open edges" in message and path.name in message, message
        reported = re.search(r"\((\d+) open edges\)", message)
        assert reported and int(reported.group(1)) == count, (
            f"{path.name}: {count} open edges counted here:\n{message}"
        )
        # Without a density the same mesh is a valid shape: the refusal is the mass's alone.
        given = run_check(model(tmp_path, f'file = "{path.name}"', density=False))
        assert given.returncode == 0, f"{path.name} with `m = 1 kg` and an inertia:\n{given.stderr}"
        print(f"{path.name}: refused, {count} open edges: {message.strip().splitlines()[0]}")


def test_a_mesh_of_nan_vertices_is_refused(tmp_path):
    """The package ships an OBJ file whose vertices are all `nan` (random_urdfs/168/168.obj):
    fmu3d refuses it, naming it, with a density and without."""
    broken = [p for p in mesh_files() if not all(np.isfinite(q).all() for q in fmu3d_pieces(p))]
    assert broken, "no mesh file with a vertex that is not a finite number"
    for path in broken:
        shutil.copy(path, tmp_path / path.name)
        for density in (True, False):
            run = run_check(model(tmp_path, f'file = "{path.name}"', density=density))
            assert run.returncode != 0 and path.name in run.stderr, (run.stdout, run.stderr)
        print(f"{path.relative_to(DATA)}: refused: {run.stderr.strip().splitlines()[0]}")
