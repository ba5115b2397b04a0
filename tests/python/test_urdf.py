"""Robots from URDF (`fmu3d convert`, `fmu3d build robot.urdf`) against Pinocchio, an
independent rigid-body dynamics library that reads the same URDF files itself.

- `test_an_arm_swings_as_pinocchio_integrates_it`: pybullet's KUKA iiwa (7 revolute joints,
  rpy origins, meshes, damping 0.5 N m s/rad), converted, given start angles by editing the
  model file as a user would, built and run through fmpy: its joint angles over 0.3 s against
  Pinocchio's forward dynamics (ABA, with the joints' damping) integrated by SciPy's DOP853 at
  1e-12;
- `test_a_robot_of_every_joint_kind_and_turned_frames_swings_as_pinocchio_says`: a URDF written
  here with what KUKA lacks: revolute, prismatic and continuous joints, origins turned about all
  three axes, an axis not of unit length, inertials turned and with products of inertia, a
  fixed joint carrying a mass, damping on each kind; and a torque input on one joint;
- `test_pybullet_robots_build_and_pass_fmpys_validation`: real URDF files of pybullet's data
  (arms, a gripper with a mimic joint, a mobile robot, quadrupeds, a humanoid-free selection
  that parses) build with `fmu3d build X.urdf`, and their FMUs pass fmpy's validation and start;
- `test_what_is_not_converted_is_said_with_its_line`: limits that give no stop, friction,
  mimic, a transmission and a Collada mesh are each named with their line on the standard error
  and in the model file;
- `test_a_joint_driven_to_its_limit_stops_there`: a joint's `<limit>` becomes end stops; a
  torque drives the joint onto its upper limit, where it rests past it by torque / stiffness;
- `test_a_grippers_mimic_finger_moves_with_the_driven_one`: a `<mimic>` joint follows its
  leader as a gear; a force on the leader accelerates both fingers' masses, the follower's
  reflected through the multiplier, in Co-Simulation and in Model Exchange.
"""

import re
import shutil
from pathlib import Path

import fmpy
import numpy as np
import pytest
from fmpy.validation import validate_fmu
from scipy.integrate import solve_ivp

from conftest import fmu3d

try:
    import pinocchio as pin
    import pybullet_data
except ImportError as missing:  # set-up problem: fail, never skip
    pytest.fail(
        f"{missing}: run `bash scripts/setup.sh --python`, which installs "
        "tests/python/requirements.txt (pin for Pinocchio, pybullet for its robots)",
        pytrace=False,
    )

DATA = Path(pybullet_data.getDataPath())
KUKA = DATA / "kuka_iiwa" / "model.urdf"
#: The joint-angle error allowed against Pinocchio over 0.3 s [rad] (the bound asked is 1e-5); the
#: errors measured are 7.1e-10 (KUKA) and 1.2e-9.
ANGLE_TOLERANCE = 1e-8


def pinocchio_motion(urdf, q0, times, torque=None):
    """Joint coordinates at `times` of the robot `urdf` (revolute, continuous and prismatic
    joints) released at `q0` at rest, by Pinocchio's ABA with the URDF's joint damping (τ = −d·v)
    plus `torque(t)` (one value per joint), integrated by DOP853 at 1e-12."""
    model = pin.buildModelFromUrdf(str(urdf))
    data = model.createData()
    n = model.nv
    joints = list(model.joints)[1:]

    def configuration(angles):
        """Pinocchio's q of the joint coordinates: a continuous joint is (cos θ, sin θ)."""
        q = np.zeros(model.nq)
        for joint, angle in zip(joints, angles):
            if joint.nq == 2:
                q[joint.idx_q:joint.idx_q + 2] = np.cos(angle), np.sin(angle)
            else:
                q[joint.idx_q] = angle
        return q

    def rates(t, x):
        angles, v = x[:n], x[n:]
        tau = -model.damping * v + (torque(t) if torque else 0.0)
        return np.concatenate([v, pin.aba(model, data, configuration(angles), v, tau)])

    solution = solve_ivp(rates, (times[0], times[-1]), np.concatenate([q0, np.zeros(n)]),
                         method="DOP853", rtol=1e-12, atol=1e-12, t_eval=times)
    assert solution.success, solution.message
    return [model.names[k + 1] for k in range(n)], solution.y[:n].T


