"""The crank driven by the drive train, run by libcosim (the Open Simulation Platform's
co-simulation master) through libcosimpy: libcosim's own fixed-step algorithm steps both FMUs,
and the couplings are connections declared through its API.

    python libcosim_master.py [--step-ns 1000000] [--stop-time 2]

Connections (torque-driven, as in fmpy_master.py):

    drive.tau_load -> crank.crank.tau      crank.crank.w -> drive.w_load
                                           crank.crank.a -> drive.a_load

libcosim steps every FMU from t_k to t_k + h and then copies each output to the inputs it is
connected to (a Jacobi scheme); it passes no input derivatives, so the crank holds the drive's
torque over the step. Time is counted in integer nanoseconds.
"""

import argparse
from pathlib import Path

import numpy as np
from libcosimpy.CosimEnums import CosimVariableType
from libcosimpy.CosimExecution import CosimExecution
from libcosimpy.CosimLogging import CosimLogLevel, log_output_level
from libcosimpy.CosimObserver import CosimObserver
from libcosimpy.CosimSlave import CosimLocalSlave

from fmpy_master import Result, example_fmus, mechanical_energy

log_output_level(CosimLogLevel.WARNING)


# The connections of the torque-driven coupling: (source, output, target, input).
CONNECTIONS = (
    ("drive", "tau_load", "crank", "crank.tau"),
    ("crank", "crank.w", "drive", "w_load"),
    ("crank", "crank.a", "drive", "a_load"),
)


def reflected_inertia():
    """The motor's rotor inertia reflected through the gear, J_m*ratio^2, with the drive's
    defaults: the crank's J_drive (libcosim reads no calculated parameter before the run)."""
    from drive_train import PARAMETERS

    defaults = {name: value for name, value, _ in PARAMETERS}
    return defaults["J_m"] * defaults["ratio"] ** 2


def couple(execution, crank_fmu, drive_fmu):
    """Adds the drive and the crank to an execution and connects them; returns their slave
    indices and value references: (drive, crank, {index: {name: reference}})."""
    drive = execution.add_local_slave(
        CosimLocalSlave(fmu_path=str(drive_fmu), instance_name="drive"))
    crank = execution.add_local_slave(
        CosimLocalSlave(fmu_path=str(crank_fmu), instance_name="crank"))
    assert drive >= 0 and crank >= 0
    index = {"drive": drive, "crank": crank}
    vr = {
        i: {v.name.decode(): v.reference for v in execution.slave_variables(i)}
        for i in (drive, crank)
    }
    # The motor's rotor inertia lives in the mechanism, reflected through the gear.
    assert execution.real_initial_value(crank, vr[crank]["J_drive"], reflected_inertia())
    for source, output, target, input_ in CONNECTIONS:
        source, target = index[source], index[target]
        # connect_real_variables returns libcosim's C status: 0 is success.
        status = execution.connect_real_variables(source, vr[source][output], target,
                                                  vr[target][input_])
        assert status == 0, (output, input_)
    return drive, crank, vr


def run(crank_fmu, drive_fmu, step_ns=1_000_000, stop_time=2.0):
    """Runs the coupled system in libcosim; returns a Result (fmpy_master.Result)."""
    steps = int(round(stop_time * 1e9 / step_ns))
    execution = CosimExecution.from_step_size(step_ns)
    drive, crank, _ = couple(execution, crank_fmu, drive_fmu)
    result = record(execution, drive, crank, steps * step_ns, steps)
    assert len(result.time) == steps + 1
    return result


def record(execution, drive, crank, stop_ns, max_steps):
    """Runs an execution holding the drive (slave index `drive`) and the crank (`crank`) to
    `stop_ns` (at most `max_steps` steps, fixed or variable) and returns what they did at every
    step as a Result (fmpy_master.Result)."""
    vr = {
        index: {v.name.decode(): v.reference for v in execution.slave_variables(index)}
        for index in (drive, crank)
    }
    series = CosimObserver.create_time_series(buffer_size=max_steps + 10)
    last = CosimObserver.create_last_value()
    execution.add_observer(series)
    execution.add_observer(last)
    recorded = {
        drive: ["tau_load", "E_el", "E_loss", "E_mag"],
        crank: ["crank.phi", "crank.w", "weight.r[2]"],
    }
    for index, names in recorded.items():
        for name in names:
            assert series.start_time_series(index, vr[index][name], CosimVariableType.REAL)

    assert execution.simulate_until(stop_ns)
    # A variable-step algorithm may end a little past stop_ns, never before.
    assert execution.status().current_time >= stop_ns

    columns = {}
    for index, names in recorded.items():
        for name in names:
            # From step 1: libcosim drops step 0's samples when it trims its buffer.
            times, numbers, values = series.time_series_real_samples(
                index, vr[index][name], from_step=1, sample_count=max_steps + 1
            )
            assert len(numbers) <= max_steps, f"more than {max_steps} steps"
            assert list(numbers) == list(range(1, len(numbers) + 1)), name
            columns[name] = np.array(values)
    time = np.concatenate([[0.0], np.array(times) * 1e-9])
    J_fw, J_drive_set, m_e, r_e = last.last_real_values(
        crank, [vr[crank][n] for n in ("J_fw", "J_drive", "m_e", "r_e")]
    )
    inertia = J_fw + J_drive_set + m_e * r_e**2
    # Prepend the state at rest (t = 0): angle phi0, speed 0, no current, no energy.
    (phi0,) = last.last_real_values(crank, [vr[crank]["phi0"]])
    y0 = r_e * np.sin(phi0)

    def with_start(name, value):
        return np.concatenate([[value], columns[name]])

    E_mech = mechanical_energy(inertia, m_e, with_start("crank.w", 0.0),
                               with_start("weight.r[2]", y0))
    return Result(
        time=time,
        phi=with_start("crank.phi", phi0),
        w=with_start("crank.w", 0.0),
        tau=with_start("tau_load", 0.0),
        E_el=with_start("E_el", 0.0),
        E_loss=with_start("E_loss", 0.0),
        E_mag=with_start("E_mag", 0.0),
        E_mech=E_mech - E_mech[0],
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--step-ns", type=int, default=1_000_000,
                        help="communication step [ns]")
    parser.add_argument("--stop-time", type=float, default=2.0, help="[s]")
    args = parser.parse_args(argv)
    crank, drive = example_fmus()
    print(run(crank, drive, args.step_ns, args.stop_time).report("libcosim, torque-driven"))


if __name__ == "__main__":
    main()
