"""A fixed-step co-simulation master in plain Python over fmpy's FMI 2.0 API: drive trains
(drive_train.fmu, made with pythonfmu, one instance per driven joint) move a mechanism made with
fmu3d: the crank (crank.fmu), the robot arm (robot_arm.fmu, three drives in position control) or
the four-bar crank (fourbar_crank.fmu); mechanisms.py describes them.

    python fmpy_master.py [--example crank|robot-arm|fourbar-crank] [--step 0.001]
                          [--stop-time T] [--no-derivatives] [--no-extrapolation]
                          [--output-derivatives]
    python fmpy_master.py --motion      # motion-driven: drive_train_motion.fmu + crank_motion.fmu

The FMUs are built next to this script when they are missing (fmu3d from target/release, or on
PATH; pythonfmu from the Python environment).

Torque-driven coupling, at every communication point t_k (Gauss-Seidel: a drive's torque does
not depend on its inputs within the step, so it is taken first), for every driven joint J:

    drive_J.tau_load  -> J.tau        (with its time derivative drive_J.dtau_load, passed by
                                       fmi2SetRealInputDerivatives: fmu3d FMUs canInterpolateInputs)
    J.phi             -> drive_J.phi_load   (read under position control)
    J.w               -> drive_J.w_load
    J.a               -> drive_J.a_load     (the drive extrapolates angle and speed with it;
                                       drive_train.fmu cannot interpolate inputs, so this is a
                                       plain input)

then all FMUs step from t_k to t_k + h. The motion-driven coupling sends drive.phi_load, w_load,
a_load (with their derivatives) to the crank and crank.tau back to drive.tau_load.

With --output-derivatives the master asks the mechanism for the time derivatives of its outputs
(fmi2GetRealOutputDerivatives, order 1) instead: for every driven joint J, d(J.w)/dt ->
drive_J.a_load and d(J.a)/dt (the jerk) -> drive_J.j_load, so the drive extrapolates the speed
(and, under position control, the angle) one order higher.

At the end the master prints the energy balance: electrical energy in = change of the
mechanism's mechanical energy (kinetic + potential, from the FMUs' outputs) + magnetic energy in
the armatures + resistive losses + friction losses in the joints + the balance error (energy
created or lost by the coupling).
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time as clock
from ctypes import byref
from dataclasses import dataclass
from pathlib import Path

import fmpy
import numpy as np
from fmpy.fmi2 import (
    FMU2Slave,
    defaultCallbacks,
    fmi2CallbackFunctions,
    fmi2CallbackLoggerTYPE,
)
from fmpy.logging import addLoggerProxy

from mechanisms import CRANK, FOURBAR_CRANK, ROBOT_ARM, Mechanism

HERE = Path(__file__).resolve().parent
REPOSITORY = HERE.parents[1]
#: How an fmu3d FMU reports the integrator's work of one fmi2DoStep (log category
#: logSolverStats, see fmu-runtime/src/fmi2/instance.rs).
IDA_STEPS = re.compile(r"(\d+) IDA steps")


class Slave:
    """One FMU instance: extracted, instantiated, initialized at t = 0 (with the relative
    `tolerance` of fmi2SetupExperiment, when given), addressed by name. With `count_ida_steps`
    (fmu3d FMUs only) the instance logs its solver statistics and the IDA steps of all
    fmi2DoStep calls are summed in `ida_steps`."""

    def __init__(self, fmu, name, parameters=None, folder=None, count_ida_steps=False,
                 tolerance=None):
        self.description = fmpy.read_model_description(str(fmu))
        self.folder = fmpy.extract(str(fmu), unzipdir=folder)
        variables = self.description.modelVariables
        self.vr = {v.name: v.valueReference for v in variables}
        self.type = {v.name: v.type for v in variables}
        self.can_interpolate = bool(self.description.coSimulation.canInterpolateInputs)
        self.fmu = FMU2Slave(
            guid=self.description.guid,
            unzipDirectory=self.folder,
            modelIdentifier=self.description.coSimulation.modelIdentifier,
            instanceName=name,
        )
        self.ida_steps = 0
        callbacks = None
        if count_ida_steps:
            callbacks = fmi2CallbackFunctions()
            self._logger = fmi2CallbackLoggerTYPE(self._log)  # kept alive with the instance
            callbacks.logger = self._logger
            callbacks.allocateMemory = defaultCallbacks.allocateMemory
            callbacks.freeMemory = defaultCallbacks.freeMemory
            # The logger is variadic (fmu3d passes "%s" and the message); fmpy's native proxy
            # formats the message before it reaches the Python callback.
            addLoggerProxy(byref(callbacks))
        self.fmu.instantiate(callbacks=callbacks)
        if count_ida_steps:
            self.fmu.setDebugLogging(True, ["logSolverStats"])
        self.fmu.setupExperiment(startTime=0.0, tolerance=tolerance)
        self.fmu.enterInitializationMode()
        for variable, value in (parameters or {}).items():
            self.set(variable, value)
        self.fmu.exitInitializationMode()

    def _log(self, environment, instance, status, category, message):
        if category == b"logSolverStats":
            found = IDA_STEPS.search(message.decode())
            self.ida_steps += int(found.group(1)) if found else 0

    def get(self, *names):
        values = self.fmu.getReal([self.vr[n] for n in names])
        return values[0] if len(names) == 1 else values

    def set(self, name, value, derivatives=()):
        """Sets a parameter or an input; with `derivatives` (first, second, ... time derivative)
        also fmi2SetRealInputDerivatives, where the FMU can interpolate its inputs."""
        if self.type[name] == "Boolean":
            self.fmu.setBoolean([self.vr[name]], [bool(value)])
            return
        self.fmu.setReal([self.vr[name]], [float(value)])
        if self.can_interpolate:
            for order, derivative in enumerate(derivatives, start=1):
                self.fmu.setRealInputDerivatives([self.vr[name]], [order], [float(derivative)])

    def output_derivatives(self, *names):
        """The first time derivatives of outputs at the current communication point
        (fmi2GetRealOutputDerivatives)."""
        return self.fmu.getRealOutputDerivatives([self.vr[n] for n in names], [1] * len(names))

    def step(self, t, h):
        self.fmu.doStep(currentCommunicationPoint=t, communicationStepSize=h)

    def free(self):
        self.fmu.terminate()
        self.fmu.freeInstance()
        shutil.rmtree(self.folder, ignore_errors=True)


@dataclass
class Result:
    """Trajectories at the communication points, the energy bookkeeping [J] and the cost."""

    time: np.ndarray
    joints: tuple  # the driven joints, in the order of the columns of phi, w, tau
    phi: np.ndarray  # joint angles [rad], one column per joint
    w: np.ndarray  # joint speeds [rad/s]
    tau: np.ndarray  # torques of the drives on the joints [N.m]
    E_el: np.ndarray  # electrical energy in, all drives
    E_loss: np.ndarray  # resistive losses in the armatures
    E_mag: np.ndarray  # magnetic energy in the armatures
    E_friction: np.ndarray  # energy lost in the joints' viscous friction
    E_mech: np.ndarray  # kinetic + potential energy of the mechanism, from its start value
    wall_seconds: float = float("nan")  # wall time of the run (after instantiation)
    mechanism_seconds: float = float("nan")  # of which inside the mechanism's fmi2DoStep
    ida_steps: int = 0  # IDA steps of the mechanism FMU, when counted

    @property
    def balance_error(self):
        """Energy in less everything it went into: made (< 0) or lost (> 0) by the coupling."""
        return self.E_el - self.E_mech - self.E_mag - self.E_loss - self.E_friction

    def angle(self, joint):
        return self.phi[:, self.joints.index(joint)]

    def speed(self, joint):
        return self.w[:, self.joints.index(joint)]

    def report(self, title="fmpy master"):
        E = {k: getattr(self, k)[-1] for k in ("E_el", "E_mech", "E_mag", "E_loss", "E_friction")}
        error = self.balance_error[-1]
        joints = ", ".join(f"{j} {self.phi[-1, k]:.6f} rad ({self.w[-1, k]:.6f} rad/s)"
                           for k, j in enumerate(self.joints))
        return "\n".join([
            f"{title}: {len(self.time) - 1} steps of {self.time[1] - self.time[0]:.6g} s "
            f"to {self.time[-1]:.6g} s; {joints}",
            f"  electrical energy in           {E['E_el']:10.5f} J",
            f"  mechanical energy (kin + pot)  {E['E_mech']:10.5f} J",
            f"  magnetic energy (armature)     {E['E_mag']:10.5f} J",
            f"  resistive losses               {E['E_loss']:10.5f} J",
            f"  friction losses (joints)       {E['E_friction']:10.5f} J",
            f"  balance error                  {error:10.5f} J "
            f"({100 * error / E['E_el']:.3f} % of the energy in)",
        ])


def friction_energy(time, w, damping):
    """Energy lost in viscous joint friction, the integral of sum d_j*w_j^2 (trapezoidal rule
    over the communication points)."""
    power = (w**2) @ np.asarray(damping, dtype=float)
    return np.concatenate([[0.0], np.cumsum(np.diff(time) * (power[1:] + power[:-1]) / 2)])


def run_mechanism(mechanism: Mechanism, mechanism_fmu, drive_fmu, step=1e-3, stop_time=2.0,
                  derivatives=True, extrapolate=True, folder=None, count_ida_steps=False,
                  output_derivatives=False):
    """The torque-driven coupling of one drive instance per driven joint. At each
    communication point every drive's torque goes to its joint (with its derivative when
    `derivatives`), then every joint's angle, speed and acceleration go to its drive (the
    acceleration only when `extrapolate`; otherwise the drive holds the speed over the step).
    `output_derivatives`: the drive's acceleration and jerk inputs are the mechanism's output
    derivatives d(J.w)/dt and d(J.a)/dt instead (second-order extrapolation in the drive).
    Returns a Result."""
    drives = [Slave(drive_fmu, d.instance_name, d.parameters, folder=folder)
              for d in mechanism.drives]
    # The motors' rotor inertias live in the mechanism: reflected through the gears.
    inertias = {d.inertia_parameter: drive.get("J_reflected")
                for d, drive in zip(mechanism.drives, drives)}
    mech = Slave(mechanism_fmu, mechanism.name, inertias, folder=folder,
                 count_ida_steps=count_ida_steps)
    constants = dict(zip(mechanism.energy_parameters, np.atleast_1d(
        mech.get(*mechanism.energy_parameters))))
    damping = [mech.get(d.damping_parameter) if d.damping_parameter else 0.0
               for d in mechanism.drives]
    joint_outputs = [f"{d.joint}.{q}" for d in mechanism.drives for q in ("phi", "w", "a")]
    rate_outputs = [f"{d.joint}.{q}" for d in mechanism.drives for q in ("w", "a")]

    n = int(round(stop_time / step))
    rows = []

    def exchange():
        taus = []
        for d, drive in zip(mechanism.drives, drives):
            tau, dtau = drive.get("tau_load", "dtau_load")
            mech.set(f"{d.joint}.tau", tau, [dtau] if derivatives else [])
            taus.append(tau)
        motion = np.reshape(mech.get(*joint_outputs), (-1, 3))
        if output_derivatives:
            rates = np.reshape(mech.output_derivatives(*rate_outputs), (-1, 2))
        for k, ((phi, w, a), drive) in enumerate(zip(motion, drives)):
            drive.set("phi_load", phi)
            drive.set("w_load", w)
            if output_derivatives:
                drive.set("a_load", rates[k, 0])
                drive.set("j_load", rates[k, 1])
            else:
                drive.set("a_load", a if extrapolate else 0.0)
        energies = np.sum([drive.get("E_el", "E_loss", "E_mag") for drive in drives], axis=0)
        values = constants | dict(zip(mechanism.energy_outputs, np.atleast_1d(
            mech.get(*mechanism.energy_outputs))))
        rows.append((motion[:, 0], motion[:, 1], taus, energies, mechanism.energy(values)))

    started = clock.perf_counter()
    mechanism_seconds = 0.0
    exchange()
    for k in range(n):
        t = k * step
        for drive in drives:
            drive.step(t, step)
        before = clock.perf_counter()
        mech.step(t, step)
        mechanism_seconds += clock.perf_counter() - before
        exchange()
    wall_seconds = clock.perf_counter() - started
    for slave in (*drives, mech):
        slave.free()

    time = np.arange(n + 1) * step
    phi, w, tau, energies, E_mech = (np.array(column) for column in zip(*rows))
    return Result(time, tuple(d.joint for d in mechanism.drives), phi, w, tau, *energies.T,
                  friction_energy(time, w, damping), E_mech - E_mech[0],
                  wall_seconds, mechanism_seconds, mech.ida_steps)


def run(crank_fmu, drive_fmu, step=1e-3, stop_time=2.0, derivatives=True, extrapolate=True,
        folder=None, output_derivatives=False):
    """The crank driven by one drive in speed control (run_mechanism with CRANK)."""
    return run_mechanism(CRANK, crank_fmu, drive_fmu, step, stop_time, derivatives, extrapolate,
                         folder, output_derivatives=output_derivatives)


def run_motion(crank_fmu, drive_fmu, step=1e-3, stop_time=2.0, derivatives=True,
               drive_parameters=None, folder=None):
    """The motion-driven coupling: the drive integrates the load's motion with its model of the
    load inertia (J_load = the crank's inertia about its axis) and the crank returns the torque
    its joint takes. Returns a Result."""
    crank = Slave(crank_fmu, "crank", folder=folder)
    constants = dict(zip(CRANK.energy_parameters, crank.get(*CRANK.energy_parameters)))
    load_inertia = constants["J_fw"] + constants["J_drive"] + constants["m_e"] * constants[
        "r_e"] ** 2
    parameters = {"J_load": load_inertia, **(drive_parameters or {})}
    drive = Slave(drive_fmu, "drive", parameters, folder=folder)
    # The drive's rotor turns with the crank: its energy counts as the mechanism's.
    constants["J_drive"] += drive.get("J_reflected")

    n = int(round(stop_time / step))
    rows = []

    def exchange():
        phi, w, a, j = drive.get("phi_load", "w_load", "a_load", "j_load")
        crank.set("crank.phi", phi, [w, a, j] if derivatives else [])
        crank.set("crank.w", w, [a, j] if derivatives else [])
        crank.set("crank.a", a, [j] if derivatives else [])
        tau, y = crank.get("crank.tau", "weight.r[2]")
        drive.set("tau_load", tau)
        energies = drive.get("E_el", "E_loss", "E_mag")
        values = constants | {"crank.w": w, "weight.r[2]": y}
        rows.append(([phi], [w], [tau], energies, CRANK.energy(values)))

    exchange()
    for k in range(n):
        t = k * step
        drive.step(t, step)
        crank.step(t, step)
        exchange()
    drive.free()
    crank.free()
    time = np.arange(n + 1) * step
    phi, w, tau, energies, E_mech = (np.array(column) for column in zip(*rows))
    return Result(time, ("crank",), phi, w, tau, *energies.T, np.zeros_like(time),
                  E_mech - E_mech[0])


# --- building the FMUs ---------------------------------------------------------------------

def fmu3d_executable():
    built = REPOSITORY / "target" / "release" / "fmu3d"
    return str(built) if built.is_file() else (shutil.which("fmu3d") or "fmu3d")


def build_mechanism(model, out):
    """`fmu3d build MODEL -o OUT`."""
    subprocess.run([fmu3d_executable(), "build", str(model), "-o", str(out)], check=True,
                   capture_output=True, text=True)
    return Path(out)


def build_drive(script, out_folder, project_files=()):
    """`pythonfmu build -f SCRIPT -d OUT_FOLDER [PROJECT_FILES]`, run in a clean interpreter
    (the builder imports the script). Returns the path of the .fmu."""
    out_folder = Path(out_folder)
    subprocess.run(
        [sys.executable, "-m", "pythonfmu", "build", "-f", str(script), "-d", str(out_folder),
         *map(str, project_files)],
        check=True, capture_output=True, text=True, cwd=tempfile.gettempdir(),
    )
    fmu = out_folder / (Path(script).stem + ".fmu")
    assert fmu.is_file(), fmu
    return fmu


def example_fmus(motion=False, folder=HERE, mechanism=CRANK):
    """The FMUs of an example, built into `folder` if missing: (mechanism FMU, drive FMU).
    `motion`: the motion-driven crank and drive."""
    folder = Path(folder)
    if motion:
        crank, drive = folder / "crank_motion.fmu", folder / "drive_train_motion.fmu"
        if not crank.is_file():
            build_mechanism(HERE / "crank_motion.m3d", crank)
        if not drive.is_file():
            build_drive(HERE / "drive_train_motion.py", folder, [HERE / "drive_train.py"])
        return crank, drive
    built, drive = folder / (mechanism.model.stem + ".fmu"), folder / "drive_train.fmu"
    if not built.is_file():
        build_mechanism(mechanism.model, built)
    if not drive.is_file():
        build_drive(HERE / "drive_train.py", folder)
    return built, drive


#: The examples a master runs: --example NAME.
EXAMPLES = {"crank": CRANK, "robot-arm": ROBOT_ARM, "fourbar-crank": FOURBAR_CRANK}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--example", choices=EXAMPLES, default="crank",
                        help="the mechanism and its drives (default: crank)")
    parser.add_argument("--step", type=float, default=1e-3, help="communication step [s]")
    parser.add_argument("--stop-time", type=float, help="[s] (default: the example's)")
    parser.add_argument("--no-derivatives", action="store_true",
                        help="hold the mechanism's inputs over the step (no input derivatives)")
    parser.add_argument("--no-extrapolation", action="store_true",
                        help="torque-driven: hold the drives' speed inputs over the step")
    parser.add_argument("--output-derivatives", action="store_true",
                        help="torque-driven: extrapolate the drives' inputs with the mechanism's "
                        "output derivatives (d w/dt, d a/dt of every driven joint)")
    parser.add_argument("--motion", action="store_true",
                        help="the crank, motion-driven")
    args = parser.parse_args(argv)
    mechanism = EXAMPLES[args.example]
    stop_time = args.stop_time or mechanism.stop_time
    if args.motion:
        crank, drive = example_fmus(motion=True)
        result = run_motion(crank, drive, args.step, stop_time, not args.no_derivatives)
        print(result.report("fmpy master, crank, motion-driven"))
        return
    built, drive = example_fmus(mechanism=mechanism)
    result = run_mechanism(mechanism, built, drive, args.step, stop_time,
                           not args.no_derivatives, not args.no_extrapolation,
                           output_derivatives=args.output_derivatives)
    print(result.report(f"fmpy master, {mechanism.description}"))


if __name__ == "__main__":
    os.chdir(HERE)
    main()