def with_start_angles(model_text, starts, experiment):
    """The converted model file with `phi = ...` (`s = ...`) written into each named joint, and
    an experiment, as a user edits it."""
    for name, value in starts.items():
        pattern = rf"(joint {re.escape(name)} (revolute|prismatic) \{{[^}}]*?)flange = force"
        field = "phi" if "revolute" in re.search(pattern, model_text).group(0) else "s"
        model_text, count = re.subn(pattern, rf"\g<1>{field} = {value!r}; flange = force",
                                    model_text)
        assert count == 1, name
    return model_text.replace("gravity uniform", f"experiment {{ {experiment} }}\ngravity uniform")


def build_converted(urdf, starts, tmp_path, experiment):
    """The FMU of `urdf` converted by `fmu3d convert` and given start values."""
    model = tmp_path / "robot.m3d"
    fmu3d("convert", urdf, "-o", model)
    model.write_text(with_start_angles(model.read_text(), starts, experiment))
    fmu = tmp_path / "robot.fmu"
    fmu3d("build", model, "-o", fmu)
    return fmu


def compare(result, names, reference, what):
    """The largest difference of every joint coordinate from Pinocchio's, asserted and printed."""
    worst = max(np.max(np.abs(result[f"{name}.phi" if f"{name}.phi" in result.dtype.names
                                      else f"{name}.s"] - reference[:, k]))
                for k, name in enumerate(names))
    motion = max(np.ptp(reference[:, k]) for k in range(len(names)))
    print(f"{what}: largest joint difference from Pinocchio {worst:.1e} over motions up to "
          f"{motion:.2f}")
    assert worst < ANGLE_TOLERANCE, f"{what}: {worst}"
    assert motion > 0.1, "the robot moved"


def test_an_arm_swings_as_pinocchio_integrates_it(tmp_path):
    q0 = [0.3, 0.8, -0.4, -1.0, 0.5, 0.7, -0.2]
    names = [f"lbr_iiwa_joint_{k}" for k in range(1, 8)]
    fmu = build_converted(KUKA, dict(zip(names, q0)), tmp_path,
                          "stop_time = 0.3 s; interval = 0.01 s; tolerance = 1e-10")
    result = fmpy.simulate_fmu(str(fmu), stop_time=0.3, output_interval=0.01,
                               relative_tolerance=1e-10)
    reference_names, reference = pinocchio_motion(KUKA, np.array(q0), result["time"])
    assert reference_names == names
    compare(result, names, reference, "KUKA iiwa, swinging for 0.3 s")


