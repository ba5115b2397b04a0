"""libcosim (the Open Simulation Platform's co-simulation master, through libcosimpy) runs each
FMU; its results agree with `fmu3d simulate` on the model file. Both run the same engine: this
checks the FMI layer under another importer, not the physics (test_physics.py does).

libcosim counts time in integer nanoseconds and converts to seconds for fmi2DoStep. The step
here is 2^-7 s = 7 812 500 ns, which is exact in binary floating point, so libcosim's
communication points are exactly fmu3d's start + i*step and the two runs must agree to the last
bits. (With a 10 ms step the communication points differ in the last bit, e.g. h =
0.010000000000000009; the integrator then takes a different step sequence and the results
differ within the solver tolerance, amplified by the dynamics of the chaotic models.)
"""

import fmpy
import numpy as np
import pytest
from libcosimpy.CosimEnums import CosimVariableType
from libcosimpy.CosimExecution import CosimExecution
from libcosimpy.CosimLogging import CosimLogLevel, log_output_level
from libcosimpy.CosimObserver import CosimObserver
from libcosimpy.CosimSlave import CosimLocalSlave

from conftest import MODELS, declared_experiment

STEP_NS = 7_812_500  # 2^-7 s
STEPS = 256  # 2 s
RTOL = 1e-9

log_output_level(CosimLogLevel.WARNING)


# libcosimpy's executions always start at t = 0; a model whose experiment starts later would
# be compared with a different experiment.
LIBCOSIM_MODELS = [name for name in MODELS if declared_experiment(name)["start_time"] == 0]


@pytest.mark.parametrize("name", LIBCOSIM_MODELS)
def test_libcosim_runs_the_fmu_like_fmu3d_simulate(fmus, reference, name):
    description = fmpy.read_model_description(str(fmus[name]))
    assert float(description.defaultExperiment.startTime) == 0.0
    outputs = [v for v in description.modelVariables if v.causality == "output"]
    references = [v.valueReference for v in outputs]

    execution = CosimExecution.from_step_size(STEP_NS)
    index = execution.add_local_slave(CosimLocalSlave(fmu_path=str(fmus[name]), instance_name=name))
    assert index >= 0
    names = [(v.name.decode(), v.reference) for v in execution.slave_variables(index)]
    assert names == [(v.name, v.valueReference) for v in description.modelVariables]

    last = CosimObserver.create_last_value()
    series = CosimObserver.create_time_series()
    execution.add_observer(last)
    execution.add_observer(series)
    for vr in references:
        assert series.start_time_series(index, vr, CosimVariableType.REAL)
    assert execution.simulate_until(STEPS * STEP_NS)
    assert execution.status().current_time == STEPS * STEP_NS

    expected = reference(name, stop_time=STEPS * STEP_NS * 1e-9, step=STEP_NS * 1e-9)
    assert len(expected) == STEPS + 1
    final = last.last_real_values(index, references)
    worst = 0.0
    for variable, value in zip(outputs, final):
        e = expected[variable.name][-1]
        worst = max(worst, abs(value - e))
        assert value == pytest.approx(e, rel=RTOL, abs=RTOL), f"{name}: {variable.name} at 2 s"

    # The whole trajectory, every step. (From step 1: libcosimpy drops the samples of step 0
    # when it trims its buffer.)
    for variable in outputs:
        times, steps, values = series.time_series_real_samples(
            index, variable.valueReference, from_step=1, sample_count=STEPS
        )
        assert list(steps) == list(range(1, STEPS + 1)), variable.name
        assert list(times) == [i * STEP_NS for i in range(1, STEPS + 1)], variable.name
        e = expected[variable.name][1:]
        scale = max(1.0, float(np.max(np.abs(e))))
        difference = np.abs(np.array(values) - e)
        worst = max(worst, float(np.max(difference)))
        assert np.max(difference) <= RTOL * scale, (
            f"{name}: {variable.name} differs by up to {np.max(difference):.3g}"
        )
    print(f"{name}: libcosim, {STEPS} steps of 2^-7 s, max |libcosim - fmu3d simulate| = {worst:.3g}")
