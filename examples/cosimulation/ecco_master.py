"""The crank driven by the drive train, run by libcosim's ECCO algorithm (energy-conservation-
based co-simulation, Sadjina and Pedersen 2020): the communication step is adapted to keep the
energy exchanged through a power bond consistent on both sides.

    python ecco_master.py [--tolerance 1e-4] [--stop-time 2]

The power bond is the crank's flange: the drive's (drive_crank) output torque tau_load and input
speed w_load, the crank's output speed crank.w and input torque crank.tau. The power the drive
sends, tau_load*w_load, and the power the crank takes, crank.tau*crank.w, differ over a step by
the coupling error; ECCO shrinks the step where they differ and grows it where they agree
(a PI controller on the energy residual, within [min_step, max_step]). The connections are those
of libcosim_master.py.

libcosim's ECCO reads the bond's inputs as well as its outputs; a variable is readable only once
an observer has exposed it, so the run carries a last-value observer (libcosim_master.record adds
one).
"""

import argparse

from libcosimpy.CosimAlgorithm import CosimAlgorithm, EccoParams
from libcosimpy.CosimExecution import CosimExecution

from fmpy_master import example_fmus
from libcosim_master import couple, record
from mechanisms import CRANK


def run(crank_fmu, drive_fmu, tolerance=1e-4, stop_time=2.0, max_steps=200_000):
    """Runs the coupled system with ECCO; returns a Result (fmpy_master.Result) at the
    communication points ECCO chose."""
    parameters = EccoParams(
        safety_factor=0.8,
        step_size=1e-4,
        min_step_size=1e-5,
        max_step_size=1e-2,
        min_change_rate=0.2,
        max_change_rate=1.5,
        abs_tolerance=tolerance,
        rel_tolerance=tolerance,
        p_gain=0.2,
        i_gain=0.15,
    )
    algorithm = CosimAlgorithm.create_ecco_algorithm(parameters)
    execution = CosimExecution.from_algorithm(algorithm)
    drives, crank, vr = couple(execution, CRANK, crank_fmu, drive_fmu)
    for d, drive in zip(CRANK.drives, drives):
        status = algorithm.add_power_bond(
            crank, vr[crank][f"{d.joint}.w"], vr[crank][f"{d.joint}.tau"],
            drive, vr[drive]["tau_load"], vr[drive]["w_load"],
        )
        assert status == 0, "the power bond was refused"
    return record(execution, CRANK, drives, crank, int(round(stop_time * 1e9)), max_steps)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tolerance", type=float, default=1e-4,
                        help="absolute and relative tolerance of the energy residual")
    parser.add_argument("--stop-time", type=float, default=2.0, help="[s]")
    args = parser.parse_args(argv)
    crank, drive = example_fmus()
    result = run(crank, drive, args.tolerance, args.stop_time)
    steps = len(result.time) - 1
    print(f"ECCO, tolerance {args.tolerance:g}: {steps} steps, from "
          f"{min(result.time[1:] - result.time[:-1]):.3g} s to "
          f"{max(result.time[1:] - result.time[:-1]):.3g} s")
    print(result.report("libcosim ECCO, torque-driven"))


if __name__ == "__main__":
    main()
