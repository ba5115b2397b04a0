"""A small animated glTF 2.0 binary written from scratch (the glTF 2.0 specification's GLB
layout: a 12-byte header, a JSON chunk, a BIN chunk), independent of fmu3d: coloured boxes,
each a node named after its body, some moved by LINEAR translation and rotation channels.

    write_boxes(path, boxes, times)

`boxes`: a list of dicts with `name`, `size` (x, y, z), `colour` (r, g, b in 0..1) and either
`translation` (a fixed position) or `translations` (one position per time), and optionally
`rotations` (one quaternion x, y, z, w per time).
"""

import json
import struct


def _box(size):
    """Positions, normals (24 vertices, 4 per face) and 36 triangle indices of a box."""
    hx, hy, hz = (s / 2 for s in size)
    positions, normals, indices = [], [], []
    for axis in range(3):
        for sign in (-1.0, 1.0):
            normal = [0.0, 0.0, 0.0]
            normal[axis] = sign
            u, v = [a for a in range(3) if a != axis]
            base = len(positions)
            corners = [(-1, -1), (1, -1), (1, 1), (-1, 1)]
            for cu, cv in corners:
                p = [0.0, 0.0, 0.0]
                p[axis] = sign
                p[u] = cu
                p[v] = cv
                positions.append((p[0] * hx, p[1] * hy, p[2] * hz))
                normals.append(tuple(normal))
            # Counter-clockwise seen from outside: the triangle's normal points along the face's.
            a, b, c = (positions[base + k] for k in range(3))
            e1 = [b[k] - a[k] for k in range(3)]
            e2 = [c[k] - a[k] for k in range(3)]
            cross = [e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                     e1[0] * e2[1] - e1[1] * e2[0]]
            if cross[axis] * sign > 0:
                indices += [base, base + 1, base + 2, base, base + 2, base + 3]
            else:
                indices += [base, base + 2, base + 1, base, base + 3, base + 2]
    return positions, normals, indices


class _Buffer:
    def __init__(self):
        self.data = bytearray()
        self.views = []
        self.accessors = []

    def add(self, fmt, rows, component, kind, target=None, bounds=False):
        while len(self.data) % 4:
            self.data.append(0)
        offset = len(self.data)
        for row in rows:
            self.data += struct.pack("<" + fmt * (len(row) if isinstance(row, tuple) else 1),
                                     *(row if isinstance(row, tuple) else (row,)))
        view = {"buffer": 0, "byteOffset": offset, "byteLength": len(self.data) - offset}
        if target is not None:
            view["target"] = target
        self.views.append(view)
        accessor = {"bufferView": len(self.views) - 1, "componentType": component,
                    "count": len(rows), "type": kind}
        if bounds:
            columns = list(zip(*[r if isinstance(r, tuple) else (r,) for r in rows]))
            accessor["min"] = [min(c) for c in columns]
            accessor["max"] = [max(c) for c in columns]
        self.accessors.append(accessor)
        return len(self.accessors) - 1


def write_boxes(path, boxes, times):
    buffer = _Buffer()
    FLOAT, USHORT = 5126, 5123
    nodes, meshes, materials, channels, samplers = [], [], [], [], []
    time_accessor = buffer.add("f", list(times), FLOAT, "SCALAR", bounds=True)
    for index, box in enumerate(boxes):
        positions, normals, indices = _box(box["size"])
        position = buffer.add("f", positions, FLOAT, "VEC3", target=34962, bounds=True)
        normal = buffer.add("f", normals, FLOAT, "VEC3", target=34962)
        triangles = buffer.add("H", indices, USHORT, "SCALAR", target=34963)
        materials.append({"name": box["name"], "pbrMetallicRoughness": {
            "baseColorFactor": [*box["colour"], 1.0], "metallicFactor": 0.0, "roughnessFactor": 0.6}})
        meshes.append({"name": box["name"], "primitives": [{
            "attributes": {"POSITION": position, "NORMAL": normal}, "indices": triangles,
            "material": index}]})
        node = {"name": box["name"], "mesh": index}
        if "translations" in box:
            node["translation"] = list(box["translations"][0])
            output = buffer.add("f", [tuple(p) for p in box["translations"]], FLOAT, "VEC3")
            samplers.append({"input": time_accessor, "output": output, "interpolation": "LINEAR"})
            channels.append({"sampler": len(samplers) - 1, "target": {"node": index, "path": "translation"}})
        else:
            node["translation"] = list(box.get("translation", (0.0, 0.0, 0.0)))
        if "rotations" in box:
            node["rotation"] = list(box["rotations"][0])
            output = buffer.add("f", [tuple(q) for q in box["rotations"]], FLOAT, "VEC4")
            samplers.append({"input": time_accessor, "output": output, "interpolation": "LINEAR"})
            channels.append({"sampler": len(samplers) - 1, "target": {"node": index, "path": "rotation"}})
        nodes.append(node)
    document = {
        "asset": {"version": "2.0", "generator": "fmu3d test suite"},
        "scene": 0,
        "scenes": [{"nodes": list(range(len(nodes)))}],
        "nodes": nodes,
        "meshes": meshes,
        "materials": materials,
        "accessors": buffer.accessors,
        "bufferViews": buffer.views,
        "buffers": [{"byteLength": len(buffer.data)}],
        "animations": [{"name": "run", "channels": channels, "samplers": samplers}],
    }
    text = json.dumps(document).encode()
    text += b" " * (-len(text) % 4)
    binary = bytes(buffer.data) + b"\0" * (-len(buffer.data) % 4)
    length = 12 + 8 + len(text) + 8 + len(binary)
    with open(path, "wb") as f:
        f.write(struct.pack("<4sII", b"glTF", 2, length))
        f.write(struct.pack("<I4s", len(text), b"JSON") + text)
        f.write(struct.pack("<I4s", len(binary), b"BIN\0") + binary)
