"""fmi2Discard through fmpy, as a Python master meets it: a mass on a 100 Hz spring at
tolerance 1e-8 needs about 10 000 integrator steps per second, and its model's output interval is
1 s (a budget of 500 steps per output interval), so a long step is discarded. fmpy raises
FMICallException with status 2 (discard); the master reads fmi2LastSuccessfulTime, restores the
state saved before the step and halves the step. The run completes and ends on the closed form
x(t) = x0 cos(omega t) of the undamped oscillator."""

import math
import shutil

import fmpy
import pytest
from fmpy.fmi1 import FMICallException
from fmpy.fmi2 import FMU2Slave, fmi2Discard

from conftest import fmu3d

MODEL = """
model stiff "A mass on a 100 Hz spring"
parameters { k = 4e5 N/m "stiffness" }
gravity none
experiment { stop_time = 1 s; interval = 1 s; tolerance = 1e-8 }
object b { mass { m = 1 kg; inertia = diag(1, 1, 1) kg.m2 }; output = true }
joint slide prismatic { from = world; to = b; axis = x; s = 0.001 m; spring = k }
"""

X0, OMEGA = 0.001, math.sqrt(4e5)
FMI2_LAST_SUCCESSFUL_TIME = 2


@pytest.fixture
def slave(tmp_path):
    model = tmp_path / "stiff.m3d"
    model.write_text(MODEL)
    fmu = tmp_path / "stiff.fmu"
    fmu3d("build", model, "-o", fmu)
    description = fmpy.read_model_description(str(fmu))
    unzipped = fmpy.extract(str(fmu))
    instance = FMU2Slave(guid=description.guid, unzipDirectory=unzipped,
                         modelIdentifier=description.coSimulation.modelIdentifier,
                         instanceName="stiff")
    instance.instantiate()
    instance.setupExperiment(startTime=0.0, stopTime=1.0)
    instance.enterInitializationMode()
    instance.exitInitializationMode()
    vr = {v.name: v.valueReference for v in description.modelVariables}
    yield instance, vr
    instance.freeInstance()
    shutil.rmtree(unzipped, ignore_errors=True)


def test_discarded_step_reports_where_it_stopped_and_the_state_there(slave):
    instance, vr = slave
    with pytest.raises(FMICallException) as raised:
        instance.doStep(currentCommunicationPoint=0.0, communicationStepSize=1.0)
    assert raised.value.status == fmi2Discard
    reached = instance.getRealStatus(FMI2_LAST_SUCCESSFUL_TIME)
    x = instance.getReal([vr["slide.s"]])[0]
    error = abs(x - X0 * math.cos(OMEGA * reached))
    print(f"discarded at {reached:.6f} s, x off the closed form by {error:.1e} m")
    assert 0.0 < reached < 1.0
    assert error < 1e-8


def test_master_halving_the_step_on_discard_completes_the_run(slave):
    instance, vr = slave
    t, h, discards = 0.0, 1.0, 0
    while t < 1.0 - 1e-12:
        step = min(h, 1.0 - t)
        before = instance.getFMUState()
        try:
            instance.doStep(currentCommunicationPoint=t, communicationStepSize=step)
            t += step
        except FMICallException as e:
            assert e.status == fmi2Discard, e
            instance.setFMUState(before)
            h /= 2
            discards += 1
        instance.freeFMUState(before)
    x = instance.getReal([vr["slide.s"]])[0]
    error = abs(x - X0 * math.cos(OMEGA * 1.0))
    print(f"{discards} discards, final step {h} s, x(1 s) off the closed form by {error:.1e} m")
    assert discards > 0
    # 160 cycles at tolerance 1e-8: about 9e-8 m of phase error.
    assert error < 3e-7