#: A robot written here: a revolute joint from a base turned about all three axes, a prismatic
#: joint along a non-unit axis, a fixed joint carrying a tool mass, a continuous joint; inertials
#: turned, off their link's origin and with products of inertia; damping on each moving joint.
ODD_ROBOT = """<?xml version="1.0"?>
<robot name="odd-robot">
  <link name="base"/>
  <joint name="shoulder" type="revolute">
    <parent link="base"/><child link="upper arm"/>
    <origin xyz="0.1 -0.05 0.3" rpy="0.4 -0.3 0.9"/>
    <axis xyz="0 1 0"/>
    <limit lower="-3" upper="3" effort="50" velocity="5"/>
    <dynamics damping="0.3"/>
  </joint>
  <link name="upper arm">
    <inertial>
      <origin xyz="0.02 0.01 0.2" rpy="0.2 0.5 -0.7"/>
      <mass value="2.5"/>
      <inertia ixx="0.04" iyy="0.05" izz="0.02" ixy="0.003" ixz="-0.002" iyz="0.001"/>
    </inertial>
    <visual><geometry><cylinder radius="0.04" length="0.4"/></geometry></visual>
  </link>
  <joint name="slide" type="prismatic">
    <parent link="upper arm"/><child link="sleeve"/>
    <origin xyz="0 0 0.4" rpy="-0.6 0.1 0.25"/>
    <axis xyz="1 1 0"/>
    <limit lower="-1" upper="1" effort="100" velocity="1"/>
    <dynamics damping="2.0"/>
  </joint>
  <link name="sleeve">
    <inertial>
      <origin xyz="0.05 0 0" rpy="0 0 0"/>
      <mass value="1.2"/>
      <inertia ixx="0.003" iyy="0.004" izz="0.005" ixy="0" ixz="0" iyz="0"/>
    </inertial>
    <collision><origin xyz="0.05 0 0"/><geometry><box size="0.1 0.05 0.05"/></geometry></collision>
  </link>
  <joint name="tool mount" type="fixed">
    <parent link="sleeve"/><child link="tool"/>
    <origin xyz="0.1 0.02 -0.03" rpy="1.2 0 -0.4"/>
  </joint>
  <link name="tool">
    <inertial>
      <origin xyz="0 0 0.03" rpy="0.3 0.3 0.3"/>
      <mass value="0.7"/>
      <inertia ixx="0.001" iyy="0.0012" izz="0.0008" ixy="0.0001" ixz="0" iyz="-0.0001"/>
    </inertial>
    <visual><geometry><sphere radius="0.03"/></geometry></visual>
  </link>
  <joint name="wrist" type="continuous">
    <parent link="tool"/><child link="hand"/>
    <origin xyz="0 0 0.06" rpy="0 1.1 0"/>
    <axis xyz="0 0 1"/>
    <dynamics damping="0.05"/>
  </joint>
  <link name="hand">
    <inertial>
      <origin xyz="0.04 0.01 0" rpy="0 0 0.5"/>
      <mass value="0.4"/>
      <inertia ixx="0.0004" iyy="0.0006" izz="0.0005" ixy="0" ixz="0.00005" iyz="0"/>
    </inertial>
  </link>
</robot>
"""


def test_a_robot_of_every_joint_kind_and_turned_frames_swings_as_pinocchio_says(tmp_path):
    urdf = tmp_path / "odd.urdf"
    urdf.write_text(ODD_ROBOT)
    # `upper arm` and `tool mount` are renamed (a space is no part of a model-format name).
    names = {"shoulder": 0.6, "slide": 0.05, "wrist": -0.4}
    fmu = build_converted(urdf, names, tmp_path,
                          "stop_time = 0.3 s; interval = 0.01 s; tolerance = 1e-10")
    # A torque on the wrist through its flange input, as a drive train applies it (constant: an
    # importer holds a co-simulation input over each step).
    result = fmpy.simulate_fmu(str(fmu), stop_time=0.3, output_interval=0.01,
                               relative_tolerance=1e-10, start_values={"wrist.tau": 0.02})
    reference_names, reference = pinocchio_motion(
        urdf, np.array(list(names.values())), result["time"],
        torque=lambda t: np.array([0.0, 0.0, 0.02]))
    assert reference_names == list(names)
    compare(result, list(names), reference, "a robot of every joint kind, driven at its wrist")


#: pybullet's robots that are valid URDF with STL or OBJ meshes (the others hold xacro
#: expressions, Collada meshes only, `spherical` joints or malformed numbers, and are refused by
#: line): an arm, its free-base variant, a gripper with mimic fingers, a racecar, R2D2, two
#: quadrupeds, an arm whose rounded inertias are balanced.
ROBOTS = ["kuka_iiwa/model.urdf", "kuka_iiwa/model_free_base.urdf", "pr2_gripper.urdf",
          "racecar/racecar.urdf", "r2d2.urdf", "laikago/laikago.urdf",
          "quadruped/minitaur.urdf", "xarm/xarm6_robot.urdf", "franka_panda/panda.urdf"]


