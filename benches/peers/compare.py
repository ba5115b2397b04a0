#!/usr/bin/env python3
"""fmu3d's contact handling side by side with two peers, MuJoCo and PyBullet.

Each scene is simulated for the same time by
  - fmu3d: `fmu3d simulate` on the model file (IDA, contacts as events, the elastic contact law);
    its statistics line and CSV are parsed, the wall time is the one the command reports, the
    CPU time the whole process's;
  - MuJoCo and PyBullet: the same bodies, masses, radii and contact coefficients built through
    their Python APIs, at their default settings and at settings chosen for accuracy.

The scenes read their numbers (radii, speeds, friction, masses) from the model files and from
`fmu3d check`, so the peers follow the models. Run through `bash scripts/bench-peers.sh`, which
installs the peers into .venv and builds fmu3d first. The mapping of each engine's contact model
and its limits are described in docs/benchmarks-history.md ("Contacts beside MuJoCo and
PyBullet"); the current figures are in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import re
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
GRAVITY = 9.81  # fmu3d's default gravity [m/s2] (docs/engine.md), used by the models here


# ---------------------------------------------------------------------------------------------
# Results


@dataclass
class Run:
    """One engine at one setting on one scene."""

    engine: str
    setting: str
    wall: float  # median wall time of the simulation [s]
    cpu: float  # median CPU time of the same [s]: steadier than the wall on a shared machine
    steps: int | None = None
    events: int | None = None
    evaluations: str = ""  # what the engine counts of its work, as text
    metrics: dict[str, float] = field(default_factory=dict)
    # fmu3d: median CPU time of the same run writing its outputs at the model's interval [s]
    cpu_with_outputs: float | None = None



def read_result(path):
    """A CSV of `fmu3d simulate` as a structured array whose fields are the variable names: the
    header read as RFC 4180 says (quoted names, which may hold commas: `ball[1,2].r[1]`)."""
    with open(path, newline="") as file:
        names = next(csv.reader(file))
    data = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    result = np.empty(len(data), dtype=[(name, float) for name in names])
    for column, name in enumerate(names):
        result[name] = data[:, column]
    return result

def median_times(run_once, repeat: int) -> tuple[float, float]:
    """The medians of `repeat` (wall, CPU) times that `run_once()` returns."""
    times = [run_once() for _ in range(repeat)]
    return tuple(statistics.median(column) for column in zip(*times))


def timed(action) -> tuple[float, float]:
    """Wall and CPU time (this process's) of `action()`."""
    wall, cpu = time.perf_counter(), time.process_time()
    action()
    return time.perf_counter() - wall, time.process_time() - cpu


# ---------------------------------------------------------------------------------------------
# fmu3d


def fmu3d_executable() -> Path:
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    exe = target / "release" / "fmu3d"
    if not exe.exists():
        sys.exit(f"error: {exe} not found; build it with `cargo build --release -p packager`")
    return exe


@dataclass
class CheckedModel:
    """What `fmu3d check` says about a model: parameter values and body masses."""

    parameters: dict[str, float]
    masses: dict[str, float]  # first object of each moving super-object → mass [kg]
    tolerance: float  # the experiment's relative tolerance


def check_model(model: Path) -> CheckedModel:
    out = subprocess.run(
        [str(fmu3d_executable()), "check", str(model)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    parameters = {
        m.group(1): float(m.group(2))
        for m in re.finditer(r"^\s*parameter\s+(\S+)(?: \[[^]]*\])? = (\S+)", out, re.M)
    }
    masses = {
        m.group(1): float(m.group(2))
        for m in re.finditer(r"^\s*\d+: \[(\S+?)(?:,[^\n]*)?\] \w+ joint .*mass (\S+) kg", out, re.M)
    }
    tolerance = re.search(r"^experiment:.*tolerance (\S+)", out, re.M)
    if not tolerance:
        sys.exit(f"error: `fmu3d check {model}` names no experiment tolerance")
    return CheckedModel(parameters, masses, float(tolerance.group(1)))


STATS = re.compile(
    r"simulated in (?P<wall>[\d.]+) s wall; (?P<states>\d+) states; (?P<steps>\d+) steps, "
    r"(?P<res>\d+) residual evaluations \(\+(?P<jac_res>\d+) for Jacobians\), "
    r"(?P<jac>\d+) Jacobians, .*?(?P<roots>\d+) root evaluations; "
    r"(?:(?P<interpolated>\d+) outputs interpolated; )?(?P<events>\d+) contact events"
)


def run_fmu3d(
    model: Path,
    stop: float,
    tolerance: float | None,
    repeat: int,
    setting: str,
    output_step: float | None = None,
):
    """Runs `fmu3d simulate`; returns the Run and the CSV columns.

    The timed runs write the start and end states only (`--step` = the stop time), as the
    peers' timed runs read the end state only; their statistics are the Run's. The columns come
    from runs with outputs every `output_step` (default: the model's experiment interval),
    whose CPU time is the Run's `cpu_with_outputs` (the outputs' formatting as CSV included)."""
    base = [str(fmu3d_executable()), "simulate", str(model), "--stop-time", str(stop)]
    if tolerance is not None:
        base += ["--tolerance", str(tolerance)]
    csv = model.with_suffix(".csv")
    with_outputs = base + ["-o", str(csv)]
    if output_step is not None:
        with_outputs += ["--step", str(output_step)]
    timed = base + ["-o", str(model.with_suffix(".end.csv")), "--step", str(stop)]

    def once(command: list[str], stats: dict) -> tuple[float, float]:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        done = subprocess.run(command, check=True, capture_output=True, text=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        match = STATS.search(done.stderr)
        if not match:
            sys.exit(f"error: no statistics line in the output of fmu3d:\n{done.stderr}")
        stats.update({k: float(v) for k, v in match.groupdict().items() if v is not None})
        cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
        return stats["wall"], cpu

    stats, output_stats = {}, {}
    wall, cpu = median_times(lambda: once(timed, stats), repeat)
    _, cpu_with_outputs = median_times(lambda: once(with_outputs, output_stats), repeat)
    data = read_result(csv)
    run = Run(
        "fmu3d",
        setting,
        wall,
        cpu,
        steps=int(stats["steps"]),
        events=int(stats["events"]),
        evaluations=f"{int(stats['res'])} res + {int(stats['jac_res'])} for "
        f"{int(stats['jac'])} Jacobians, {int(stats['roots'])} root",
        cpu_with_outputs=cpu_with_outputs,
    )
    return run, {name: data[name] for name in data.dtype.names}


# ---------------------------------------------------------------------------------------------
# Rolling ball: slip-to-roll transition


@dataclass
class RollingBall:
    """The billiard ball pushed along the table ([NO19b] Figs. 6-7)."""

    radius: float
    v0: float
    mu_k: float
    mass: float

    @property
    def t_roll(self) -> float:
        """Analytic slip-to-roll time: the slip v − ωr falls at 7/2 μ_k g from v0."""
        return 2.0 * self.v0 / (7.0 * self.mu_k * GRAVITY)

    @property
    def v_roll(self) -> float:
        """Analytic rolling speed (angular momentum about the contact point is conserved)."""
        return 5.0 / 7.0 * self.v0

    def t_slip_below(self, threshold: float) -> float:
        """Analytic time at which the slip speed falls below `threshold`: (v0 − ε) / (7/2 μ_k g).
        Under Coulomb's law, and so for fmu3d wherever ε ≥ its v_small (above v_small its friction
        force is the full μ_k f_n)."""
        return self.t_roll * (1.0 - threshold / self.v0)


SLIP_THRESHOLDS = (1e-3, 1e-2)  # [m/s]

ROLLING_BALL_TABLE_LENGTH = 24.0  # [m]: starting 1.5 m left of the centre, the ball covers 11 m


def rolling_ball_variant(source: Path, workdir: Path, v_small: float | None = None) -> Path:
    """The shipped model with the table lengthened so the ball stays on it for 5 s, and without
    rolling resistance (mu_r = 0), so that the closed form above is the exact reference; with
    `v_small` [m/s], its contact pair's friction regularization set to that speed instead of the
    model's default."""
    text = source.read_text()
    edits = [
        (r"(mu_r = )[\d.]+", r"\g<1>0"),
        (r"lengths = \[4, ", f"lengths = [{ROLLING_BALL_TABLE_LENGTH:g}, "),
    ]
    if v_small is not None:
        edits.append((r"(v_small = )[\d.e-]+ m/s", f"\\g<1>{v_small:g} m/s"))
    for pattern, replacement in edits:
        text, count = re.subn(pattern, replacement, text, count=1)
        if count != 1:
            sys.exit(f"error: {source} no longer has `{pattern}`; update {__file__}")
    name = "rolling_ball" if v_small is None else f"rolling_ball_v_small_{v_small:g}"
    variant = workdir / f"{name}.m3d"
    variant.write_text(text)
    return variant


def slip_metrics(
    ball: RollingBall, t: np.ndarray, v: np.ndarray, w: np.ndarray, height: np.ndarray, up: int
) -> dict[str, float]:
    """Transition times and the final speed, with their relative errors against the closed form.

    The slip is the velocity of the ball's material point at the contact point, v + ω × (−l up).
    fmu3d and MuJoCo put the contact point midway between the ball's lowest point and the
    table's surface, so the lever l is the mean of the radius and the center's height h above
    the surface (l = r − δ/2 at a penetration δ; a soft contact rolls on that point, not on r;
    PyBullet's penetration is too small to matter).
    The transition is the first time the slip speed falls below each threshold, interpolated
    linearly between samples. `up` is the index of the vertical axis."""
    lever = 0.5 * (ball.radius + height)
    slip = np.linalg.norm(v - lever[:, None] * np.cross(w, np.eye(3)[up]), axis=1)
    metrics = {}
    for threshold in SLIP_THRESHOLDS:
        below = np.flatnonzero(slip < threshold)
        below = below[below > 0]
        if below.size == 0:
            crossing = math.nan
        else:
            i = below[0]
            fraction = (slip[i - 1] - threshold) / (slip[i - 1] - slip[i])
            crossing = t[i - 1] + fraction * (t[i] - t[i - 1])
        exact = ball.t_slip_below(threshold)
        metrics[f"t_{threshold:g}"] = crossing
        metrics[f"t_err_{threshold:g}"] = abs(crossing - exact) / exact
    speed = float(np.linalg.norm(v[-1]))
    metrics["v_end"] = speed
    metrics["v_err"] = abs(speed - ball.v_roll) / ball.v_roll
    return metrics


# fmu3d's settings on the rolling ball: (name, v_small [m/s] or None for the model's default,
# tolerance or None for the model's). 0.1 mm/s puts both slip thresholds above v_small, where
# fmu3d's friction law is Coulomb's.
FMU3D_ROLLING_SETTINGS = (
    ("model's tol 1e-8", None, None),
    ("tol 1e-6", None, 1e-6),
    ("v_small 0.1 mm/s, tol 1e-8", 1e-4, None),
    ("v_small 0.1 mm/s, tol 1e-6", 1e-4, 1e-6),
)


def rolling_ball_fmu3d(workdir: Path, ball: RollingBall, stop: float, repeat: int,
                       settings=FMU3D_ROLLING_SETTINGS) -> list[Run]:
    """The timed run at the model's output interval gives the wall time, the statistics and the
    final speed. The transition is located on the integrator's dense output: a second run over
    twice t* with outputs every 10 µs (1 ms samples would add their own interpolation error).
    `settings`: (name, v_small or None, tolerance or None) per run."""

    def metrics(columns: dict[str, np.ndarray]) -> dict[str, float]:
        vec = lambda name: np.column_stack([columns[f"ball.{name}[{k}]"] for k in (1, 2, 3)])
        return slip_metrics(ball, columns["time"], vec("v"), vec("w"), columns["ball.r[2]"], up=1)

    runs = []
    for setting, v_small, tolerance in settings:
        model = rolling_ball_variant(REPO / "models" / "rolling_ball.m3d", workdir, v_small)
        run, columns = run_fmu3d(model, stop, tolerance, repeat, setting)
        _, dense = run_fmu3d(model, 2 * ball.t_roll, tolerance, 1, setting, output_step=1e-5)
        final = metrics(columns)
        run.metrics = {**metrics(dense), "v_end": final["v_end"], "v_err": final["v_err"]}
        runs.append(run)
    return runs


# ---------------------------------------------------------------------------------------------
# Scenes for the peers: spheres on boxes, z up (fmu3d's models have y up: x, y, z → x, −z, y)


@dataclass
class Pair:
    """Contact coefficients of a pair of materials (fmu3d's contact_pair)."""

    cor: float
    mu_k: float
    mu_r: float


def shipped_pairs() -> dict[frozenset, Pair]:
    """The contact-pair table fmu3d ships, read from its source (one source for the numbers)."""
    source = (REPO / "fmu-runtime/src/collision/contact_materials.rs").read_text()
    # (a, b, cor, mu_k, mu_s, mu_r): the balls of these scenes roll, so mu_s does not enter.
    rows = re.findall(r'\("(\w+)", "(\w+)", ([\d.]+), ([\d.]+), ([\d.]+), ([\d.]+)\)', source)
    return {frozenset((a, b)): Pair(float(c), float(k), float(r)) for a, b, c, k, _, r in rows}


@dataclass
class Sphere:
    radius: float
    mass: float
    position: np.ndarray
    velocity: np.ndarray


@dataclass
class Box:
    center: list[float]
    half: list[float]
    material: str


@dataclass
class Scene:
    """Balls of one material on fixed boxes. `ball_ball` and `ball_box[material]` are the pair
    coefficients; the rolling resistance torque is mu_r · radius · f_n as in fmu3d."""

    spheres: list[Sphere]
    boxes: list[Box]
    ball_ball: Pair
    ball_box: dict[str, Pair]


def from_y_up(v) -> np.ndarray:
    x, y, z = v
    return np.array([x, -z, y])


# ---------------------------------------------------------------------------------------------
# MuJoCo


def damping_ratio(cor: float) -> float:
    """The damping ratio of a linear spring-damper whose rebound has this restitution."""
    if cor <= 0:
        return 1.0
    return -math.log(cor) / math.sqrt(math.pi**2 + math.log(cor) ** 2)


def mujoco_solref(cor: float, setting: dict) -> str:
    """Restitution as MuJoCo's solref, where the setting maps it (else MuJoCo's default pair):
    (time constant, damping ratio) for cor < 1; for cor = 1 the direct form (−stiffness,
    −damping) with the stiffness of that time constant and no damping (a damping ratio near 0
    in the first form would make the stiffness ∝ 1/ratio² and the step unstable)."""
    timeconst = setting.get("timeconst")
    if timeconst is None:
        return ""
    if cor >= 1:
        return f'solref="{-1 / (0.95 * timeconst) ** 2:.6g} -1e-6"'
    return f'solref="{timeconst:g} {damping_ratio(cor):.6g}"'


def mujoco_friction(pair: Pair, radius: float) -> str:
    """Sliding, torsional and rolling friction; condim 1 (frictionless), 3 or 6 (with rolling)."""
    rolling = pair.mu_r * radius
    condim = 6 if rolling > 0 else 3 if pair.mu_k > 0 else 1
    return f'friction="{pair.mu_k:g} {rolling:g} {rolling:g}" condim="{condim}"'


def mujoco_xml(scene: Scene, setting: dict) -> str:
    """Boxes have priority 1, so a ball–box contact takes the box's friction, condim and solref
    (the pair's coefficients); ball–ball contacts take the balls'."""
    option = " ".join(f'{k}="{v}"' for k, v in setting.get("option", {}).items())
    radius = scene.spheres[0].radius
    geoms = []
    for i, box in enumerate(scene.boxes):
        pair = scene.ball_box[box.material]
        geoms.append(
            f'<geom name="box{i}" type="box" size="{" ".join(map(str, box.half))}" '
            f'pos="{" ".join(map(str, box.center))}" priority="1" '
            f"{mujoco_friction(pair, radius)} {mujoco_solref(pair.cor, setting)}/>"
        )
    for i, sphere in enumerate(scene.spheres):
        geoms.append(
            f'<body name="s{i}" pos="{" ".join(map(str, sphere.position))}"><freejoint/>'
            f'<geom type="sphere" size="{sphere.radius}" mass="{sphere.mass}" '
            f"{mujoco_friction(scene.ball_ball, radius)} "
            f"{mujoco_solref(scene.ball_ball.cor, setting)}/></body>"
        )
    body = "\n    ".join(geoms)
    # The arena for contacts and constraints, where the setting sizes it (MuJoCo's own estimate
    # fails to allocate for 10 000 balls).
    size = f'\n  <size memory="{setting["memory"]}"/>' if "memory" in setting else ""
    return (f'<mujoco>\n  <option {option}/>{size}\n  <worldbody>\n    {body}\n  </worldbody>'
            "\n</mujoco>")


class MujocoWorld:
    def __init__(self, scene: Scene, setting: dict):
        import mujoco

        self.mj = mujoco
        self.scene = scene
        self.model = mujoco.MjModel.from_xml_string(mujoco_xml(scene, setting))
        self.data = mujoco.MjData(self.model)
        self.dt = self.model.opt.timestep
        self.bodies = [self.model.body(f"s{i}").id for i in range(len(scene.spheres))]
        self.velocity = np.zeros(6)

    def reset(self):
        self.mj.mj_resetData(self.model, self.data)
        for body, sphere in zip(self.bodies, self.scene.spheres):
            dof = self.model.jnt_dofadr[self.model.body_jntadr[body]]
            self.data.qvel[dof : dof + 3] = sphere.velocity
        self.mj.mj_forward(self.model, self.data)

    def step(self, n: int):
        self.mj.mj_step(self.model, self.data, nstep=n)

    def state(self, i: int):
        """Position, velocity and angular velocity of sphere i, world coordinates."""
        body = self.bodies[i]
        self.mj.mj_objectVelocity(
            self.model, self.data, self.mj.mjtObj.mjOBJ_BODY, body, self.velocity, 0
        )
        return self.data.xpos[body].copy(), self.velocity[3:].copy(), self.velocity[:3].copy()

    def close(self):
        pass


# Default: 2 ms semi-implicit Euler, pyramidal friction cone, soft contacts with solref
# (0.02 s, 1) for every pair (critically damped: MuJoCo's defaults do not carry a restitution).
# "0.1 ms": only the step changed, as the billiard target states it. "0.1 ms, tuned": the
# restitution mapped onto solref with a time constant of 2 ms (20 steps; MuJoCo asks for at
# least 2), an elliptic cone and impratio 100 (friction nearly as hard as the normal direction);
# the most accurate of the combinations tried on the rolling ball.
MUJOCO_SETTINGS = {
    "default (2 ms)": {},
    "0.1 ms": {"option": {"timestep": 1e-4}},
    "0.1 ms, tuned": {
        "option": {"timestep": 1e-4, "cone": "elliptic", "impratio": 100},
        "timeconst": 0.002,
    },
}


# ---------------------------------------------------------------------------------------------
# PyBullet


class PybulletWorld:
    """Bullet combines two bodies' coefficients by products: restitution e_a·e_b, friction
    μ_a·μ_b, rolling and spinning friction ρ_a·μ_b + μ_a·ρ_b. The balls carry restitution
    sqrt(ball–ball cor) and friction 1, each box its pair's coefficients; so ball–box pairs are
    exact for cor_ball-ball = 1 and ball–ball friction is 1 (no per-pair friction in PyBullet)."""

    def __init__(self, scene: Scene, setting: dict):
        import pybullet

        self.pb = pybullet
        self.scene = scene
        self.setting = setting
        self.dt = setting.get("timestep", 1.0 / 240.0)
        self.client = pybullet.connect(pybullet.DIRECT)
        self.bodies = []

    def reset(self):
        pb, c, scene = self.pb, self.client, self.scene
        pb.resetSimulation(physicsClientId=c)
        pb.setGravity(0, 0, -GRAVITY, physicsClientId=c)
        pb.setPhysicsEngineParameter(fixedTimeStep=self.dt, physicsClientId=c)
        for box in scene.boxes:
            pair = scene.ball_box[box.material]
            shape = pb.createCollisionShape(pb.GEOM_BOX, halfExtents=box.half, physicsClientId=c)
            body = pb.createMultiBody(0, shape, basePosition=box.center, physicsClientId=c)
            rolling = pair.mu_r * scene.spheres[0].radius
            pb.changeDynamics(body, -1, lateralFriction=pair.mu_k, restitution=pair.cor,
                              rollingFriction=rolling, spinningFriction=rolling,
                              physicsClientId=c)
        self.bodies = []
        for sphere in scene.spheres:
            shape = pb.createCollisionShape(pb.GEOM_SPHERE, radius=sphere.radius,
                                            physicsClientId=c)
            body = pb.createMultiBody(sphere.mass, shape, basePosition=sphere.position,
                                      physicsClientId=c)
            # PyBullet damps every body by default (0.04): off, the scenes have no drag.
            pb.changeDynamics(body, -1, lateralFriction=1.0,
                              restitution=math.sqrt(scene.ball_ball.cor),
                              rollingFriction=0.0, spinningFriction=0.0,
                              linearDamping=0.0, angularDamping=0.0, physicsClientId=c)
            pb.resetBaseVelocity(body, list(sphere.velocity), [0, 0, 0], physicsClientId=c)
            self.bodies.append(body)

    def step(self, n: int):
        for _ in range(n):
            self.pb.stepSimulation(physicsClientId=self.client)

    def state(self, i: int):
        body, c = self.bodies[i], self.client
        position, _ = self.pb.getBasePositionAndOrientation(body, physicsClientId=c)
        linear, angular = self.pb.getBaseVelocity(body, physicsClientId=c)
        return np.array(position), np.array(linear), np.array(angular)

    def close(self):
        self.pb.disconnect(self.client)


# Default: 1/240 s, 50 solver iterations. "0.1 ms": the step that reaches the closed form of
# the rolling ball to round-off (Bullet's friction is an exact Coulomb constraint).
PYBULLET_SETTINGS = {
    "default (1/240 s)": {},
    "0.1 ms": {"timestep": 1e-4},
}

PEERS = {
    "mujoco": ("MuJoCo", MujocoWorld, MUJOCO_SETTINGS),
    "pybullet": ("PyBullet", PybulletWorld, PYBULLET_SETTINGS),
}


@dataclass
class Trajectory:
    """Samples of every sphere: t (n), positions, velocities and angular velocities (n, spheres,
    3)."""

    t: np.ndarray
    x: np.ndarray
    v: np.ndarray
    w: np.ndarray


def run_peers(scene: Scene, engines: list[str], stop: float, repeat: int, record_until: float,
              settings_of=None):
    """Per engine and setting: the Run (median wall time of the stepping alone, the world built
    and reset outside the clock), the final states of all spheres, and the Trajectory of every
    step up to `record_until` (a separate, untimed run). `settings_of(key)` gives an engine's
    settings by name (default: its settings in PEERS)."""
    for key in engines:
        engine, World, settings = PEERS[key]
        if settings_of is not None:
            settings = settings_of(key)
        for name, setting in settings.items():
            world = World(scene, setting)
            try:
                steps = int(round(stop / world.dt))

                def once() -> tuple[float, float]:
                    world.reset()
                    return timed(lambda: world.step(steps))

                wall, cpu = median_times(once, repeat)
                spheres = range(len(scene.spheres))
                final = [world.state(i) for i in spheres]
                world.reset()
                samples = [[world.state(i) for i in spheres]]
                for _ in range(int(round(record_until / world.dt))):
                    world.step(1)
                    samples.append([world.state(i) for i in spheres])
                x, v, w = (np.array([[s[k] for s in row] for row in samples]) for k in range(3))
                trajectory = Trajectory(np.arange(len(samples)) * world.dt, x, v, w)
            finally:
                world.close()
            yield Run(engine, name, wall, cpu, steps=steps), final, trajectory


# ---------------------------------------------------------------------------------------------
# Tables


def format_table(headers: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def common_columns(run: Run, reference: Run) -> list[str]:
    events = "–" if run.events is None else str(run.events)
    outputs = "–" if run.cpu_with_outputs is None else f"{run.cpu_with_outputs:.3f}"
    return [run.engine, run.setting, f"{run.wall:.3f}", f"{run.cpu:.3f}",
            f"{run.cpu / reference.cpu:.3g}", outputs, str(run.steps), events,
            run.evaluations or "–"]


# The timed runs of every engine read the end state only; fmu3d's "CPU with outputs" is the
# same run writing the model's outputs (every 1 ms for the rolling ball, 10 ms for the break).
COMMON_HEADERS = ["engine", "setting", "wall [s]", "CPU [s]", "CPU / fmu3d's",
                  "fmu3d's CPU with outputs [s]", "steps", "events", "evaluations"]


# ---------------------------------------------------------------------------------------------
# Rolling ball


def rolling_ball_setup(workdir: Path) -> tuple[RollingBall, Scene, CheckedModel]:
    """The rolling ball's closed form, its scene for the peers and what `fmu3d check` says."""
    model = rolling_ball_variant(REPO / "models" / "rolling_ball.m3d", workdir)
    checked = check_model(model)
    p = checked.parameters
    ball = RollingBall(p["r"], p["v0"], p["mu_k"], checked.masses["ball"])
    half = ROLLING_BALL_TABLE_LENGTH / 2
    table_pair = shipped_pairs()[frozenset(("billiard_ball", "billiard_table"))]
    scene = Scene(
        spheres=[Sphere(ball.radius, ball.mass, np.array([-1.5, 0, ball.radius]),
                        np.array([ball.v0, 0, 0]))],
        boxes=[Box([0, 0, -0.05], [half, 1, 0.05], "table")],
        ball_ball=Pair(1.0, 0.0, 0.0),
        ball_box={"table": Pair(table_pair.cor, p["mu_k"], p["mu_r"])},
    )
    return ball, scene, checked


def rolling_ball_peers(ball: RollingBall, scene: Scene, engines: list[str], stop: float,
                       repeat: int, settings_of=None) -> list[Run]:
    """The peers' runs of the rolling ball, with their slip metrics."""
    runs = []
    for run, _, path in run_peers(scene, engines, stop, repeat, stop, settings_of):
        run.metrics = slip_metrics(ball, path.t, path.v[:, 0], path.w[:, 0], path.x[:, 0, 2], up=2)
        runs.append(run)
    return runs


def rolling_ball_scene(workdir: Path, stop: float, repeat: int, engines: list[str]) -> str:
    ball, scene, checked = rolling_ball_setup(workdir)
    p = checked.parameters
    runs = rolling_ball_fmu3d(workdir, ball, stop, repeat)
    runs += rolling_ball_peers(ball, scene, engines, stop, repeat)

    reference = runs[0]
    headers = list(COMMON_HEADERS)
    for threshold in SLIP_THRESHOLDS:
        headers += [f"t(slip<{threshold * 1e3:g} mm/s) [ms]", "error", "error / fmu3d's"]
    headers += ["v(5 s) [m/s]", "error"]
    rows = []
    for run in runs:
        row = common_columns(run, reference)
        for threshold in SLIP_THRESHOLDS:
            error = run.metrics[f"t_err_{threshold:g}"]
            ratio = error / reference.metrics[f"t_err_{threshold:g}"]
            row += [f"{run.metrics[f't_{threshold:g}'] * 1e3:.3f}", f"{error:.2e}", f"{ratio:.3g}"]
        row += [f"{run.metrics['v_end']:.5f}", f"{run.metrics['v_err']:.2e}"]
        rows.append(row)
    exact = ", ".join(
        f"t(slip<{th * 1e3:g} mm/s) = {ball.t_slip_below(th) * 1e3:.3f} ms" for th in SLIP_THRESHOLDS
    )
    return (
        f"rolling_ball ({stop:g} s): r = {ball.radius} m, m = {ball.mass:.4f} kg, "
        f"v0 = {ball.v0} m/s, mu_k = {ball.mu_k}, mu_r = 0, fmu3d's v_small = "
        f"{p['v_small']:g} m/s unless the setting says otherwise; closed form t* = "
        f"{ball.t_roll * 1e3:.3f} ms, {exact}, v_roll = {ball.v_roll:.5f} m/s\n"
        + format_table(headers, rows)
    )


# ---------------------------------------------------------------------------------------------
# Billiard break: 16 balls


def mirror_error(start: np.ndarray, end: np.ndarray, axis: int) -> float:
    """The break starts mirror-symmetric about the plane `axis` = 0 and stays so in the exact
    solution: the largest distance between a ball's end position and the mirror image of its
    partner's (the ball that started at its mirror image)."""
    mirror = np.ones(3)
    mirror[axis] = -1
    partner = [int(np.argmin(np.linalg.norm(start - p * mirror, axis=1))) for p in start]
    assert all(np.linalg.norm(start[j] - start[i] * mirror) < 1e-9 for i, j in enumerate(partner))
    return max(np.linalg.norm(end[i] - end[j] * mirror) for i, j in enumerate(partner))


def off_the_bed(end: np.ndarray, radius: float, half_lengths: list[float], up: int) -> int:
    """How many balls do not end on the playing surface: center outside the cushions' inner
    faces, or not at ball height (1 mm tolerance)."""
    horizontal = [axis for axis in range(3) if axis != up]
    count = 0
    for p in end:
        inside = all(abs(p[a]) <= h - radius + 1e-3 for a, h in zip(horizontal, half_lengths))
        count += not (inside and abs(p[up] - radius) < 1e-3)
    return count


def cue_travel_time(distance: float, v0: float, pair: Pair) -> float:
    """Closed form: the time a cue ball struck at v0 without spin needs to cover `distance`.
    Sliding, friction decelerates it at μ_k g while friction less rolling resistance spins it
    up (I ω̇ = (μ_k − μ_r) m g r), so the slip falls at (7 μ_k − 5 μ_r) g / 2 and it rolls from
    t* = 2 v0 / ((7 μ_k − 5 μ_r) g); rolling, the resistance torque μ_r r m g decelerates it at
    5/7 μ_r g."""
    a_slide = pair.mu_k * GRAVITY
    t_roll = 2 * v0 / ((7 * pair.mu_k - 5 * pair.mu_r) * GRAVITY)
    x_roll = v0 * t_roll - a_slide * t_roll**2 / 2
    if distance <= x_roll:
        return (v0 - math.sqrt(v0**2 - 2 * a_slide * distance)) / a_slide
    v_roll, a_roll = v0 - a_slide * t_roll, 5 / 7 * pair.mu_r * GRAVITY
    rest = distance - x_roll
    return t_roll + (v_roll - math.sqrt(v_roll**2 - 2 * a_roll * rest)) / a_roll


def first_impact(path: Trajectory, radius: float, up: int) -> float:
    """The instant the cue ball (the one moving at the start) first touches another ball: the
    last sample before any other ball moves horizontally (faster than 1 cm/s), extrapolated with
    the cue's velocity to the center distance 2 r from the ball nearest to it."""
    horizontal = np.delete(path.v, up, axis=2)
    cue = int(np.argmax(np.linalg.norm(path.v[0], axis=1)))
    speeds = np.linalg.norm(np.delete(horizontal, cue, axis=1), axis=2)
    moving = np.flatnonzero(speeds.max(axis=1) > 0.01)
    if moving.size == 0:
        return math.nan
    before = moving[0] - 1
    distances = np.linalg.norm(path.x[before] - path.x[before, cue], axis=1)
    distances[cue] = math.inf
    d = path.x[before, cue] - path.x[before, int(np.argmin(distances))]
    v = path.v[before, cue]
    a, b, c = v @ v, 2 * d @ v, d @ d - 4 * radius**2
    return path.t[before] + (-b - math.sqrt(max(b * b - 4 * a * c, 0.0))) / (2 * a)


def fmu3d_trajectory(columns: dict[str, np.ndarray], names: list[str]) -> Trajectory:
    vectors = lambda quantity: np.stack(
        [np.column_stack([columns[f"{n}.{quantity}[{k}]"] for k in (1, 2, 3)]) for n in names],
        axis=1,
    )
    return Trajectory(columns["time"], vectors("r"), vectors("v"), vectors("w"))


def billiard16_scene(workdir: Path, stop: float, repeat: int, engines: list[str]) -> str:
    model = REPO / "models" / "billiard16.m3d"
    if not model.exists():
        return f"billiard16: {model} not found, scene skipped"
    checked = check_model(model)
    p = checked.parameters
    radius, bed = p["r"], [p["L"] / 2, p["W"] / 2]
    run, columns = run_fmu3d(model, stop, None, repeat, "model's tol 1e-6")
    names = list(checked.masses)
    path = fmu3d_trajectory(columns, names)
    # (Run, Trajectory, end positions, vertical axis, axis normal to the mirror plane)
    runs = [(run, path, path.x[-1], 1, 2)]

    scene, impact = billiard16_peer_scene(checked, names, path)
    for peer_run, final, peer_path in run_peers(scene, engines, stop, repeat, 2 * impact):
        end = np.array([position for position, _, _ in final])
        runs.append((peer_run, peer_path, end, 2, 1))

    headers = COMMON_HEADERS + ["first impact [ms]", "error", "mirror-symmetry error at 5 s [mm]",
                                "balls off the bed"]
    rows = []
    for r, trajectory, end, up, mirror_axis in runs:
        metrics = break_metrics(trajectory, end, up, mirror_axis, radius, impact)
        rows.append(common_columns(r, runs[0][0]) + [
            f"{metrics['first_impact'] * 1e3:.3f}",
            f"{metrics['first_impact_err']:.2e}",
            f"{metrics['mirror'] * 1e3:.3g}",
            str(off_the_bed(end, radius, bed, up)),
        ])
    table = shipped_pairs()[frozenset(("billiard_ball", "billiard_table"))]
    return (
        f"billiard16 ({stop:g} s): {len(names)} balls, r = {radius} m, m = "
        f"{checked.masses[names[0]]:.4f} kg, cue at {p['v_cue']} m/s; closed form of the first "
        f"impact (sliding, then rolling against mu_r = {table.mu_r}): {impact * 1e3:.3f} ms\n"
        + format_table(headers, rows)
    )


def break_metrics(trajectory: Trajectory, end: np.ndarray, up: int, mirror_axis: int,
                  radius: float, impact: float) -> dict[str, float]:
    """The break's error measures: the first impact's instant and its relative error against
    the closed form, and the mirror-symmetry error of the end positions [m]."""
    t_impact = first_impact(trajectory, radius, up)
    return {"first_impact": t_impact,
            "first_impact_err": abs(t_impact - impact) / impact,
            "mirror": mirror_error(trajectory.x[0], end, mirror_axis)}


def billiard16_peer_scene(checked: CheckedModel, names: list[str], path: Trajectory):
    """The break for the peers, from the model's parameters and fmu3d's start state (`path`),
    and the closed form of the first impact's instant [s]."""
    p = checked.parameters
    radius = p["r"]
    pairs = shipped_pairs()
    table = pairs[frozenset(("billiard_ball", "billiard_table"))]
    travel = np.linalg.norm(path.x[0, 0] - path.x[0, names.index("ball[1]")]) - 2 * radius
    impact = cue_travel_time(travel, p["v_cue"], table)

    L, W, cw, ch = p["L"], p["W"], p["cushion_width"], p["cushion_height"]
    # The model's boxes (centre, lengths), y up.
    boxes = [([0, -0.05, 0], [L + 2 * cw, 0.1, W + 2 * cw], "billiard_table")]
    for sign in (1, -1):
        boxes.append(([sign * (L / 2 + cw / 2), ch / 2, 0], [cw, ch, W], "cushion"))
        boxes.append(([0, ch / 2, sign * (W / 2 + cw / 2)], [L + 2 * cw, ch, cw], "cushion"))
    scene = Scene(
        spheres=[
            Sphere(radius, checked.masses[n], from_y_up(path.x[0, i]), from_y_up(path.v[0, i]))
            for i, n in enumerate(names)
        ],
        boxes=[Box(list(from_y_up(c)), list(np.abs(from_y_up(lengths)) / 2), material)
               for c, lengths, material in boxes],
        ball_ball=pairs[frozenset(("billiard_ball",))],
        ball_box={m: pairs[frozenset(("billiard_ball", m))] for m in ("billiard_table", "cushion")},
    )
    return scene, impact


# ---------------------------------------------------------------------------------------------
# Scale: balls poured into a box, a chain of links


def run_child(command: list[str], stdout: Path, stderr: Path, timeout: float | None = None):
    """Runs `command` with its output in files; returns its exit code (None if it was stopped
    after `timeout` seconds), wall and CPU time [s] and peak resident memory [bytes].

    The peak comes from GNU time (`/usr/bin/time -f %M`) between this process and the command:
    the ru_maxrss that os.wait4 or getrusage report for a direct child starts from this
    interpreter's own peak (Linux keeps it across the child's exec), some 30 MB."""
    if not Path("/usr/bin/time").exists():
        sys.exit("error: /usr/bin/time (GNU time, Debian package `time`) is needed for the peak "
                 "memory")
    peak = stdout.with_suffix(".maxrss")
    command = ["/usr/bin/time", "-f", "%M", "-o", str(peak)] + command
    with stdout.open("w") as out, stderr.open("w") as err:
        start = time.perf_counter()
        child = subprocess.Popen(command, stdout=out, stderr=err, start_new_session=True)
        stopped = False
        while True:
            pid, status, usage = os.wait4(child.pid, os.WNOHANG if timeout else 0)
            if pid:
                break
            if time.perf_counter() - start > timeout:
                os.killpg(child.pid, signal.SIGKILL)  # GNU time and the command
                stopped = True
                _, status, usage = os.wait4(child.pid, 0)
                break
            time.sleep(0.05)
        wall = time.perf_counter() - start
    child.returncode = None if stopped else os.waitstatus_to_exitcode(status)
    # The last line: GNU time writes "Command exited with non-zero status" before it.
    lines = peak.read_text().split() if peak.exists() else []
    memory = int(lines[-1]) * 1024 if lines and lines[-1].isdigit() else math.nan
    return child.returncode, wall, usage.ru_utime + usage.ru_stime, memory


def grid(n: int) -> tuple[int, int, int]:
    """nx, ny, nz with nx = nz and nx · ny · nz = n, the column height ny nearest to nx."""
    shapes = [(k, n // (k * k), k) for k in range(1, n + 1) if n % (k * k) == 0]
    return min(shapes, key=lambda s: abs(math.log(s[1] / s[0])))


def fit_exponent(sizes: list[float], costs: list[float]) -> float:
    """Least-squares slope of ln cost over ln size (nan below two points)."""
    if len(sizes) < 2:
        return math.nan
    return float(np.polyfit(np.log(sizes), np.log(costs), 1)[0])


def megabytes(size: float) -> str:
    return "?" if math.isnan(size) else f"{size / 1e6:.3g} MB"


@dataclass
class PourBox:
    """The release grid and the walled box of models/pour.m3d, y up as in the model."""

    nx: int
    ny: int
    nz: int
    radius: float
    pitch: float
    h0: float
    wall: float

    @property
    def n(self) -> int:
        return self.nx * self.ny * self.nz

    def start(self, i: int) -> list[float]:
        """Release position of ball i (1-based), the model's `drop[i]` position."""
        nx, nz, p = self.nx, self.nz, self.pitch
        return [((i - 1) % nx - (nx - 1) / 2) * p,
                self.h0 + ((i - 1) // (nx * nz)) * p,
                (((i - 1) // nx) % nz - (nz - 1) / 2) * p]

    def boxes(self) -> list[tuple[list[float], list[float]]]:
        """(centre, lengths) of the floor and the four walls."""
        x, z, w = self.nx * self.pitch, self.nz * self.pitch, self.wall
        height = self.ny * self.pitch + self.h0
        return [
            ([0, -w / 2, 0], [x + 2 * w, w, z + 2 * w]),
            ([-(x + w) / 2, height / 2, 0], [w, height, z + 2 * w]),
            ([(x + w) / 2, height / 2, 0], [w, height, z + 2 * w]),
            ([0, height / 2, -(z + w) / 2], [x, height, w]),
            ([0, height / 2, (z + w) / 2], [x, height, w]),
        ]

    def sanity(self, positions: np.ndarray, up: int) -> tuple[float, int]:
        """Mean height of the ball centres above the floor [m], and how many balls are not in
        the box: centre below the floor's surface, or beyond a wall's inner face (1 mm)."""
        horizontal = [axis for axis in range(3) if axis != up]
        halves = [self.nx * self.pitch / 2, self.nz * self.pitch / 2]
        outside = 0
        for q in positions:
            inside = all(abs(q[a]) <= h + 1e-3 for a, h in zip(horizontal, halves))
            outside += not (inside and q[up] > 0)
        return float(positions[:, up].mean()), outside


def mujoco_pour_setting(n: int) -> dict:
    """MuJoCo on the pour of n balls: a 1 ms step, its default pyramidal cone, the restitution
    mapped onto solref with a 10 ms time constant (the damping ratio of cor 0.7 is 0.11). At this
    step, with 2 ms 8 balls blew up at their first impact on the floor, with 4 ms 100 balls
    gained energy and flew out of the box; with 10 ms their mean height settles. The arena grows
    with n (50 KB a ball, at least 64 MB)."""
    return {"option": {"timestep": 1e-3}, "timeconst": 0.01, "memory": f"{max(64, n // 20)}M"}


def mujoco_child(xml: Path, stop: float, repeat: int, positions: Path) -> None:
    """Runs in a process of its own, so its peak memory is MuJoCo's on this scene alone:
    `repeat` timed runs of the stepping from the release (the world built outside the clock);
    prints the median wall and CPU times, MuJoCo's own buffers and warnings as JSON, saves the
    balls' final positions."""
    import mujoco

    model = mujoco.MjModel.from_xml_path(str(xml))
    data = mujoco.MjData(model)
    steps = int(round(stop / model.opt.timestep))

    def once() -> tuple[float, float]:
        mujoco.mj_resetData(model, data)
        mujoco.mj_forward(model, data)
        return timed(lambda: mujoco.mj_step(model, data, nstep=steps))

    wall, cpu = median_times(once, repeat)
    bodies = [model.body(f"s{i}").id for i in range(model.nbody - 1)]
    np.save(positions, data.xpos[bodies])
    warnings = {mujoco.mjtWarning(i).name: int(w.number) for i, w in enumerate(data.warning)
                if w.number}
    print(json.dumps({"wall": wall, "cpu": cpu, "steps": steps, "warnings": warnings,
                      "buffers": model.nbuffer + data.nbuffer, "ncon": int(data.ncon)}))


def pour_fmu3d(workdir: Path, box: PourBox, stop: float, repeat: int) -> dict:
    """`fmu3d simulate models/pour.m3d --param nx=… …` for `stop` simulated seconds: median wall
    (as the command reports it) and CPU time (whole process), the statistics of the last run,
    peak memory, and the sanity figures on the last output row; or the refusal."""
    csv = workdir / f"pour_{box.n}.csv"
    # Outputs every 10 ms: the model's 0.1 ms interval is its step budget's unit, not a rate
    # of outputs the comparison needs.
    command = [str(fmu3d_executable()), "simulate", str(REPO / "models" / "pour.m3d"),
               "--stop-time", str(stop), "--step", "0.01", "-o", str(csv)]
    for name, value in (("nx", box.nx), ("ny", box.ny), ("nz", box.nz)):
        command += ["--param", f"{name}={value}"]
    out, err = workdir / "fmu3d.out", workdir / "fmu3d.err"
    runs = []
    for _ in range(repeat):
        code, wall, cpu, memory = run_child(command, out, err)
        text = err.read_text()
        if code != 0:
            lines = [line for line in text.splitlines() if line.strip()]
            return {"refused": lines[-1] if lines else f"exit code {code}", "memory": memory}
        match = STATS.search(text)
        if not match:
            sys.exit(f"error: no statistics line in the output of fmu3d:\n{text}")
        stats = {k: float(v) for k, v in match.groupdict().items() if v is not None}
        runs.append((stats["wall"], cpu, memory))
    data = read_result(csv)
    end = np.array([[data[f"ball[{i}].r[{k}]"][-1] for k in (1, 2, 3)]
                    for i in range(1, box.n + 1)])
    height, outside = box.sanity(end, up=1)
    return {"wall": statistics.median(r[0] for r in runs),
            "cpu": statistics.median(r[1] for r in runs),
            "memory": max(r[2] for r in runs), "stats": stats,
            "height": height, "outside": outside}


def pour_mujoco(workdir: Path, box: PourBox, mass: float, stop: float, repeat: int,
                timeout: float) -> dict:
    """The same scene in MuJoCo (z up), in a child process (`mujoco_child`), stopped after
    `timeout` seconds."""
    pairs = shipped_pairs()
    scene = Scene(
        spheres=[Sphere(box.radius, mass, from_y_up(box.start(i)), np.zeros(3))
                 for i in range(1, box.n + 1)],
        boxes=[Box(list(from_y_up(c)), list(np.abs(from_y_up(lengths)) / 2), "dry_wood")
               for c, lengths in box.boxes()],
        ball_ball=pairs[frozenset(("steel",))],
        ball_box={"dry_wood": pairs[frozenset(("steel", "dry_wood"))]},
    )
    xml = workdir / f"pour_{box.n}.xml"
    xml.write_text(mujoco_xml(scene, mujoco_pour_setting(box.n)))
    positions = workdir / f"pour_{box.n}.npy"
    out, err = workdir / "mujoco.out", workdir / "mujoco.err"
    command = [sys.executable, __file__, "--mujoco-child", str(xml), str(stop), str(repeat),
               str(positions)]
    code, wall, _, memory = run_child(command, out, err, timeout)
    if code is None:
        return {"stopped": wall, "memory": memory}
    if code != 0:
        sys.exit(f"error: the MuJoCo run failed:\n{err.read_text()}")
    result = json.loads(out.read_text())
    height, outside = box.sanity(np.load(positions), up=2)
    return {**result, "memory": memory, "height": height, "outside": outside}


def pour_scene(workdir: Path, sizes: list[int], stops: list[float], repeat: int,
               mujoco_timeout: float | None) -> str:
    """Cost and memory against the number of balls N, fmu3d beside MuJoCo at 1 ms (without
    `mujoco_timeout`, fmu3d alone). The parameters and a ball's mass come from `fmu3d check` on
    the shipped model (2 × 2 × 2)."""
    checked = check_model(REPO / "models" / "pour.m3d")
    p = checked.parameters
    mass = checked.masses["ball[1]"]
    headers = ["N (nx×ny×nz)", "states", "window [s]", "fmu3d wall / sim. s [s]",
               "fmu3d CPU / sim. s [s]", "steps", "residual evals (+for Jacobians)", "Jacobians",
               "fmu3d peak memory", "MuJoCo 1 ms wall / sim. s [s]", "MuJoCo CPU / sim. s [s]",
               "MuJoCo process peak (its buffers)", "mean height at the end [mm] fmu3d / MuJoCo",
               "balls out of the box fmu3d / MuJoCo"]
    rows, fits = [], {"fmu3d CPU": [], "fmu3d memory": [], "MuJoCo CPU": [], "MuJoCo memory": []}
    for n, stop in zip(sizes, stops):
        box = PourBox(*grid(n), p["R"], p["p"], p["h0"], p["wall"])
        fmu = pour_fmu3d(workdir, box, stop, repeat)
        peer = None
        if mujoco_timeout:
            peer = pour_mujoco(workdir, box, mass, stop, repeat, mujoco_timeout)
        shape = f"{n} ({box.nx}×{box.ny}×{box.nz})"
        if "refused" in fmu:
            row = [shape, "–", f"{stop:g}", f"refused: {fmu['refused']}", "", "", "", "",
                   megabytes(fmu["memory"])]
        else:
            s = fmu["stats"]
            row = [shape, str(int(s["states"])), f"{stop:g}", f"{fmu['wall'] / stop:.3g}",
                   f"{fmu['cpu'] / stop:.3g}", str(int(s["steps"])),
                   f"{int(s['res'])} (+{int(s['jac_res'])})", str(int(s["jac"])),
                   megabytes(fmu["memory"])]
            fits["fmu3d CPU"].append((n, fmu["cpu"] / stop))
            fits["fmu3d memory"].append((n, fmu["memory"]))
        if peer is None:
            row += ["–", "–", "–"]
        elif "stopped" in peer:
            row += [f"not done in {peer['stopped']:.0f} s (stopped)", "", megabytes(peer["memory"])]
        else:
            warnings = ", ".join(f"{k} ×{v}" for k, v in peer["warnings"].items())
            row += [f"{peer['wall'] / stop:.3g}", f"{peer['cpu'] / stop:.3g}",
                    f"{megabytes(peer['memory'])} ({megabytes(peer['buffers'])})"
                    + (f"; warnings: {warnings}" if warnings else "")]
            fits["MuJoCo CPU"].append((n, peer["cpu"] / stop))
            fits["MuJoCo memory"].append((n, peer["memory"]))
        heights = [f"{r['height'] * 1e3:.1f}" if r and "height" in r else "–"
                   for r in (fmu, peer)]
        outside = [str(r["outside"]) if r and "outside" in r else "–" for r in (fmu, peer)]
        rows.append(row + [" / ".join(heights), " / ".join(outside)])
        print(f"pour: N = {n} done", file=sys.stderr, flush=True)
    exponents = "; ".join(
        f"{name} ∝ N^{fit_exponent(*zip(*points)):.2f}" for name, points in fits.items()
        if len(points) >= 2
    ) or "none (fewer than two sizes)"
    return (
        f"pour: steel balls (R = {p['R']} m, m = {mass:.4f} kg) released on a grid of pitch "
        f"{p['p']} m, lowest row {p['h0']} m above the floor of a walled dry-wood box; MuJoCo at "
        f"a 1 ms step, solref from cor with a 10 ms time constant; median of {repeat}\n"
        + format_table(headers, rows)
        + f"\nfitted exponents (least squares on ln–ln over the sizes run): {exponents}"
    )


def chain_scene(workdir: Path, sizes: list[int], stop: float, repeat: int) -> str:
    """`fmu3d simulate models/chain.m3d --param N=…` at the model's settings: cost per simulated
    second and residual evaluations per step against N (the Jacobians' share grows with N)."""
    headers = ["N", "states", "wall / sim. s [ms]", "CPU / sim. s [ms]", "peak memory", "steps",
               "residual evals (+for Jacobians)", "Jacobians", "residual evals per step"]
    rows, cpu, per_step = [], [], []
    out, err = workdir / "chain.out", workdir / "chain.err"
    for n in sizes:
        command = [str(fmu3d_executable()), "simulate", str(REPO / "models" / "chain.m3d"),
                   "--param", f"N={n}", "--stop-time", str(stop), "-o",
                   str(workdir / "chain.csv")]
        runs = []
        for _ in range(repeat):
            code, _, process_cpu, memory = run_child(command, out, err)
            match = STATS.search(err.read_text())
            if code != 0 or not match:
                sys.exit(f"error: fmu3d failed on the chain:\n{err.read_text()}")
            s = {k: float(v) for k, v in match.groupdict().items() if v is not None}
            runs.append((s["wall"], process_cpu, memory))
        wall = statistics.median(r[0] for r in runs)
        cpu_time = statistics.median(r[1] for r in runs)
        evaluations = (s["res"] + s["jac_res"]) / s["steps"]
        cpu.append(cpu_time / stop)
        per_step.append(evaluations)
        rows.append([str(n), str(int(s["states"])), f"{wall / stop * 1e3:.3g}",
                     f"{cpu_time / stop * 1e3:.3g}", megabytes(max(r[2] for r in runs)),
                     str(int(s["steps"])), f"{int(s['res'])} (+{int(s['jac_res'])})",
                     str(int(s["jac"])), f"{evaluations:.2f}"])
    # The process's start (some ms of CPU) dominates the smallest chains: a second fit without.
    large = list(zip(*[(n, c) for n, c in zip(sizes, cpu) if n >= 8])) or [[], []]
    return (
        f"chain ({stop:g} s simulated, the model's tolerance): fmu3d alone, median of {repeat}\n"
        + format_table(headers, rows)
        + f"\nfitted exponents: CPU per simulated second ∝ N^{fit_exponent(sizes, cpu):.2f} "
        f"(N ≥ 8: N^{fit_exponent(*large):.2f}), residual evaluations per step ∝ "
        f"N^{fit_exponent(sizes, per_step):.2f}"
    )


# ---------------------------------------------------------------------------------------------
# Work against precision: fmu3d over its tolerance, the peers over their step


# fmu3d's relative tolerances, and the peers' fixed steps [s]: a decade and more either side of
# PyBullet's 1/240 s and MuJoCo's 2 ms (each decade in two steps of √10).
WORK_PRECISION_TOLERANCES = (1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9)
WORK_PRECISION_STEPS = {
    "pybullet": (1 / 24, 1 / 76, 1 / 240, 1 / 760, 1 / 2400, 1 / 7600, 1 / 24000),
    "mujoco": (2e-2, 6.3e-3, 2e-3, 6.3e-4, 2e-4, 6.3e-5, 2e-5),
}
PEER_DEFAULT_STEPS = {"pybullet": 1 / 240, "mujoco": 2e-3}


def step_settings(key: str) -> dict[str, dict]:
    """A peer's settings by name over WORK_PRECISION_STEPS: its defaults but the step."""
    settings = {}
    for dt in WORK_PRECISION_STEPS[key]:
        setting = {"timestep": dt} if key == "pybullet" else {"option": {"timestep": dt}}
        settings[f"dt {dt:.3g} s"] = setting
    return settings


@dataclass
class Point:
    """One run of a work–precision line: its CPU time [s] and its errors by measure."""

    engine: str
    setting: str
    default: bool
    cpu: float
    steps: int | None
    errors: dict[str, float]


def peer_point(key: str, run: Run, errors: dict[str, float]) -> Point:
    dt = float(run.setting.split()[1])
    default = math.isclose(dt, PEER_DEFAULT_STEPS[key], rel_tol=1e-3)
    return Point(run.engine, run.setting, default, run.cpu, run.steps, errors)


def fmu3d_settings(model_tolerance: float):
    return [(f"tol {tol:g}", tol, math.isclose(tol, model_tolerance))
            for tol in WORK_PRECISION_TOLERANCES]


def rolling_ball_work_precision(workdir: Path, stop: float, repeat: int, engines: list[str]):
    """The rolling ball's points: the relative errors of the slip's fall below 1 mm/s and of the
    rolling speed at the stop time, against the closed form."""
    ball, scene, checked = rolling_ball_setup(workdir)
    measures = {"t_err_0.001": "transition time t(slip < 1 mm/s), relative error",
                "v_err": f"rolling speed at {stop:g} s, relative error"}
    points = []
    for name, tol, default in fmu3d_settings(checked.tolerance):
        try:
            (run,) = rolling_ball_fmu3d(workdir, ball, stop, repeat, [(name, None, tol)])
        except subprocess.CalledProcessError as failed:
            print(f"rolling_ball: fmu3d at {name} failed: {failed.stderr.strip()[-200:]}",
                  file=sys.stderr)
            continue
        points.append(Point("fmu3d", name, default, run.cpu, run.steps,
                            {k: run.metrics[k] for k in measures}))
    for key in engines:
        for run in rolling_ball_peers(ball, scene, [key], stop, repeat, step_settings):
            points.append(peer_point(key, run, {k: run.metrics[k] for k in measures}))
    return measures, points


def billiard16_work_precision(workdir: Path, stop: float, repeat: int, engines: list[str]):
    """The break's points: the first impact's instant against the closed form (relative), and
    the end positions' distance from mirror symmetry [m]."""
    model = REPO / "models" / "billiard16.m3d"
    checked = check_model(model)
    radius = checked.parameters["r"]
    names = list(checked.masses)
    measures = {"first_impact_err": "first impact's instant, relative error",
                "mirror": f"mirror-symmetry error at {stop:g} s [m]"}
    points, scene, impact = [], None, None
    for name, tol, default in fmu3d_settings(checked.tolerance):
        try:
            run, columns = run_fmu3d(model, stop, tol, repeat, name)
        except subprocess.CalledProcessError as failed:
            print(f"billiard16: fmu3d at {name} failed: {failed.stderr.strip()[-200:]}",
                  file=sys.stderr)
            continue
        path = fmu3d_trajectory(columns, names)
        if scene is None:
            scene, impact = billiard16_peer_scene(checked, names, path)
        metrics = break_metrics(path, path.x[-1], 1, 2, radius, impact)
        # The first impact on outputs every 0.1 ms up to twice its instant (the model's 10 ms
        # samples extrapolated to the touch leave 2e-6 of the cue's deceleration; the peers'
        # samples are their steps).
        _, dense = run_fmu3d(model, 2 * impact, tol, 1, name, output_step=1e-4)
        close = break_metrics(fmu3d_trajectory(dense, names), path.x[-1], 1, 2, radius, impact)
        metrics["first_impact_err"] = close["first_impact_err"]
        points.append(Point("fmu3d", name, default, run.cpu, run.steps,
                            {k: metrics[k] for k in measures}))
    if scene is None:
        sys.exit("error: no fmu3d run of billiard16 succeeded")
    for key in engines:
        for run, final, path in run_peers(scene, [key], stop, repeat, 2 * impact, step_settings):
            end = np.array([position for position, _, _ in final])
            metrics = break_metrics(path, end, 2, 1, radius, impact)
            points.append(peer_point(key, run, {k: metrics[k] for k in measures}))
    return measures, points


ENGINE_STYLES = {"fmu3d": ("tab:blue", "o"), "MuJoCo": ("tab:orange", "s"),
                 "PyBullet": ("tab:green", "^")}


def draw_work_precision(title: str, measures: dict[str, str], points: list[Point],
                        path: Path) -> None:
    """One panel per error measure: CPU time against error, log–log, a line per engine through
    its settings, its default setting ringed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, len(measures), figsize=(6 * len(measures), 4.8))
    for axis, (key, label) in zip(np.atleast_1d(axes), measures.items()):
        for engine, (color, marker) in ENGINE_STYLES.items():
            line = [p for p in points if p.engine == engine
                    and math.isfinite(p.errors[key]) and p.errors[key] > 0 and p.cpu > 0]
            if not line:
                continue
            axis.plot([p.errors[key] for p in line], [p.cpu for p in line], marker=marker,
                      color=color, label=engine)
            for p in line:
                if p.default:
                    axis.plot(p.errors[key], p.cpu, marker="o", markersize=16,
                              markerfacecolor="none", markeredgecolor=color)
                    axis.annotate(f"default ({p.setting})", (p.errors[key], p.cpu),
                                  textcoords="offset points", xytext=(8, 8), fontsize=8,
                                  color=color)
        axis.set_xscale("log")
        axis.set_yscale("log")
        axis.set_xlabel(label)
        axis.set_ylabel("CPU time [s]")
        axis.grid(True, which="both", alpha=0.3)
        axis.legend()
    figure.suptitle(title)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)
    plt.close(figure)


def work_precision_scene(workdir: Path, stop: float, repeat: int, engines: list[str],
                         figures: Path) -> str:
    """Both scenes' work–precision points as tables, and one PNG per scene in `figures`."""
    texts = []
    for scene, measure in (("rolling_ball", rolling_ball_work_precision),
                           ("billiard16", billiard16_work_precision)):
        measures, points = measure(workdir, stop, repeat, engines)
        png = figures / f"work-precision-{scene}.png"
        draw_work_precision(f"{scene} ({stop:g} s): CPU time against error", measures, points,
                            png)
        headers = ["engine", "setting", "CPU [s]", "steps"] + list(measures.values())
        rows = [[p.engine, p.setting + (" (default)" if p.default else ""), f"{p.cpu:.4g}",
                 "–" if p.steps is None else str(p.steps)]
                + [f"{p.errors[k]:.3g}" for k in measures] for p in points]
        texts.append(f"work–precision, {scene} ({stop:g} s), drawn in {png}\n"
                     + format_table(headers, rows))
    return "\n\n".join(texts)


SCENES = {"rolling_ball": rolling_ball_scene, "billiard16": billiard16_scene}
# Run only when asked for (`--scenes pour chain work_precision`): minutes each.
SCALE_SCENES = ("pour", "chain", "work_precision")


def numbers(text: str, kind):
    """A comma-separated list of numbers."""
    return [kind(item) for item in text.split(",") if item.strip()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", nargs="+", default=list(SCENES),
                        choices=list(SCENES) + list(SCALE_SCENES))
    parser.add_argument("--engines", nargs="+", default=list(PEERS), choices=list(PEERS),
                        help="peers to run besides fmu3d (the pour: MuJoCo only)")
    parser.add_argument("--stop-time", type=float, default=5.0,
                        help="simulated time of rolling_ball and billiard16 [s]")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs (median reported)")
    parser.add_argument("--pour-sizes", default="27,100,1000",
                        help="numbers of balls N of the pour, comma-separated")
    parser.add_argument("--pour-stop", default="0.15",
                        help="simulated time of the pour [s]: one value, or one per size")
    parser.add_argument("--mujoco-timeout", type=float, default=300.0,
                        help="a MuJoCo run of the pour is stopped after this many seconds")
    parser.add_argument("--chain-sizes", default="2,4,8,16,32,64", help="links N of the chain")
    parser.add_argument("--chain-stop", type=float, default=1.0,
                        help="simulated time of the chain [s]")
    parser.add_argument("--figures", type=Path, default=REPO / "docs" / "images",
                        help="where work_precision draws its PNGs")
    # Internal: the MuJoCo run of one pour size, in a process of its own (see mujoco_child).
    parser.add_argument("--mujoco-child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.mujoco_child:
        xml, stop, repeat, positions = args.mujoco_child
        mujoco_child(Path(xml), float(stop), int(repeat), Path(positions))
        return
    with tempfile.TemporaryDirectory(prefix="fmu3d-peers-") as workdir:
        for scene in args.scenes:
            if scene == "pour":
                sizes, stops = numbers(args.pour_sizes, int), numbers(args.pour_stop, float)
                if len(stops) == 1:
                    stops *= len(sizes)
                if len(stops) != len(sizes):
                    sys.exit("error: --pour-stop needs one value, or one per --pour-sizes")
                timeout = args.mujoco_timeout if "mujoco" in args.engines else None
                text = pour_scene(Path(workdir), sizes, stops, args.repeat, timeout)
            elif scene == "work_precision":
                text = work_precision_scene(Path(workdir), args.stop_time, args.repeat,
                                            args.engines, args.figures)
            elif scene == "chain":
                text = chain_scene(Path(workdir), numbers(args.chain_sizes, int),
                                   args.chain_stop, args.repeat)
            else:
                text = SCENES[scene](Path(workdir), args.stop_time, args.repeat, args.engines)
            print(text)
            print(flush=True)


if __name__ == "__main__":
    main()
