"""The mechanisms of mechanisms.py driven by drive trains, run by libcosim (the Open Simulation
Platform's co-simulation master) through libcosimpy: libcosim's own fixed-step algorithm steps
all FMUs, and the couplings are connections declared through its API.

    python libcosim_master.py [--example crank|robot-arm|fourbar-crank] [--step-ns 1000000]
                              [--stop-time T]

Every drive is an instance of the same drive_train.fmu, named after its joint (drive_base,
drive_shoulder, ...). Connections for every driven joint J (torque-driven, as in fmpy_master.py):

    drive_J.tau_load -> mechanism.J.tau      mechanism.J.phi -> drive_J.phi_load
                                             mechanism.J.w   -> drive_J.w_load
                                             mechanism.J.a   -> drive_J.a_load

libcosim steps every FMU from t_k to t_k + h and then copies each output to the inputs it is
connected to (a Jacobi scheme); it passes no input derivatives, so the mechanism holds the
drives' torques over the step. Time is counted in integer nanoseconds.

The coupling (`connections`, `couple`) and the recording of a run (`record`) serve the other
libcosim examples too: ecco_master.py (the ECCO algorithm) and ssp_libcosim.py (the same coupling
loaded from an SSP file).
"""

import argparse
import time as clock

import numpy as np
from libcosimpy.CosimEnums import CosimVariableType
from libcosimpy.CosimExecution import CosimExecution
from libcosimpy.CosimLogging import CosimLogLevel, log_output_level
from libcosimpy.CosimObserver import CosimObserver
from libcosimpy.CosimSlave import CosimLocalSlave

from fmpy_master import EXAMPLES, Result, example_fmus, friction_energy
from mechanisms import CRANK, Mechanism

log_output_level(CosimLogLevel.WARNING)


def connections(mechanism: Mechanism):
    """The connections of the torque-driven coupling, for every driven joint:
    (source instance, output, target instance, input)."""
    return tuple(
        connection
        for d in mechanism.drives
        for connection in (
            (d.instance_name, "tau_load", mechanism.name, f"{d.joint}.tau"),
            (mechanism.name, f"{d.joint}.phi", d.instance_name, "phi_load"),
            (mechanism.name, f"{d.joint}.w", d.instance_name, "w_load"),
            (mechanism.name, f"{d.joint}.a", d.instance_name, "a_load"),
        )
    )


def variable_references(execution, indices):
    """{slave index: {variable name: value reference}}."""
    return {
        index: {v.name.decode(): v.reference for v in execution.slave_variables(index)}
        for index in indices
    }


def couple(execution, mechanism: Mechanism, mechanism_fmu, drive_fmu):
    """Adds the mechanism and one instance of the drive FMU per driven joint (named after the
    joint) to an execution, sets their parameters and connects them. Returns the drives' slave
    indices, the mechanism's and the value references: (drives, mech, {index: {name: ref}})."""
    drives = [
        execution.add_local_slave(CosimLocalSlave(fmu_path=str(drive_fmu),
                                                  instance_name=d.instance_name))
        for d in mechanism.drives
    ]
    mech = execution.add_local_slave(CosimLocalSlave(fmu_path=str(mechanism_fmu),
                                                     instance_name=mechanism.name))
    assert min(drives) >= 0 and mech >= 0
    vr = variable_references(execution, (*drives, mech))
    index = {d.instance_name: drive for d, drive in zip(mechanism.drives, drives)}
    index[mechanism.name] = mech

    for d, drive in zip(mechanism.drives, drives):
        for name, value in d.parameters.items():
            set_value = (execution.boolean_initial_value if isinstance(value, bool)
                         else execution.real_initial_value)
            assert set_value(drive, vr[drive][name], value), name
        # The motor's rotor inertia lives in the mechanism, reflected through the gear
        # (libcosim reads no calculated parameter before the run).
        assert execution.real_initial_value(mech, vr[mech][d.inertia_parameter],
                                            d.reflected_inertia())
    for source, output, target, input_ in connections(mechanism):
        source, target = index[source], index[target]
        # connect_real_variables returns libcosim's C status: 0 is success.
        status = execution.connect_real_variables(source, vr[source][output], target,
                                                  vr[target][input_])
        assert status == 0, (output, input_)
    return drives, mech, vr