@pytest.mark.parametrize("robot", ROBOTS)
def test_pybullet_robots_build_and_pass_fmpys_validation(robot, tmp_path):
    fmu = tmp_path / "robot.fmu"
    fmu3d("build", DATA / robot, "-o", fmu)
    problems = validate_fmu(str(fmu))
    assert problems == [], f"{robot}: " + "\n".join(problems)
    result = fmpy.simulate_fmu(str(fmu), stop_time=0.02, output_interval=0.01)
    assert result["time"][-1] == pytest.approx(0.02)


#: A URDF with what fmu3d does not convert, each on a line of its own.
UNCONVERTED = """<robot name="partial">
  <link name="base"/>
  <joint name="j1" type="revolute">
    <parent link="base"/><child link="l1"/>
    <axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="0" velocity="1"/>
    <dynamics damping="0.1" friction="0.2"/>
  </joint>
  <link name="l1">
    <inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01"/></inertial>
    <visual><geometry><mesh filename="part.dae"/></geometry></visual>
  </link>
  <joint name="j2" type="revolute">
    <parent link="l1"/><child link="l2"/>
    <origin xyz="0.1 0 0"/>
    <axis xyz="0 0 1"/>
    <limit lower="1" upper="-1" effort="1" velocity="1"/>
    <mimic joint="j9" multiplier="2"/>
  </joint>
  <link name="l2">
    <inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01"/></inertial>
  </link>
  <transmission name="t1"/>
</robot>
"""


def test_what_is_not_converted_is_said_with_its_line(tmp_path):
    urdf = tmp_path / "partial.urdf"
    urdf.write_text(UNCONVERTED)
    run = fmu3d("convert", urdf, "-o", tmp_path / "partial.m3d")
    model = (tmp_path / "partial.m3d").read_text()
    expected = {6: "not enforced: it has no positive effort", 7: "<dynamics friction>",
                11: "part.dae", 17: "not enforced: its range is empty",
                18: "<mimic joint=\"j9\"> is not converted (there is no joint `j9`)",
                23: "<transmission>"}
    for line, text in expected.items():
        said = [l for l in run.stderr.splitlines() if f": line {line}: " in l and text in l]
        assert said, f"line {line} ({text}) not said:\n{run.stderr}"
        assert re.search(rf"^#   line {line}: .*{re.escape(text)}", model, re.M), (line, model)
    # The damping that is converted, the geometry that is left out.
    assert "damper = 0.1 N.m.s/rad" in model
    assert "part.dae" not in model.split("model partial")[1]


def test_a_drive_train_fmu_moves_the_converted_arm_as_pinocchio_says(tmp_path):
    """examples/urdf: the KUKA's FMU built from its URDF, its shoulder and elbow moved by two
    instances of the co-simulation example's drive-train FMU (pythonfmu) in position control,
    coupled every millisecond over fmpy. Against Pinocchio integrating the same URDF under the
    torques the drives applied (held over each step): joint angles within 1e-6 rad (1.9e-7
    measured over 2 s; 10 % more mass or a wrong axis is off by far more), and each driven joint
    at its commanded angle after the move."""
    import sys
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples" / "urdf"))
    import kuka_drive

    times, angles, torques, _, _ = kuka_drive.run(stop_time=2.0, folder=tmp_path)
    reference = kuka_drive.pinocchio_angles(times, angles[0], torques)
    difference = np.max(np.abs(angles - reference))
    print(f"KUKA driven by two drive-train FMUs for 2 s: largest difference from Pinocchio "
          f"{difference:.1e} rad")
    assert difference < 1e-6
    for joint, move in kuka_drive.DRIVES.items():
        k = int(joint[-1]) - 1
        assert angles[-1, k] == pytest.approx(move["phi_end"], abs=0.01), joint
        assert np.max(np.abs(torques[:, k])) > 10.0, "the drive did the work"


