"""The mechanisms of the co-simulation examples as the masters see them: which joints the drive
FMUs drive (one drive instance per joint, with its parameters), which mechanism parameter takes
each drive's reflected rotor inertia, and how the mechanism's kinetic and potential energy follow
from the mechanism FMU's parameters and outputs (for the energy bookkeeping).

Both masters (fmpy_master.py, libcosim_master.py) run any of them:

    CRANK            crank.m3d: one drive in speed control turns a crank with a flywheel
    ROBOT_ARM        robot_arm.m3d: three drives in position control move a three-joint arm
    FOURBAR_CRANK    fourbar_crank.m3d: one drive in speed control turns the crank of a four-bar
"""

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from drive_train import PARAMETERS as DRIVE_PARAMETERS

HERE = Path(__file__).resolve().parent
G = 9.81  # gravity of the example models [m/s2]


@dataclass(frozen=True)
class Drive:
    """One drive-train FMU instance on one joint of the mechanism (flange = force)."""

    joint: str  # the joint's name: the drive's torque goes to JOINT.tau
    parameters: dict = field(default_factory=dict)  # parameters of the drive FMU
    inertia_parameter: str = ""  # the mechanism parameter that takes J_m*ratio^2 of the drive
    damping_parameter: str = ""  # the mechanism parameter of the joint's viscous friction

    @property
    def instance_name(self):
        """Distinct for every drive: several instances of one FMU in a master."""
        return f"drive_{self.joint}"

    def reflected_inertia(self):
        """J_m*ratio^2 from this drive's parameters and the FMU's defaults (what the FMU's
        calculated parameter `J_reflected` gives; for a master that cannot read it before the
        run)."""
        values = {name: value for name, value, _ in DRIVE_PARAMETERS} | self.parameters
        return values["J_m"] * values["ratio"] ** 2


@dataclass(frozen=True)
class Mechanism:
    """A mechanism FMU's model and what the masters need to know about it."""

    name: str  # instance name
    model: Path  # the .m3d file
    drives: tuple  # of Drive
    energy_parameters: tuple  # mechanism parameters the energy needs
    energy_outputs: tuple  # mechanism outputs the energy needs
    #: kinetic + potential energy from {name: value} of those parameters and outputs (the
    #: outputs may be arrays over time)
    energy: Callable = None
    description: str = ""
    stop_time: float = 2.0  # the example's run [s]

    def joint_variables(self, quantity):
        return [f"{d.joint}.{quantity}" for d in self.drives]


# --- energy of rigid bodies from frame outputs ------------------------------------------------

def world_to_body(Q):
    """The matrix that resolves world vectors in a frame, from its Modelica quaternion
    (Frames.from_Q; Q[1:3] = n sin(phi/2), Q[4] = cos(phi/2)); Q may be (4,) or (4, n)."""
    q1, q2, q3, q4 = Q
    return np.array([
        [2 * (q1 * q1 + q4 * q4) - 1, 2 * (q1 * q2 + q3 * q4), 2 * (q1 * q3 - q2 * q4)],
        [2 * (q2 * q1 - q3 * q4), 2 * (q2 * q2 + q4 * q4) - 1, 2 * (q2 * q3 + q1 * q4)],
        [2 * (q3 * q1 + q2 * q4), 2 * (q3 * q2 - q1 * q4), 2 * (q3 * q3 + q4 * q4) - 1],
    ])


def frame_outputs(obj):
    """The outputs of an object with `output = true` that its energy needs."""
    return tuple(f"{obj}.{q}[{k}]" for q, n in (("r", 3), ("v", 3), ("w", 3), ("Q", 4))
                 for k in range(1, n + 1))


def rigid_body_energy(values, obj, mass, inertia, up):
    """Kinetic + potential energy of a body whose centre of mass is the origin of the frame
    `obj` (outputs r, v, w, Q), with mass `mass` and principal moments `inertia` (three
    numbers, in the frame's axes); gravity G along -up (up: 1, 2, 3 for x, y, z)."""
    r, v, w, Q = (np.array([values[f"{obj}.{q}[{k}]"] for k in range(1, n + 1)])
                  for q, n in (("r", 3), ("v", 3), ("w", 3), ("Q", 4)))
    w_body = np.einsum("ij...,j...->i...", world_to_body(Q), w)
    rotation = sum(I * w_body[k] ** 2 for k, I in enumerate(inertia))
    return 0.5 * mass * np.sum(v * v, axis=0) + 0.5 * rotation + mass * G * r[up - 1]


def moment(values, item):
    """A principal moment given as a parameter name or as (parameter name, factor)."""
    name, factor = (item, 1.0) if isinstance(item, str) else item
    return factor * values[name]


def bodies_energy(bodies, up):
    """The energy function of a mechanism made of the rigid bodies
    [(object, mass parameter, (three principal moments, see `moment`))]."""

    def energy(values):
        return sum(
            rigid_body_energy(values, obj, values[m], [moment(values, i) for i in inertia], up)
            for obj, m, inertia in bodies
        )

    return energy


