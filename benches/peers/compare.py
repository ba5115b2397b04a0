#!/usr/bin/env python3
"""fmu3d's contact handling side by side with two peers, MuJoCo and PyBullet.

Each scene is simulated for the same time by
  - fmu3d: `fmu3d simulate` on the model file (IDA, contacts as events, the elastic contact law);
    its statistics line and CSV are parsed, the wall time is the one the command reports;
  - MuJoCo and PyBullet: the same bodies, masses, radii and contact coefficients built through
    their Python APIs, at their default settings and at settings chosen for accuracy.

The scenes read their numbers (radii, speeds, friction, masses) from the model files and from
`fmu3d check`, so the peers follow the models. Run through `bash scripts/bench-peers.sh`, which
installs the peers into .venv and builds fmu3d first. The mapping of each engine's contact model
and its limits are described in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
GRAVITY = 9.81


# ---------------------------------------------------------------------------------------------
# Results


@dataclass
class Run:
    """One engine at one setting on one scene."""

    engine: str
    setting: str
    wall: float  # median wall time of the simulation loop [s]
    steps: int | None = None
    events: int | None = None
    evaluations: str = ""  # what the engine counts of its work, as text
    metrics: dict[str, float] = field(default_factory=dict)


def median_wall(run_once, repeat: int) -> float:
    """The median of `repeat` wall times of `run_once()`, which returns its own wall time."""
    return statistics.median(run_once() for _ in range(repeat))


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
        for m in re.finditer(r"^\s*\d+: \[(\w+)[^]]*\] .*mass (\S+) kg", out, re.M)
    }
    return CheckedModel(parameters, masses)


STATS = re.compile(
    r"simulated in (?P<wall>[\d.]+) s wall; (?P<states>\d+) states; (?P<steps>\d+) steps, "
    r"(?P<res>\d+) residual evaluations \(\+(?P<jac_res>\d+) for Jacobians\), "
    r"(?P<jac>\d+) Jacobians, .*?(?P<roots>\d+) root evaluations; (?P<events>\d+) contact events"
)


def run_fmu3d(model: Path, stop: float, tolerance: float | None, repeat: int, setting: str):
    """Runs `fmu3d simulate`; returns the Run (statistics of the last run) and the CSV columns."""
    csv = model.with_suffix(".csv")
    command = [str(fmu3d_executable()), "simulate", str(model), "--stop-time", str(stop)]
    command += ["-o", str(csv)]
    if tolerance is not None:
        command += ["--tolerance", str(tolerance)]
    stats = {}

    def once() -> float:
        done = subprocess.run(command, check=True, capture_output=True, text=True)
        match = STATS.search(done.stderr)
        if not match:
            sys.exit(f"error: no statistics line in the output of fmu3d:\n{done.stderr}")
        stats.update({k: float(v) for k, v in match.groupdict().items()})
        return stats["wall"]

    wall = median_wall(once, repeat)
    data = np.genfromtxt(csv, delimiter=",", names=True, deletechars="")
    run = Run(
        "fmu3d",
        setting,
        wall,
        steps=int(stats["steps"]),
        events=int(stats["events"]),
        evaluations=f"{int(stats['res'])} res + {int(stats['jac_res'])} for "
        f"{int(stats['jac'])} Jacobians, {int(stats['roots'])} root",
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
        """Analytic rolling speed (momentum about the contact point is conserved)."""
        return 5.0 / 7.0 * self.v0

    def t_slip_below(self, threshold: float) -> float:
        """Analytic time at which the slip speed falls below `threshold`."""
        return self.t_roll * (1.0 - threshold / self.v0)


SLIP_THRESHOLDS = (1e-3, 1e-2)  # [m/s]

ROLLING_BALL_TABLE_LENGTH = 24.0  # [m]: the ball rolls about 10.5 m in 5 s


def rolling_ball_variant(source: Path, workdir: Path) -> Path:
    """The shipped model with the table lengthened so the ball stays on it for 5 s, and without
    rolling resistance (mu_r = 0), so that the closed form above is the exact reference."""
    text = source.read_text()
    edits = [
        (r"(mu_r = )[\d.]+", r"\g<1>0"),
        (r"lengths = \[4, ", f"lengths = [{ROLLING_BALL_TABLE_LENGTH:g}, "),
    ]
    for pattern, replacement in edits:
        text, count = re.subn(pattern, replacement, text, count=1)
        if count != 1:
            sys.exit(f"error: {source} no longer has `{pattern}`; update {__file__}")
    variant = workdir / "rolling_ball.m3d"
    variant.write_text(text)
    return variant


def slip_metrics(
    ball: RollingBall, t: np.ndarray, v: np.ndarray, w: np.ndarray, height: np.ndarray, up: int
) -> dict[str, float]:
    """Transition times and the final speed, with their relative errors against the closed form.

    The slip is the velocity of the ball's material point at the contact point, v + ω × (−l up).
    All three engines put the contact point midway between the ball's lowest point and the
    table's surface, so the lever l is the mean of the radius and the center's height h above
    the surface (l = r − δ/2 at a penetration δ; a soft contact rolls on that point, not on r).
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