def test_a_floating_base_robot_tumbles_as_pinocchio_says(tmp_path):
    """`--floating-base`: the robot of every joint kind, its base given a mass with a turned
    inertial, on a free joint from the world, released bent under gravity with torques at its
    shoulder and wrist (in free fall only they move the links against each other). Pinocchio's
    free-flyer (position and quaternion of the base, its twist in the base's frame, the joints):
    the base's position, its orientation and the joint coordinates over 0.3 s within 1e-9 (the
    base falls 0.40 m and turns 0.38 rad against the arm)."""
    urdf = tmp_path / "floating.urdf"
    urdf.write_text(ODD_ROBOT.replace(
        '<link name="base"/>',
        '<link name="base"><inertial><origin xyz="0.01 0.02 -0.03" rpy="0.1 0.2 0.3"/>'
        '<mass value="3"/><inertia ixx="0.02" iyy="0.03" izz="0.025" ixy="0.001" ixz="0" '
        'iyz="0.002"/></inertial></link>'))
    starts = {"shoulder": 0.6, "slide": 0.05, "wrist": -0.4}
    model = tmp_path / "floating.m3d"
    fmu3d("convert", urdf, "-o", model, "--floating-base")
    model.write_text(with_start_angles(model.read_text(), starts,
                                       "stop_time = 0.3 s; interval = 0.01 s; tolerance = 1e-10"))
    fmu = tmp_path / "floating.fmu"
    fmu3d("build", model, "-o", fmu, "--animation-outputs")
    # Torques between the links (shoulder, wrist): the base turns against them.
    torques = {"shoulder.tau": 1.5, "wrist.tau": 0.05}
    result = fmpy.simulate_fmu(str(fmu), stop_time=0.3, output_interval=0.01,
                               relative_tolerance=1e-10, start_values=torques)

    robot = pin.buildModelFromUrdf(str(urdf), pin.JointModelFreeFlyer())
    applied = np.array([0.0] * 6 + [1.5, 0.0, 0.05])
    data = robot.createData()
    n = robot.nv - 6

    def rates(_, x):
        # x: base position (world), quaternion (x, y, z, w), joints; twist (local), joint rates.
        quaternion = x[3:7] / np.linalg.norm(x[3:7])
        q = np.zeros(robot.nq)
        q[:3], q[3:7] = x[:3], quaternion
        for joint, angle in zip(list(robot.joints)[2:], x[7:7 + n]):
            if joint.nq == 2:  # continuous: (cos θ, sin θ)
                q[joint.idx_q:joint.idx_q + 2] = np.cos(angle), np.sin(angle)
            else:
                q[joint.idx_q] = angle
        v = x[7 + n:]
        rotation = pin.Quaternion(quaternion[3], *quaternion[:3]).matrix()
        w = np.concatenate([v[3:6], [0.0]])
        qx, qy, qz, qw = quaternion
        # q̇ = ½ q ⊗ (ω, 0), Hamilton product with the scalar last.
        quaternion_rate = 0.5 * np.array([
            qw * w[0] + qy * w[2] - qz * w[1],
            qw * w[1] + qz * w[0] - qx * w[2],
            qw * w[2] + qx * w[1] - qy * w[0],
            -qx * w[0] - qy * w[1] - qz * w[2],
        ])
        a = pin.aba(robot, data, q, v, applied - robot.damping * v)
        return np.concatenate([rotation @ v[:3], quaternion_rate, v[6:], a])

    start = np.concatenate([[0, 0, 0, 0, 0, 0, 1], list(starts.values()), np.zeros(robot.nv)])
    times = result["time"]
    solution = solve_ivp(rates, (0.0, times[-1]), start, method="DOP853", rtol=1e-12,
                         atol=1e-12, t_eval=times)
    assert solution.success
    y = solution.y
    worst = max(np.max(np.abs(result[f"base.r[{i + 1}]"] - y[i])) for i in range(3))
    # fmu3d's Q is Modelica's (n sin(φ/2), cos(φ/2)), Pinocchio's (x, y, z, w): the same, up to
    # the sign of the whole quaternion.
    ours = np.array([result[f"base.Q[{i + 1}]"] for i in range(4)])
    theirs = y[3:7] / np.linalg.norm(y[3:7], axis=0)
    sign = np.sign(np.sum(ours * theirs, axis=0))
    worst = max(worst, np.max(np.abs(ours - sign * theirs)))
    for k, name in enumerate(starts):
        column = result[f"{name}.phi"] if f"{name}.phi" in result.dtype.names else result[f"{name}.s"]
        worst = max(worst, np.max(np.abs(column - y[7 + k])))
    turned = 2 * np.arccos(min(1.0, abs(ours[3, -1])))
    print(f"floating base: largest difference from Pinocchio {worst:.1e} (base fell "
          f"{-result['base.r[3]'][-1]:.3f} m, turned {turned:.3f} rad)")
    assert worst < 1e-9  # 8.6e-11 measured
    assert turned > 0.01, "the base turned"