def bodies_parameters(bodies):
    names = []
    for _, m, inertia in bodies:
        for name in (m, *(i if isinstance(i, str) else i[0] for i in inertia)):
            if name not in names:
                names.append(name)
    return tuple(names)


def bodies_outputs(bodies):
    return tuple(name for obj, _, _ in bodies for name in frame_outputs(obj))


def bodies_mechanism(name, model, drives, bodies, up, description, stop_time):
    return Mechanism(name, model, tuple(drives), bodies_parameters(bodies),
                     bodies_outputs(bodies), bodies_energy(bodies, up), description, stop_time)


# --- the crank with flywheel -------------------------------------------------------------------

def crank_energy(values):
    """Kinetic energy of everything turning with the crank plus the eccentric mass's potential
    energy (the flywheel's centre stays on the axis)."""
    inertia = values["J_fw"] + values["J_drive"] + values["m_e"] * values["r_e"] ** 2
    return 0.5 * inertia * values["crank.w"] ** 2 + values["m_e"] * G * values["weight.r[2]"]


CRANK = Mechanism(
    name="crank",
    model=HERE / "crank.m3d",
    drives=(Drive("crank", inertia_parameter="J_drive"),),
    energy_parameters=("J_fw", "J_drive", "m_e", "r_e"),
    energy_outputs=("crank.w", "weight.r[2]"),
    energy=crank_energy,
    description="crank with flywheel, speed control",
)


# --- the robot arm -----------------------------------------------------------------------------

#: The arm's drives: one motor type (24 V, 0.1 N.m/A, rotor 2e-5 kg.m2, 1 Ohm) behind a 50:1
#: gear, position control. The gains keep the drive's damping of its joint (back EMF and
#: proportional speed gain, (ratio*k)^2/R + Kp*ratio*k/R = 45 N.m.s/rad) slow against the
#: communication step: the lightest joint, the elbow (0.26 kg.m2 with its rotor and the payload),
#: settles in about 6 ms, the step is 1 ms. The commanded move: from the start pose of
#: robot_arm.m3d to the end pose over T_MOVE seconds from T_BEGIN on, held until the end.
T_BEGIN, T_MOVE, ARM_STOP_TIME = 0.2, 1.5, 3.0
ARM_MOTOR = dict(R=1.0, L=1e-3, k=0.1, J_m=2e-5, ratio=50.0, U_max=24.0, Kp=4.0, Ki=40.0,
                 Kv=10.0)
ARM_MOVES = {  # joint: (start angle, end angle) [rad]
    "base": (0.0, math.pi / 2),
    "shoulder": (-0.3, -0.9),
    "elbow": (0.6, 1.5),
}
ARM_BODIES = [
    ("column", "m_column", ("I_column_xx", "I_column_xx", "I_column_zz")),
    ("rotor_base", "m_motor", (("J_base", 0.5), ("J_base", 0.5), "J_base")),
    ("upper_arm", "m1", ("I1_xx", "I1_yy", "I1_yy")),
    ("rotor_shoulder", "m_motor", (("J_shoulder", 0.5), "J_shoulder", ("J_shoulder", 0.5))),
    ("forearm", "m2", ("I2_xx", "I2_yy", "I2_yy")),
    ("rotor_elbow", "m_motor", (("J_elbow", 0.5), "J_elbow", ("J_elbow", 0.5))),
    ("payload", "m_load", ("I_load", "I_load", "I_load")),
]


def arm_drive(joint):
    begin, end = ARM_MOVES[joint]
    return Drive(joint, dict(ARM_MOTOR, position_control=True, phi_begin=begin, phi_end=end,
                             t_begin=T_BEGIN, t_move=T_MOVE),
                 inertia_parameter=f"J_{joint}", damping_parameter="d_joint")


ROBOT_ARM = bodies_mechanism(
    "arm", HERE / "robot_arm.m3d", [arm_drive(j) for j in ARM_MOVES], ARM_BODIES, up=3,
    description="three-joint robot arm, position control", stop_time=ARM_STOP_TIME,
)


# --- the four-bar crank ------------------------------------------------------------------------

#: The four-bar's drive: the crank example's motor and gear, a stiffer speed controller, one
#: revolution per second reached after a 0.5 s ramp.
FOURBAR_DRIVE = dict(Kp=5.0, Ki=50.0, w_set=2 * math.pi, t_ramp=0.5)
FOURBAR_BODIES = [
    (f"bar{k}.beam", f"bar{k}.m", (f"bar{k}.I_long", f"bar{k}.I_trans", f"bar{k}.I_trans"))
    for k in (1, 2, 3)
] + [("flywheel", "m_fw", (("J_flywheel", 0.5), ("J_flywheel", 0.5), "J_flywheel"))]

FOURBAR_CRANK = bodies_mechanism(
    "fourbar", HERE / "fourbar_crank.m3d",
    [Drive("rev1", FOURBAR_DRIVE, inertia_parameter="J_drive")], FOURBAR_BODIES, up=2,
    description="four-bar crank, speed control", stop_time=3.0,
)