def rolling_ball_fmu3d(model: Path, ball: RollingBall, stop: float, repeat: int) -> list[Run]:
    runs = []
    for setting, tolerance in (("model's tol 1e-8", None), ("tol 1e-6", 1e-6)):
        run, columns = run_fmu3d(model, stop, tolerance, repeat, setting)
        vec = lambda name: np.column_stack([columns[f"ball.{name}[{k}]"] for k in (1, 2, 3)])
        run.metrics = slip_metrics(
            ball, columns["time"], vec("v"), vec("w"), columns["ball.r[2]"], up=1
        )
        runs.append(run)
    return runs


# ---------------------------------------------------------------------------------------------
# MuJoCo


def mujoco_rolling_ball_xml(ball: RollingBall, setting: dict) -> str:
    """z up. The contact pair's friction is the larger of the two geoms' (both μ_k); condim 3:
    sliding friction only, no rolling resistance, as in the variant model."""
    option = " ".join(f'{k}="{v}"' for k, v in setting.get("option", {}).items())
    contact = " ".join(f'{k}="{v}"' for k, v in setting.get("geom", {}).items())
    half = ROLLING_BALL_TABLE_LENGTH / 2
    return f"""
<mujoco model="rolling_ball">
  <option {option}/>
  <worldbody>
    <geom name="table" type="box" size="{half} 1 0.05" pos="0 0 -0.05"
          friction="{ball.mu_k} 0 0" condim="3" {contact}/>
    <body name="ball" pos="-1.5 0 {ball.radius}">
      <freejoint/>
      <geom type="sphere" size="{ball.radius}" mass="{ball.mass}"
            friction="{ball.mu_k} 0 0" condim="3" {contact}/>
    </body>
  </worldbody>
</mujoco>"""


def mujoco_rolling_ball(ball: RollingBall, stop: float, repeat: int) -> list[Run]:
    import mujoco

    runs = []
    for name, setting in MUJOCO_SETTINGS.items():
        model = mujoco.MjModel.from_xml_string(mujoco_rolling_ball_xml(ball, setting))
        data = mujoco.MjData(model)
        steps = int(round(stop / model.opt.timestep))
        body = model.body("ball").id

        def reset():
            mujoco.mj_resetData(model, data)
            data.qvel[0] = ball.v0
            mujoco.mj_forward(model, data)

        def once() -> float:
            reset()
            start = time.perf_counter()
            mujoco.mj_step(model, data, nstep=steps)
            return time.perf_counter() - start

        wall = median_wall(once, repeat)
        # The recorded run: every step's velocities in world coordinates (angular, linear).
        reset()
        t, h = np.zeros(steps + 1), np.zeros(steps + 1)
        v, w = np.zeros((steps + 1, 3)), np.zeros((steps + 1, 3))
        velocity = np.zeros(6)
        for i in range(steps + 1):
            if i:
                mujoco.mj_step(model, data)
            mujoco.mj_objectVelocity(model, data, mujoco.mjtObj.mjOBJ_BODY, body, velocity, 0)
            t[i], w[i], v[i], h[i] = data.time, velocity[:3], velocity[3:], data.xpos[body][2]
        run = Run("MuJoCo", name, wall, steps=steps)
        run.metrics = slip_metrics(ball, t, v, w, h, up=2)
        runs.append(run)
    return runs


# Default: 2 ms semi-implicit Euler, pyramidal friction cone, soft contacts with solref
# (0.02 s, 1) and the default solimp. "0.1 ms": only the step changed, as the billiard target
# states it. "0.1 ms, tuned": the contact time constant scaled down with the step (20 steps;
# MuJoCo asks for at least 2), an elliptic cone and impratio 100 (friction nearly as hard as the
# normal direction); the most accurate of the combinations tried for the rolling ball.
MUJOCO_SETTINGS = {
    "default (2 ms)": {},
    "0.1 ms": {"option": {"timestep": 1e-4}},
    "0.1 ms, tuned": {
        "option": {"timestep": 1e-4, "cone": "elliptic", "impratio": 100},
        "geom": {"solref": "0.002 1"},
    },
}


# ---------------------------------------------------------------------------------------------
# PyBullet