#: A puck on a planar joint in a plane tilted against gravity, with a pendulum on it.
PLANAR_ROBOT = """<robot name="puck">
  <link name="base"/>
  <joint name="table" type="planar">
    <parent link="base"/><child link="puck"/>
    <origin xyz="0 0 0.2" rpy="0.5 0.3 0.2"/>
    <axis xyz="0 0 1"/>
  </joint>
  <link name="puck">
    <inertial>
      <origin xyz="0.03 -0.02 0.01" rpy="0.2 0 0.4"/>
      <mass value="1.5"/>
      <inertia ixx="0.004" iyy="0.005" izz="0.006" ixy="0.0002" ixz="0" iyz="0.0001"/>
    </inertial>
  </link>
  <joint name="arm" type="revolute">
    <parent link="puck"/><child link="rod"/>
    <origin xyz="0.05 0 0.02" rpy="0 0.7 0"/>
    <axis xyz="0 1 0"/>
    <limit lower="-3" upper="3" effort="10" velocity="10"/>
    <dynamics damping="0.02"/>
  </joint>
  <link name="rod">
    <inertial>
      <origin xyz="0 0 -0.1"/>
      <mass value="0.3"/>
      <inertia ixx="0.001" iyy="0.001" izz="0.0001" ixy="0" ixz="0" iyz="0"/>
    </inertial>
  </link>
</robot>
"""


def test_a_planar_joint_slides_and_turns_as_pinocchio_says(tmp_path):
    """A URDF `planar` joint (its plane tilted against gravity by the joint's origin): the puck
    slides and turns in it with a pendulum on it, released at rest; its two positions in the
    plane, its angle and the pendulum's angle over 0.3 s against Pinocchio's planar joint (x, y
    and the angle about the plane's normal, in the joint's frame) within 1e-9."""
    urdf = tmp_path / "puck.urdf"
    urdf.write_text(PLANAR_ROBOT)
    model = tmp_path / "puck.m3d"
    fmu3d("convert", urdf, "-o", model)
    model.write_text(model.read_text().replace(
        "gravity uniform",
        "experiment { stop_time = 0.3 s; interval = 0.01 s; tolerance = 1e-10 }\ngravity uniform"))
    fmu = tmp_path / "puck.fmu"
    fmu3d("build", model, "-o", fmu)
    result = fmpy.simulate_fmu(str(fmu), stop_time=0.3, output_interval=0.01,
                               relative_tolerance=1e-10)

    robot = pin.buildModelFromUrdf(str(urdf))
    data = robot.createData()
    planar, arm = list(robot.joints)[1:]
    assert (planar.nq, planar.nv, arm.nq) == (4, 3, 1), "Pinocchio's planar joint"

    def rates(_, x):
        (sx, sy, angle, phi), v = x[:4], x[4:]
        q = np.array([sx, sy, np.cos(angle), np.sin(angle), phi])
        # Pinocchio's planar velocity is in the puck's own axes: turned by the angle into the
        # plane's, it is the rate of (x, y).
        c, s = np.cos(angle), np.sin(angle)
        position_rates = [c * v[0] - s * v[1], s * v[0] + c * v[1], v[2], v[3]]
        return np.concatenate([position_rates, pin.aba(robot, data, q, v, -robot.damping * v)])

    solution = solve_ivp(rates, (0.0, 0.3), np.zeros(8), method="DOP853", rtol=1e-12,
                         atol=1e-12, t_eval=result["time"])
    assert solution.success
    ours = [result["table.s_x"], result["table.s_y"], result["table.phi"], result["arm.phi"]]
    worst = max(np.max(np.abs(o - solution.y[k])) for k, o in enumerate(ours))
    moved = max(np.ptp(o) for o in ours)
    print(f"planar joint: largest difference from Pinocchio {worst:.1e} over motions up to "
          f"{moved:.3f}")
    assert worst < 1e-9
    assert moved > 0.05


