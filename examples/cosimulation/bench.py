"""Benchmark of the robot-arm co-simulation (robot_arm.m3d and three drive_train.fmu instances)
in both masters: wall time per simulated second, the share of it spent inside the fmu3d FMU,
and the IDA steps the FMU takes per communication step.

    python bench.py [--repeat 3] [--step 0.001]

How each figure is measured:

- wall time: from the first exchange to the last step (instantiation and initialization not
  included), median of `--repeat` runs, divided by the simulated time;
- fmpy master: the time inside the mechanism's fmi2DoStep calls is timed around each call
  (perf_counter); the fmi2GetReal/SetReal calls on it are not counted;
- libcosim: libcosim does not time its slaves, so the torques libcosim passed to the mechanism
  (recorded by its time-series observer) are replayed into a fresh instance of the same FMU in
  a stand-alone loop that times its fmi2DoStep calls; the replay must reproduce libcosim's
  joint angles (checked, to 1e-9 rad), so the FMU did the same work;
- IDA steps: the FMU's log category logSolverStats reports the IDA steps of every fmi2DoStep
  (fmu-runtime/src/fmi2/instance.rs); a separate run with that category on (logging costs
  time, so it is not one of the timed runs) sums them.
"""

import argparse
import os
import statistics

import numpy as np

import fmpy_master
import libcosim_master
from fmpy_master import HERE, Slave, example_fmus
from mechanisms import ROBOT_ARM


def replay(mechanism, mechanism_fmu, result, count_ida_steps=False):
    """Steps the mechanism FMU alone with the torques of `result` held over each step (what
    libcosim passes). Returns (seconds inside fmi2DoStep, IDA steps, joint angles)."""
    inertias = {d.inertia_parameter: d.reflected_inertia() for d in mechanism.drives}
    mech = Slave(mechanism_fmu, mechanism.name, inertias, count_ida_steps=count_ida_steps)
    inputs = [mech.vr[f"{d.joint}.tau"] for d in mechanism.drives]
    angles = [mech.vr[name] for name in mechanism.joint_variables("phi")]
    h = result.time[1] - result.time[0]
    seconds, phi = 0.0, [mech.fmu.getReal(angles)]
    for k in range(len(result.time) - 1):
        mech.fmu.setReal(inputs, list(result.tau[k]))
        before = fmpy_master.clock.perf_counter()
        mech.step(k * h, h)
        seconds += fmpy_master.clock.perf_counter() - before
        phi.append(mech.fmu.getReal(angles))
    steps = mech.ida_steps
    mech.free()
    return seconds, steps, np.array(phi)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per master")
    parser.add_argument("--step", type=float, default=1e-3, help="communication step [s]")
    args = parser.parse_args(argv)
    mechanism = ROBOT_ARM
    stop, h = mechanism.stop_time, args.step
    steps = int(round(stop / h))
    arm, drive = example_fmus(mechanism=mechanism)

    rows = []
    for name, derivatives in (("fmpy, input derivatives", True), ("fmpy, inputs held", False)):
        runs = [fmpy_master.run_mechanism(mechanism, arm, drive, h, stop, derivatives)
                for _ in range(args.repeat)]
        wall = statistics.median(r.wall_seconds for r in runs)
        inside = statistics.median(r.mechanism_seconds for r in runs)
        counted = fmpy_master.run_mechanism(mechanism, arm, drive, h, stop, derivatives,
                                            count_ida_steps=True)
        rows.append((name, wall, inside, counted.ida_steps))

    step_ns = int(round(h * 1e9))
    runs = [libcosim_master.run_mechanism(mechanism, arm, drive, step_ns, stop)
            for _ in range(args.repeat)]
    wall = statistics.median(r.wall_seconds for r in runs)
    replays = [replay(mechanism, arm, runs[0]) for _ in range(args.repeat)]
    inside = statistics.median(seconds for seconds, _, _ in replays)
    _, ida_steps, phi = replay(mechanism, arm, runs[0], count_ida_steps=True)
    mismatch = np.max(np.abs(phi - runs[0].phi))
    assert mismatch < 1e-9, f"the replay does not reproduce libcosim's run ({mismatch:.2e} rad)"
    rows.append(("libcosim, inputs held", wall, inside, ida_steps))

    print(f"robot arm, {steps} communication steps of {h * 1e3:g} ms, {stop:g} s simulated, "
          f"median of {args.repeat} runs")
    print("| master | wall per simulated s [s] | inside the fmu3d FMU [s per simulated s] | "
          "share | IDA steps per communication step |")
    print("|---|---|---|---|---|")
    for name, wall, inside, ida_steps in rows:
        print(f"| {name} | {wall / stop:.3f} | {inside / stop:.4f} | {100 * inside / wall:.1f} % "
              f"| {ida_steps / steps:.2f} |")


if __name__ == "__main__":
    os.chdir(HERE)
    main()