def pybullet_rolling_ball(ball: RollingBall, stop: float, repeat: int) -> list[Run]:
    import pybullet

    runs = []
    for name, setting in PYBULLET_SETTINGS.items():
        client = pybullet.connect(pybullet.DIRECT)
        try:
            dt = setting.get("timestep", 1.0 / 240.0)

            def build():
                pybullet.resetSimulation(physicsClientId=client)
                pybullet.setGravity(0, 0, -GRAVITY, physicsClientId=client)
                pybullet.setPhysicsEngineParameter(
                    fixedTimeStep=dt, physicsClientId=client, **setting.get("engine", {})
                )
                half = ROLLING_BALL_TABLE_LENGTH / 2
                table_shape = pybullet.createCollisionShape(
                    pybullet.GEOM_BOX, halfExtents=[half, 1, 0.05], physicsClientId=client
                )
                table = pybullet.createMultiBody(
                    0, table_shape, basePosition=[0, 0, -0.05], physicsClientId=client
                )
                ball_shape = pybullet.createCollisionShape(
                    pybullet.GEOM_SPHERE, radius=ball.radius, physicsClientId=client
                )
                body = pybullet.createMultiBody(
                    ball.mass, ball_shape, basePosition=[-1.5, 0, ball.radius],
                    physicsClientId=client,
                )
                # Friction coefficients multiply: table 1 × ball μ_k. Restitution 0 (cor = 0).
                # PyBullet damps every body by default (0.04): off, there is no drag here.
                pybullet.changeDynamics(table, -1, lateralFriction=1.0, restitution=0.0,
                                        physicsClientId=client)
                pybullet.changeDynamics(body, -1, lateralFriction=ball.mu_k, restitution=0.0,
                                        rollingFriction=0.0, spinningFriction=0.0,
                                        linearDamping=0.0, angularDamping=0.0,
                                        physicsClientId=client)
                pybullet.resetBaseVelocity(body, [ball.v0, 0, 0], [0, 0, 0], physicsClientId=client)
                return body

            steps = int(round(stop / dt))

            def once() -> float:
                build()
                start = time.perf_counter()
                for _ in range(steps):
                    pybullet.stepSimulation(physicsClientId=client)
                return time.perf_counter() - start

            wall = median_wall(once, repeat)
            body = build()
            t, h = np.zeros(steps + 1), np.zeros(steps + 1)
            v, w = np.zeros((steps + 1, 3)), np.zeros((steps + 1, 3))
            for i in range(steps + 1):
                if i:
                    pybullet.stepSimulation(physicsClientId=client)
                linear, angular = pybullet.getBaseVelocity(body, physicsClientId=client)
                position, _ = pybullet.getBasePositionAndOrientation(body, physicsClientId=client)
                t[i], v[i], w[i], h[i] = i * dt, linear, angular, position[2]
        finally:
            pybullet.disconnect(client)
        run = Run("PyBullet", name, wall, steps=steps)
        run.metrics = slip_metrics(ball, t, v, w, h, up=2)
        runs.append(run)
    return runs


PYBULLET_SETTINGS = {
    "default (1/240 s)": {},
    "0.1 ms": {"timestep": 1e-4},
}


# ---------------------------------------------------------------------------------------------
# Tables


def format_table(headers: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def number(value, digits=3) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{value:.{digits}g}"


def rolling_ball_table(ball: RollingBall, runs: list[Run]) -> str:
    reference = runs[0]
    headers = ["engine", "setting", "wall [s]", "steps", "events", "evaluations"]
    for threshold in SLIP_THRESHOLDS:
        headers += [f"t(slip<{threshold * 1e3:g} mm/s) [ms]", "error", "error / fmu3d's"]
    headers += ["v(5 s) [m/s]", "error"]
    rows = []
    for run in runs:
        row = [run.engine, run.setting, f"{run.wall:.3f}", number(run.steps, 6),
               number(run.events, 6), run.evaluations or "–"]
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
        f"rolling_ball: r = {ball.radius} m, m = {ball.mass:.4f} kg, v0 = {ball.v0} m/s, "
        f"mu_k = {ball.mu_k}; closed form t* = {ball.t_roll * 1e3:.3f} ms, {exact}, "
        f"v_roll = {ball.v_roll:.5f} m/s\n" + format_table(headers, rows)
    )


def rolling_ball_scene(workdir: Path, stop: float, repeat: int, engines: list[str]) -> str:
    model = rolling_ball_variant(REPO / "models" / "rolling_ball.m3d", workdir)
    checked = check_model(model)
    p = checked.parameters
    ball = RollingBall(p["r"], p["v0"], p["mu_k"], checked.masses["ball"])
    runs = rolling_ball_fmu3d(model, ball, stop, repeat)
    if "mujoco" in engines:
        runs += mujoco_rolling_ball(ball, stop, repeat)
    if "pybullet" in engines:
        runs += pybullet_rolling_ball(ball, stop, repeat)
    return rolling_ball_table(ball, runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", nargs="+", default=["rolling_ball"],
                        choices=["rolling_ball"])
    parser.add_argument("--engines", nargs="+", default=["mujoco", "pybullet"],
                        choices=["mujoco", "pybullet"], help="peers to run besides fmu3d")
    parser.add_argument("--stop-time", type=float, default=5.0, help="simulated time [s]")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs (median reported)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="fmu3d-peers-") as workdir:
        for scene in args.scenes:
            if scene == "rolling_ball":
                print(rolling_ball_scene(Path(workdir), args.stop_time, args.repeat, args.engines))
            print()


if __name__ == "__main__":
    main()
