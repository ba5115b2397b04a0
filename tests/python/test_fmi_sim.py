"""fmi-sim (the command of the Rust crate fmi-sim, rust-fmi: its own FMI 2.0 bindings, generated
from the official headers, and its own master loop; installed into .tools/ by `bash
scripts/setup.sh --python`) runs every shipped model's FMU in Co-Simulation mode; its CSV agrees
with `fmu3d simulate` on the model file at every row. Both run the same engine, so this checks
the FMI layer under a third importer (instantiation, experiment set-up with the model's
tolerance, fmi2DoStep at each output point, fmi2GetReal of every output), not the physics
(test_physics.py does).

fmi-sim steps from output point to output point, t_n = start + n*interval. The interval here is
2^-7 s, exact in binary, so these are exactly fmu3d's start + i*step: the integrator stops at the
same instants and the results agree to the last bit (the difference measured is 0 for every
model, so the tolerance is 0). fmi-sim reads the outputs one fmi2GetReal call per variable; a cut
joint's angle used to move by an ulp at each read, which this test found on the four-bar
(tests/tests/cut_joint_outputs.rs keeps the regression test).

fmi-sim's Model Exchange mode (forward Euler) runs them too: test_model_exchange.py checks its
convergence to the Co-Simulation result.
"""

import os
import subprocess

import fmpy
import pytest

from conftest import (REPOSITORY, SHIPPED_MODELS, assert_same_results, declared_experiment,
                      installed_tool, read_csv)

FMI_SIM = REPOSITORY / ".tools" / "bin" / "fmi-sim"
STEP = 2.0**-7
STEPS = 256  # 2 s
RTOL = 0.0  # bit for bit


def fmi_sim(fmu, csv, interface, *options):
    """`fmi-sim --model FMU -o CSV INTERFACE OPTIONS`; returns the finished process."""
    return subprocess.run(
        [str(installed_tool(FMI_SIM)), "--model", str(fmu), "-o", str(csv), interface,
         *map(str, options)],
        capture_output=True, text=True, env=dict(os.environ, RUST_BACKTRACE="0"),
    )


@pytest.mark.parametrize("name", SHIPPED_MODELS)
def test_fmi_sim_runs_the_fmu_like_fmu3d_simulate(fmus, reference, tmp_path, name):
    start = declared_experiment(name)["start_time"]
    stop = start + STEPS * STEP
    csv = tmp_path / f"{name}.csv"
    run = fmi_sim(fmus[name], csv, "co-simulation", "--output-interval", repr(STEP),
                  "-s", repr(start), "-f", repr(stop))
    assert run.returncode == 0, run.stderr
    result = read_csv(csv)

    description = fmpy.read_model_description(str(fmus[name]))
    outputs = [v.name for v in description.modelVariables if v.causality == "output"]
    assert list(result.dtype.names) == ["time"] + outputs
    expected = reference(name, stop_time=stop, step=STEP)
    assert len(result) == STEPS + 1
    # Bit for bit: the difference measured is 0 on every model, so the tolerance is 0.
    worst = assert_same_results(result, expected, outputs, rtol=RTOL, what=f"{name} (fmi-sim)")
    print(f"{name}: fmi-sim co-simulation, {STEPS} steps of 2^-7 s, "
          f"max |fmi-sim - fmu3d simulate| = {worst:.3g}")
