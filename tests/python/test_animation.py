"""Animations (docs/animation.md): the .glb files of `fmu3d simulate --animation` and of
`fmu3d animate` pass the Khronos glTF validator without errors, and show what the model file
says: the bouncing ball starts at its `height`, the double pendulum's rods keep their lengths
and its second link hangs from the first bob, and an animation made from an fmpy result of the
FMU has the same poses as the one `fmu3d simulate` makes of the model file.

The GLB is read here with struct and numpy, independently of fmu3d's writer.
"""

import json
import math
import os
import struct
import subprocess

import fmpy
import fmpy.util
import numpy as np
import pytest

from conftest import MODELS, REPOSITORY, declared_experiment, declared_parameters, fmu3d, installed_tool

VALIDATOR = REPOSITORY / ".tools" / "gltf-validator" / "node_modules" / "gltf-validator" / "package.json"
VALIDATE = REPOSITORY / "tests" / "gltf" / "validate.mjs"

#: A model with every shape kind (sphere, box, cylinder, capsule, cone, ellipsoid), rounded
#: contact shapes, transparency and a world whose z axis is up.
SHAPES = REPOSITORY / "tests" / "gltf" / "shapes.m3d"

#: Models whose animations the validator checks: with contacts, a kinematic loop, many bodies.
VALIDATED = {
    name: MODELS.get(name, SHAPES)
    for name in ["billiard16", "fourbar", "bouncing_box", "bouncing_ball", "double_pendulum", "gripper", "engine", "shapes"]
}