#: One link on a vertical axis (no gravity torque), its limit ±0.5 rad, effort 40 N m, speed
#: 2 rad/s.
LIMITED = """<robot name="limited">
  <link name="base"/>
  <joint name="hinge" type="revolute">
    <parent link="base"/><child link="disc"/>
    <axis xyz="0 0 1"/>
    <limit lower="-0.5" upper="0.5" effort="40" velocity="2"/>
  </joint>
  <link name="disc">
    <inertial><mass value="2"/><inertia ixx="0.03" iyy="0.03" izz="0.05"/></inertial>
  </link>
</robot>
"""


def test_a_joint_driven_to_its_limit_stops_there(tmp_path):
    """The limit becomes end stops that hold the effort at 0.01 rad past the range
    (stop_stiffness = effort / 0.01 rad = 4000 N m/rad) damped by effort / velocity
    (20 N m s/rad). A torque of 10 N m turns the disc (J = 0.05 kg m2) from rest: at the
    closed-form angle τ t² / (2 J) until it reaches 0.5 rad at √(J / τ) s, where it stops and rests
    at 0.5 + τ / c = 0.5025 rad."""
    urdf = tmp_path / "limited.urdf"
    urdf.write_text(LIMITED)
    model = tmp_path / "limited.m3d"
    run = fmu3d("convert", urdf, "-o", model)
    assert "not enforced" not in run.stderr
    text = model.read_text()
    assert ("lower = -0.5; upper = 0.5; stop_stiffness = 4000 N.m/rad; "
            "stop_damping = 20 N.m.s/rad") in text, text
    fmu = tmp_path / "limited.fmu"
    fmu3d("build", model, "-o", fmu)
    torque, inertia, stiffness = 10.0, 0.05, 4000.0
    signal = np.array([(0.0, torque), (1.0, torque)], dtype=[("time", float), ("hinge.tau", float)])
    result = fmpy.simulate_fmu(str(fmu), stop_time=1.0, output_interval=0.001, input=signal,
                               relative_tolerance=1e-9)
    time, angle = result["time"], result["hinge.phi"]
    arrives = np.sqrt(inertia / torque)
    before = time < arrives
    free_error = np.max(np.abs(angle[before] - torque * time[before] ** 2 / (2 * inertia)))
    rest = 0.5 + torque / stiffness
    rest_error = abs(angle[-1] - rest)
    print(f"limited joint: free {free_error:.1e} rad from τ t²/(2 J); at rest {angle[-1]:.10f} "
          f"rad, statics {rest} ({rest_error:.1e}); farthest {angle.max():.6f} rad")
    # Measured 5.6e-17 and 1.1e-16 rad (the free motion is a polynomial the integrator
    # follows exactly; at rest the stop's statics to round-off).
    assert free_error < 1e-12
    assert rest_error < 1e-12
    # It arrives with the torque's work τ · 0.5 rad as kinetic energy; an undamped stop would
    # take that and the torque's work on: c δ² / 2 = τ (0.5 + δ).
    undamped = (torque + np.sqrt(torque**2 + 2 * stiffness * torque * 0.5)) / stiffness
    assert 0.5 < angle.max() < 0.5 + undamped, undamped