def run_mechanism(mechanism: Mechanism, mechanism_fmu, drive_fmu, step_ns=1_000_000,
                  stop_time=2.0):
    """Runs the mechanism and its drives in libcosim's fixed-step algorithm; returns a Result
    (fmpy_master.Result)."""
    steps = int(round(stop_time * 1e9 / step_ns))
    execution = CosimExecution.from_step_size(step_ns)
    drives, mech, _ = couple(execution, mechanism, mechanism_fmu, drive_fmu)
    result = record(execution, mechanism, drives, mech, steps * step_ns, steps)
    assert len(result.time) == steps + 1
    return result


def record(execution, mechanism: Mechanism, drives, mech, stop_ns, max_steps):
    """Runs an execution holding the mechanism (slave index `mech`) and its drives (`drives`,
    in the order of mechanism.drives) to `stop_ns` (at most `max_steps` steps, fixed or
    variable) and returns what they did at every communication point as a Result
    (fmpy_master.Result)."""
    vr = variable_references(execution, (*drives, mech))
    series = CosimObserver.create_time_series(buffer_size=max_steps + 10)
    last = CosimObserver.create_last_value()
    execution.add_observer(series)
    execution.add_observer(last)
    recorded = {drive: ["tau_load", "E_el", "E_loss", "E_mag"] for drive in drives}
    recorded[mech] = [*mechanism.joint_variables("phi"), *mechanism.joint_variables("w"),
                      *mechanism.energy_outputs]
    for index, names in recorded.items():
        for name in names:
            assert series.start_time_series(index, vr[index][name], CosimVariableType.REAL)

    started = clock.perf_counter()
    assert execution.simulate_until(stop_ns)
    wall_seconds = clock.perf_counter() - started
    # A variable-step algorithm may end a little past stop_ns, never before.
    assert execution.status().current_time >= stop_ns

    columns = {}
    for index, names in recorded.items():
        for name in names:
            # Step 0 is the state after initialization, then one sample per step. libcosimpy
            # takes a step number 0 for an empty slot and drops one sample from the end of a
            # read that contains step 0: read step 0 alone (two slots), then from step 1 on.
            _, first_number, first_value = series.time_series_real_samples(
                index, vr[index][name], from_step=0, sample_count=2)
            times, numbers, values = series.time_series_real_samples(
                index, vr[index][name], from_step=1, sample_count=max_steps + 1)
            assert list(first_number) == [0], name
            assert len(numbers) <= max_steps, f"more than {max_steps} steps"
            assert list(numbers) == list(range(1, len(numbers) + 1)), name
            columns[index, name] = np.concatenate([first_value, values])
    time = np.concatenate([[0.0], np.array(times) * 1e-9])

    def drive_columns(name):
        return np.array([columns[drive, name] for drive in drives]).T

    def mechanism_columns(names):
        return np.array([columns[mech, name] for name in names]).T

    constants = dict(zip(mechanism.energy_parameters, last.last_real_values(
        mech, [vr[mech][n] for n in mechanism.energy_parameters])))
    damping = [last.last_real_values(mech, [vr[mech][d.damping_parameter]])[0]
               if d.damping_parameter else 0.0 for d in mechanism.drives]
    E_mech = mechanism.energy(constants | {name: columns[mech, name]
                                           for name in mechanism.energy_outputs})
    w = mechanism_columns(mechanism.joint_variables("w"))
    return Result(
        time=time,
        joints=tuple(d.joint for d in mechanism.drives),
        phi=mechanism_columns(mechanism.joint_variables("phi")),
        w=w,
        tau=drive_columns("tau_load"),
        E_el=drive_columns("E_el").sum(axis=1),
        E_loss=drive_columns("E_loss").sum(axis=1),
        E_mag=drive_columns("E_mag").sum(axis=1),
        E_friction=friction_energy(time, w, damping),
        E_mech=E_mech - E_mech[0],
        wall_seconds=wall_seconds,
    )


def run(crank_fmu, drive_fmu, step_ns=1_000_000, stop_time=2.0):
    """The crank driven by one drive in speed control (run_mechanism with CRANK)."""
    return run_mechanism(CRANK, crank_fmu, drive_fmu, step_ns, stop_time)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--example", choices=EXAMPLES, default="crank",
                        help="the mechanism and its drives (default: crank)")
    parser.add_argument("--step-ns", type=int, default=1_000_000,
                        help="communication step [ns]")
    parser.add_argument("--stop-time", type=float, help="[s] (default: the example's)")
    args = parser.parse_args(argv)
    mechanism = EXAMPLES[args.example]
    built, drive = example_fmus(mechanism=mechanism)
    result = run_mechanism(mechanism, built, drive, args.step_ns,
                           args.stop_time or mechanism.stop_time)
    print(result.report(f"libcosim, {mechanism.description}"))


if __name__ == "__main__":
    main()
