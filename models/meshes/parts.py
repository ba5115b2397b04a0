#!/usr/bin/env python3
"""Writes the CAD parts of models/parts_drop.m3d, in millimetres, as a CAD tool exports them.

- nut.stl (binary STL): an M8 hexagon nut, 13 mm across flats, 6.5 mm thick, with its 8 mm
  bore (a closed surface of genus one: its mass follows from the solid with the hole, while it
  collides with its convex hull, the hexagonal prism).
- bracket.obj (Wavefront OBJ): an angle bracket of 5 mm plate, 60 mm along each leg and 40 mm
  wide, as two objects (`o base`, `o upright`): the convex pieces a decomposition tool such
  as V-HACD or CoACD would give, for `collision = pieces`.

Only the standard library: `python3 models/meshes/parts.py` writes both files beside it.
"""

import math
import struct
from pathlib import Path

HERE = Path(__file__).parent


def nut_triangles(across_flats=13.0, thickness=6.5, bore=8.0, steps=36):
    """Triangles of the nut, counter-clockwise seen from outside. The outer boundary is sampled
    at the bore's angles (every 10 degrees; the hexagon's corners at multiples of 60 degrees are
    among them), so that each cap is a ring of quads between two loops of equal length."""
    corner = across_flats / math.sqrt(3.0)  # circumradius of the hexagon
    h = thickness / 2.0

    def outer(k):
        angle = 2.0 * math.pi * k / steps
        sector = math.floor(angle / (math.pi / 3.0) + 1e-9)
        a0 = sector * math.pi / 3.0
        a1 = a0 + math.pi / 3.0
        p0 = (corner * math.cos(a0), corner * math.sin(a0))
        p1 = (corner * math.cos(a1), corner * math.sin(a1))
        # Where the ray at `angle` meets the hexagon's side from p0 to p1.
        dx, dy = p1[0] - p0[0], p1[1] - p0[1]
        c, s = math.cos(angle), math.sin(angle)
        t = (p0[0] * s - p0[1] * c) / (dy * c - dx * s)
        return (p0[0] + t * dx, p0[1] + t * dy)

    def inner(k):
        angle = 2.0 * math.pi * k / steps
        return (bore / 2.0 * math.cos(angle), bore / 2.0 * math.sin(angle))

    for k in range(steps):
        n = (k + 1) % steps
        (ox0, oy0), (ox1, oy1) = outer(k), outer(n)
        (ix0, iy0), (ix1, iy1) = inner(k), inner(n)
        # Outer wall, facing out.
        yield (ox0, oy0, -h), (ox1, oy1, -h), (ox1, oy1, h)
        yield (ox0, oy0, -h), (ox1, oy1, h), (ox0, oy0, h)
        # Bore wall, facing the axis.
        yield (ix0, iy0, -h), (ix1, iy1, h), (ix1, iy1, -h)
        yield (ix0, iy0, -h), (ix0, iy0, h), (ix1, iy1, h)
        # Top ring (+z) and bottom ring (-z).
        yield (ix0, iy0, h), (ox0, oy0, h), (ox1, oy1, h)
        yield (ix0, iy0, h), (ox1, oy1, h), (ix1, iy1, h)
        yield (ix0, iy0, -h), (ox1, oy1, -h), (ox0, oy0, -h)
        yield (ix0, iy0, -h), (ix1, iy1, -h), (ox1, oy1, -h)


def write_stl(path, triangles, title):
    faces = list(triangles)
    data = bytearray(title.encode().ljust(80, b" "))
    data += struct.pack("<I", len(faces))
    for a, b, c in faces:
        u = [b[i] - a[i] for i in range(3)]
        v = [c[i] - a[i] for i in range(3)]
        n = (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])
        length = math.sqrt(sum(x * x for x in n))
        data += struct.pack("<12fH", *(x / length for x in n), *a, *b, *c, 0)
    path.write_bytes(data)


def box_obj(name, lo, hi, first):
    """One OBJ object: a box's 8 corners and 6 outward quads; `first` is its first vertex's
    number in the file."""
    lines = [f"o {name}"]
    for i in range(8):
        corner = [hi[a] if (i >> a) & 1 else lo[a] for a in range(3)]
        lines.append("v {:g} {:g} {:g}".format(*corner))
    for quad in ([0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]):
        lines.append("f " + " ".join(str(first + i) for i in quad))
    return lines


def main():
    write_stl(HERE / "nut.stl", nut_triangles(), "fmu3d M8 hexagon nut, mm")
    lines = ["# fmu3d angle bracket, mm: two convex pieces"]
    lines += box_obj("base", (0, 0, -20), (60, 5, 20), 1)
    lines += box_obj("upright", (0, 5, -20), (5, 60, 20), 9)
    (HERE / "bracket.obj").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