def validate(paths):
    """The validator's reports, one per file."""
    installed_tool(VALIDATOR)
    run = subprocess.run(["node", str(VALIDATE), *map(str, paths)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def read_glb(path):
    """(JSON, BIN chunk) of a GLB, after checking the container: magic, version, lengths, chunk
    types and their 4-byte alignment."""
    data = path.read_bytes()
    magic, version, length = struct.unpack_from("<4sII", data, 0)
    assert (magic, version, length) == (b"glTF", 2, len(data))
    json_length, json_type = struct.unpack_from("<II", data, 12)
    assert json_type == 0x4E4F534A and json_length % 4 == 0
    document = json.loads(data[20 : 20 + json_length])
    bin_length, bin_type = struct.unpack_from("<II", data, 20 + json_length)
    assert bin_type == 0x004E4942 and bin_length % 4 == 0
    assert 28 + json_length + bin_length == len(data)
    return document, data[28 + json_length :]


def accessor(document, binary, index):
    """The float accessor `index` as an array of shape (count, components)."""
    a = document["accessors"][index]
    assert a["componentType"] == 5126
    view = document["bufferViews"][a["bufferView"]]
    width = {"SCALAR": 1, "VEC3": 3, "VEC4": 4}[a["type"]]
    start = view.get("byteOffset", 0) + a.get("byteOffset", 0)
    values = np.frombuffer(binary, dtype="<f4", count=a["count"] * width, offset=start)
    return values.reshape(a["count"], width).astype(float)


def tracks(path):
    """{node name: (times, translations (n×3), rotations (n×4, x y z w))} of the animation."""
    document, binary = read_glb(path)
    animation = document["animations"][0]
    found = {}
    for channel in animation["channels"]:
        sampler = animation["samplers"][channel["sampler"]]
        name = document["nodes"][channel["target"]["node"]]["name"]
        times = accessor(document, binary, sampler["input"])[:, 0]
        found.setdefault(name, {"times": times})[channel["target"]["path"]] = accessor(
            document, binary, sampler["output"]
        )
    return found


def node(document, name):
    return next(n for n in document["nodes"] if n.get("name") == name)


def rotate(q, v):
    """Rotates the vectors v (n×3) by the unit quaternions q (n×4, x y z w)."""
    u, w = q[:, :3], q[:, 3:]
    t = 2.0 * np.cross(u, v)
    return v + w * t + np.cross(u, t)


@pytest.fixture(scope="module")
def animations(tmp_path_factory):
    """`fmu3d simulate MODEL --animation` of each validated model: {name: path of the .glb}."""
    folder = tmp_path_factory.mktemp("animations")
    made = {}
    for name, model in VALIDATED.items():
        glb = folder / f"{name}.glb"
        fmu3d("simulate", model, "-o", folder / f"{name}.csv", "--animation", glb)
        made[name] = glb
    return made


def test_the_validator_reports_no_errors(animations):
    reports = validate(animations.values())
    for report in reports:
        print(f"{report['file']}: {report['numErrors']} errors, {report['numWarnings']} warnings, {report['numInfos']} infos")
    problems = [m for r in reports for m in r["messages"] if m.startswith("error")]
    assert len(reports) == len(VALIDATED)
    assert problems == []
    assert all(r["numErrors"] == 0 for r in reports)


def test_every_shape_kind_and_every_moving_body_is_there(animations):
    kinds = set()
    for name, glb in animations.items():
        visual = json.loads(fmu3d_visual(name))
        document, _ = read_glb(glb)
        names = {n.get("name") for n in document["nodes"]}
        animated = set(tracks(glb))
        for body in visual["bodies"]:
            assert body["name"] in names, (name, body["name"])
            assert body["moving"] == (body["name"] in animated), (name, body["name"])
            for shape in body["shapes"]:
                kinds.add(shape["kind"])
                if shape["transparency"] < 1:
                    assert f"{shape['object']}.shape" in names
    assert kinds >= {"sphere", "box", "cylinder", "capsule", "cone", "ellipsoid"}, kinds


_visuals = {}


def fmu3d_visual(name):
    """resources/visual.json of the model's FMU."""
    if name not in _visuals:
        import tempfile
        import zipfile

        with tempfile.TemporaryDirectory() as folder:
            fmu = os.path.join(folder, f"{name}.fmu")
            fmu3d("build", VALIDATED[name], "-o", fmu)
            with zipfile.ZipFile(fmu) as archive:
                _visuals[name] = archive.read("resources/visual.json").decode()
    return _visuals[name]


def test_a_z_up_world_is_turned_y_up_by_the_root_node(animations):
    document, _ = read_glb(animations["shapes"])
    root = document["nodes"][document["scenes"][0]["nodes"][0]]
    assert root["name"] == "shapes"
    q = np.array([root["rotation"]])
    np.testing.assert_allclose(rotate(q, np.array([[0.0, 0.0, 1.0]]))[0], [0, 1, 0], atol=1e-7)
    # A y-up world has no turn.
    document, _ = read_glb(animations["bouncing_ball"])
    assert "rotation" not in document["nodes"][document["scenes"][0]["nodes"][0]]


def test_colors_and_transparency_become_materials(animations):
    document, _ = read_glb(animations["shapes"])
    meshes = {m["name"]: m for m in document["meshes"]}
    material = lambda shape: document["materials"][meshes[f"{shape}.shape"]["primitives"][0]["material"]]
    table = material("table")  # [200, 200, 210], transparency 0.5
    assert table["alphaMode"] == "BLEND"
    srgb = lambda c: ((c / 255 + 0.055) / 1.055) ** 2.4
    np.testing.assert_allclose(table["pbrMetallicRoughness"]["baseColorFactor"], [srgb(200), srgb(200), srgb(210), 0.5])
    marble = material("marble")  # no visual block: grey [128, 128, 128], opaque
    assert "alphaMode" not in marble
    np.testing.assert_allclose(marble["pbrMetallicRoughness"]["baseColorFactor"], [srgb(128)] * 3 + [1.0])


def test_the_bouncing_ball_starts_at_its_height(animations):
    height = declared_parameters("bouncing_ball")["height"][0]
    ball = tracks(animations["bouncing_ball"])["ball"]
    experiment = declared_experiment("bouncing_ball")
    assert ball["times"][0] == 0.0
    assert ball["times"][-1] == pytest.approx(experiment["stop_time"], rel=1e-7)
    np.testing.assert_allclose(ball["translation"][0], [0.0, height, 0.0], atol=1e-7)
    # It falls, bounces and stays above the floor's top (y = 0) less its contact penetration.
    low = ball["translation"][:, 1].min()
    print(f"bouncing ball: start {ball['translation'][0]}, lowest centre {low:.6f} m")
    assert 0.0 < low < 0.06


def test_the_double_pendulums_rods_keep_their_lengths(animations):
    parameters = declared_parameters("double_pendulum")
    l1, l2 = parameters["L1"][0], parameters["L2"][0]
    found = tracks(animations["double_pendulum"])
    link1, link2 = found["link1"], found["link2"]
    # bob1 sits at [L1, 0, 0] in link1's frame; link2's frame is bob1's (the joint's zero).
    bob1 = link1["translation"] + rotate(link1["rotation"], np.tile([l1, 0.0, 0.0], (len(link1["times"]), 1)))
    bob2 = link2["translation"] + rotate(link2["rotation"], np.tile([l2, 0.0, 0.0], (len(link2["times"]), 1)))
    pivot_error = np.abs(np.linalg.norm(link1["translation"], axis=1)).max()
    rod1 = np.abs(np.linalg.norm(bob1, axis=1) - l1).max()
    joint = np.linalg.norm(link2["translation"] - bob1, axis=1).max()
    rod2 = np.abs(np.linalg.norm(bob2 - link2["translation"], axis=1) - l2).max()
    print(f"double pendulum: pivot {pivot_error:.2e} m, rod 1 {rod1:.2e} m, joint 2 {joint:.2e} m, rod 2 {rod2:.2e} m")
    # 32-bit floats in the file: a few 1e-7 of a metre over these 1.8 m.
    assert pivot_error < 4e-7 and rod1 < 4e-7 and joint < 4e-7 and rod2 < 4e-7
    # And it moves: the second bob sweeps far from where it started.
    assert np.linalg.norm(bob2 - bob2[0], axis=1).max() > 0.5 * l2


@pytest.mark.parametrize("name", ["double_pendulum", "bouncing_box"])
def test_animate_of_an_fmpy_result_has_the_poses_of_fmu3d_simulate(tmp_path, name):
    fmu = tmp_path / f"{name}.fmu"
    fmu3d("build", MODELS[name], "--animation-outputs", "-o", fmu)
    experiment = declared_experiment(name)
    result = fmpy.simulate_fmu(str(fmu), output_interval=experiment["interval"])
    csv = tmp_path / "fmpy.csv"
    fmpy.util.write_csv(str(csv), result)  # quoted names: "time","link1.r[1]",...
    assert csv.read_text().startswith('"time",')
    from_fmpy = tmp_path / "fmpy.glb"
    fmu3d("animate", csv, "--fmu", fmu, "-o", from_fmpy)
    from_model = tmp_path / "model.glb"
    fmu3d("simulate", MODELS[name], "-o", tmp_path / "model.csv", "--animation", from_model)
    assert [r["numErrors"] for r in validate([from_fmpy])] == [0]
    a, b = tracks(from_fmpy), tracks(from_model)
    assert a.keys() == b.keys() and a
    worst = 0.0
    for body in a:
        np.testing.assert_array_equal(a[body]["times"], b[body]["times"])
        for path in ("translation", "rotation"):
            worst = max(worst, np.abs(a[body][path] - b[body][path]).max())
    print(f"{name}: {len(a)} bodies, {len(a[body]['times'])} key frames, max |animate - simulate| = {worst:.2e}")
    # The same engine at the same instants, the CSV at full precision: equal 32-bit floats, up
    # to one unit in the last place of a quaternion renormalized after reading.
    assert worst <= 1.2e-7


def test_animate_names_a_missing_pose_column(tmp_path):
    fmu = tmp_path / "double_pendulum.fmu"
    fmu3d("build", MODELS["double_pendulum"], "-o", fmu)  # without --animation-outputs
    result = fmpy.simulate_fmu(str(fmu), stop_time=0.1)
    csv = tmp_path / "result.csv"
    fmpy.util.write_csv(str(csv), result)
    run = subprocess.run(
        [str(REPOSITORY / "target" / "release" / "fmu3d"), "animate", str(csv), "--fmu", str(fmu), "-o", str(tmp_path / "x.glb")],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 1
    assert run.stderr.startswith(f"{csv}: there is no column `link1.r[1]` (the pose of body `link1`)"), run.stderr
    assert "--animation-outputs" in run.stderr
    assert not (tmp_path / "x.glb").exists()
