"""A fixed-step co-simulation master in plain Python over fmpy's FMI 2.0 API: the drive train
(drive_train.fmu, made with pythonfmu) turns the crank (crank.fmu, made with fmu3d).

    python fmpy_master.py [--step 0.001] [--stop-time 2] [--no-derivatives]
    python fmpy_master.py --motion      # motion-driven: drive_train_motion.fmu + crank_motion.fmu

The FMUs are built next to this script when they are missing (fmu3d from target/release, or on
PATH; pythonfmu from the Python environment).

Torque-driven coupling, at every communication point t_k (Gauss-Seidel: the drive's torque does
not depend on its inputs within the step, so it is taken first):

    drive.tau_load  -> crank.tau      (with its time derivative drive.dtau_load, passed by
                                       fmi2SetRealInputDerivatives: crank.fmu canInterpolateInputs)
    crank.w         -> drive.w_load
    crank.a         -> drive.a_load   (the drive extrapolates the speed with it; drive_train.fmu
                                       cannot interpolate inputs, so this is a plain input)

With --output-derivatives the master asks the crank for the time derivatives of its outputs
(fmi2GetRealOutputDerivatives, order 1): d(crank.w)/dt -> drive.a_load and d(crank.a)/dt (the
jerk) -> drive.j_load, so the drive extrapolates the speed to the second order.

then both FMUs step from t_k to t_k + h. The motion-driven coupling sends drive.phi_load, w_load,
a_load (with their derivatives) to the crank and crank.tau back to drive.tau_load.

At the end the master prints the energy balance: electrical energy in = change of the
mechanism's mechanical energy (kinetic + potential, from the FMUs' outputs) + magnetic energy in
the armature + resistive losses + the balance error (energy created or lost by the coupling).
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import fmpy
import numpy as np
from fmpy.fmi2 import FMU2Slave

HERE = Path(__file__).resolve().parent
REPOSITORY = HERE.parents[1]
G = 9.81  # gravity of crank.m3d [m/s2]


class Slave:
    """One FMU instance: extracted, instantiated, initialized at t = 0, addressed by name."""

    def __init__(self, fmu, name, parameters=None, folder=None):
        self.description = fmpy.read_model_description(str(fmu))
        self.folder = fmpy.extract(str(fmu), unzipdir=folder)
        self.vr = {v.name: v.valueReference for v in self.description.modelVariables}
        self.can_interpolate = bool(self.description.coSimulation.canInterpolateInputs)
        self.fmu = FMU2Slave(
            guid=self.description.guid,
            unzipDirectory=self.folder,
            modelIdentifier=self.description.coSimulation.modelIdentifier,
            instanceName=name,
        )
        self.fmu.instantiate()
        self.fmu.setupExperiment(startTime=0.0)
        self.fmu.enterInitializationMode()
        for variable, value in (parameters or {}).items():
            self.set(variable, value)
        self.fmu.exitInitializationMode()

    def get(self, *names):
        values = self.fmu.getReal([self.vr[n] for n in names])
        return values[0] if len(names) == 1 else values

    def set(self, name, value, derivatives=()):
        """Sets an input; with `derivatives` (first, second, ... time derivative) also
        fmi2SetRealInputDerivatives, where the FMU can interpolate its inputs."""
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
    """Trajectories at the communication points and the energy bookkeeping [J]."""

    time: np.ndarray
    phi: np.ndarray  # crank angle [rad]
    w: np.ndarray  # crank speed [rad/s]
    tau: np.ndarray  # torque of the drive on the crank [N.m]
    E_el: np.ndarray  # electrical energy in
    E_loss: np.ndarray  # resistive losses
    E_mag: np.ndarray  # magnetic energy in the armature
    E_mech: np.ndarray  # kinetic + potential energy of the mechanism, from its start value

    @property
    def balance_error(self):
        """Energy in less everything it went into: made (< 0) or lost (> 0) by the coupling."""
        return self.E_el - self.E_mech - self.E_mag - self.E_loss

    def report(self, title="fmpy master"):
        E = {k: getattr(self, k)[-1] for k in ("E_el", "E_mech", "E_mag", "E_loss")}
        error = self.balance_error[-1]
        return "\n".join([
            f"{title}: {len(self.time) - 1} steps of {self.time[1] - self.time[0]:.6g} s "
            f"to {self.time[-1]:.6g} s; crank angle {self.phi[-1]:.6f} rad, "
            f"speed {self.w[-1]:.6f} rad/s",
            f"  electrical energy in           {E['E_el']:10.5f} J",
            f"  mechanical energy (kin + pot)  {E['E_mech']:10.5f} J",
            f"  magnetic energy (armature)     {E['E_mag']:10.5f} J",
            f"  resistive losses               {E['E_loss']:10.5f} J",
            f"  balance error                  {error:10.5f} J "
            f"({100 * error / E['E_el']:.3f} % of the energy in)",
        ])


def mechanical_energy(inertia, m_e, w, y_weight):
    """Kinetic energy of everything turning with the crank plus the eccentric mass's potential
    energy (the flywheel's centre stays on the axis)."""
    return 0.5 * inertia * w**2 + m_e * G * y_weight


def run(crank_fmu, drive_fmu, step=1e-3, stop_time=2.0, derivatives=True, extrapolate=True,
        drive_parameters=None, folder=None, output_derivatives=False):
    """The torque-driven coupling: the drive's torque turns the crank. `derivatives`: pass the
    torque's derivative to the crank (fmi2SetRealInputDerivatives); `extrapolate`: pass the
    crank's acceleration to the drive, which extrapolates the speed with it. Without either the
    inputs are held over the step. `output_derivatives`: take the speed's derivative and the
    acceleration's derivative from the crank's output derivatives instead (second-order
    extrapolation of the speed in the drive). Returns a Result."""
    drive = Slave(drive_fmu, "drive", drive_parameters, folder=folder)
    # The motor's rotor inertia lives in the mechanism: reflected through the gear.
    crank = Slave(crank_fmu, "crank", {"J_drive": drive.get("J_reflected")}, folder=folder)
    J_fw, J_drive, m_e, r_e = crank.get("J_fw", "J_drive", "m_e", "r_e")
    inertia = J_fw + J_drive + m_e * r_e**2

    n = int(round(stop_time / step))
    rows = []

    def exchange():
        tau, dtau = drive.get("tau_load", "dtau_load")
        crank.set("crank.tau", tau, [dtau] if derivatives else [])
        phi, w, a, y = crank.get("crank.phi", "crank.w", "crank.a", "weight.r[2]")
        drive.set("w_load", w)
        if output_derivatives:
            dw_dt, da_dt = crank.output_derivatives("crank.w", "crank.a")
            drive.set("a_load", dw_dt)
            drive.set("j_load", da_dt)
        else:
            drive.set("a_load", a if extrapolate else 0.0)
        E_el, E_loss, E_mag = drive.get("E_el", "E_loss", "E_mag")
        rows.append((phi, w, tau, E_el, E_loss, E_mag, mechanical_energy(inertia, m_e, w, y)))

    exchange()
    for k in range(n):
        t = k * step
        drive.step(t, step)
        crank.step(t, step)
        exchange()
    drive.free()
    crank.free()
    return _result(np.arange(n + 1) * step, rows)


def run_motion(crank_fmu, drive_fmu, step=1e-3, stop_time=2.0, derivatives=True,
               drive_parameters=None, folder=None):
    """The motion-driven coupling: the drive integrates the load's motion with its model of the
    load inertia (J_load = the crank's inertia about its axis) and the crank returns the torque
    its joint takes. Returns a Result."""
    crank = Slave(crank_fmu, "crank", folder=folder)
    J_fw, J_drive, m_e, r_e = crank.get("J_fw", "J_drive", "m_e", "r_e")
    load_inertia = J_fw + J_drive + m_e * r_e**2
    parameters = {"J_load": load_inertia, **(drive_parameters or {})}
    drive = Slave(drive_fmu, "drive", parameters, folder=folder)
    inertia = load_inertia + drive.get("J_reflected")

    n = int(round(stop_time / step))
    rows = []

    def exchange():
        phi, w, a, j = drive.get("phi_load", "w_load", "a_load", "j_load")
        crank.set("crank.phi", phi, [w, a, j] if derivatives else [])
        crank.set("crank.w", w, [a, j] if derivatives else [])
        crank.set("crank.a", a, [j] if derivatives else [])
        tau, y = crank.get("crank.tau", "weight.r[2]")
        drive.set("tau_load", tau)
        E_el, E_loss, E_mag = drive.get("E_el", "E_loss", "E_mag")
        rows.append((phi, w, tau, E_el, E_loss, E_mag, mechanical_energy(inertia, m_e, w, y)))

    exchange()
    for k in range(n):
        t = k * step
        drive.step(t, step)
        crank.step(t, step)
        exchange()
    drive.free()
    crank.free()
    return _result(np.arange(n + 1) * step, rows)


def _result(time, rows):
    columns = np.array(rows).T
    E_mech = columns[6] - columns[6][0]
    return Result(time, *columns[:6], E_mech)


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


def example_fmus(motion=False, folder=HERE):
    """The FMUs of the example, built into `folder` if missing: (crank FMU, drive FMU)."""
    folder = Path(folder)
    if motion:
        crank, drive = folder / "crank_motion.fmu", folder / "drive_train_motion.fmu"
        if not crank.is_file():
            build_mechanism(HERE / "crank_motion.m3d", crank)
        if not drive.is_file():
            build_drive(HERE / "drive_train_motion.py", folder, [HERE / "drive_train.py"])
    else:
        crank, drive = folder / "crank.fmu", folder / "drive_train.fmu"
        if not crank.is_file():
            build_mechanism(HERE / "crank.m3d", crank)
        if not drive.is_file():
            build_drive(HERE / "drive_train.py", folder)
    return crank, drive


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--step", type=float, default=1e-3, help="communication step [s]")
    parser.add_argument("--stop-time", type=float, default=2.0, help="[s]")
    parser.add_argument("--no-derivatives", action="store_true",
                        help="hold the crank's inputs over the step (no input derivatives)")
    parser.add_argument("--no-extrapolation", action="store_true",
                        help="torque-driven: hold the drive's speed input over the step")
    parser.add_argument("--output-derivatives", action="store_true",
                        help="torque-driven: extrapolate the drive's speed input with the crank's "
                        "output derivatives (d w/dt, d a/dt)")
    parser.add_argument("--motion", action="store_true", help="the motion-driven coupling")
    args = parser.parse_args(argv)
    crank, drive = example_fmus(motion=args.motion)
    if args.motion:
        result = run_motion(crank, drive, args.step, args.stop_time, not args.no_derivatives)
    else:
        result = run(crank, drive, args.step, args.stop_time, not args.no_derivatives,
                     not args.no_extrapolation, output_derivatives=args.output_derivatives)
    print(result.report("fmpy master, motion-driven" if args.motion else "fmpy master, "
                        "torque-driven"))


if __name__ == "__main__":
    os.chdir(HERE)
    main()