#: A gripper on a level palm (gravity along −z, the fingers slide along y): the right finger
#: mimics the left one, moving the other way.
GRIPPER = """<robot name="gripper">
  <link name="palm"/>
  <joint name="left" type="prismatic">
    <parent link="palm"/><child link="left_finger"/>
    <origin xyz="0 0.02 0"/>
    <axis xyz="0 1 0"/>
    <limit lower="-1" upper="1" effort="100" velocity="1"/>
  </joint>
  <link name="left_finger">
    <inertial><mass value="0.2"/><inertia ixx="1e-4" iyy="1e-4" izz="1e-4"/></inertial>
  </link>
  <joint name="right" type="prismatic">
    <parent link="palm"/><child link="right_finger"/>
    <origin xyz="0 -0.02 0"/>
    <axis xyz="0 1 0"/>
    <limit lower="-1" upper="1" effort="100" velocity="1"/>
    <mimic joint="left" multiplier="-1" offset="0.001"/>
  </joint>
  <link name="right_finger">
    <inertial><mass value="0.3"/><inertia ixx="1e-4" iyy="1e-4" izz="1e-4"/></inertial>
  </link>
</robot>
"""


@pytest.mark.parametrize("interface", ["CoSimulation", "ModelExchange"])
def test_a_grippers_mimic_finger_moves_with_the_driven_one(tmp_path, interface):
    """The mimic joint follows the left finger as a gear (s_right = −s_left + 0.001 m), with no
    input of its own. A force F = 2 N on the left finger moves both: a = F / (m_l + r² m_r) =
    2 / (0.2 + 0.3) = 4 m/s², s = a t² / 2; a mimic that moved by itself would leave the
    right finger at its offset, and a coupling without the reflected mass would give 10 m/s²."""
    urdf = tmp_path / "gripper.urdf"
    urdf.write_text(GRIPPER)
    model = tmp_path / "gripper.m3d"
    run = fmu3d("convert", urdf, "-o", model)
    assert "(0 notes)" in run.stderr, run.stderr
    assert "follows = left; follow_ratio = -1; follow_offset = 0.001" in model.read_text()
    fmu = tmp_path / "gripper.fmu"
    fmu3d("build", model, "-o", fmu)
    inputs = [v.name for v in fmpy.read_model_description(str(fmu)).modelVariables
              if v.causality == "input"]
    assert inputs == ["left.f"], inputs
    force = 2.0
    signal = np.array([(0.0, force), (0.3, force)], dtype=[("time", float), ("left.f", float)])
    result = fmpy.simulate_fmu(str(fmu), fmi_type=interface, stop_time=0.3,
                               output_interval=0.01, input=signal, relative_tolerance=1e-9)
    time, left, right = result["time"], result["left.s"], result["right.s"]
    expected = force / (0.2 + 0.3) * time**2 / 2
    left_error = np.max(np.abs(left - expected))
    gear_error = np.max(np.abs(right - (0.001 - left)))
    print(f"{interface}: left finger {left[-1]:.9f} m at 0.3 s, a t²/2 {expected[-1]:.9f} "
          f"({left_error:.1e}); right finger off −s + 0.001 by {gear_error:.1e}")
    # Measured 1.1e-16 and 5.1e-10 m (Co-Simulation, Model Exchange with fmpy's CVode); the
    # gear exact.
    assert left_error < (1e-14 if interface == "CoSimulation" else 2e-9)
    assert gear_error < 1e-15
