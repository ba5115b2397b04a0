"""Shapes that start inside each other, as an importer meets them: a parameter set through the
FMI API moves a block 1.6 mm into a ramp, and fmi2ExitInitializationMode refuses with fmi2Error
and a logger message that names both objects, the depth and the move that separates them. The
same FMU starts with the block touching, its default."""

import shutil

import fmpy
import pytest
from fmpy.fmi1 import FMICallException
from fmpy.fmi2 import FMU2Slave, fmi2Error

from conftest import fmu3d, recording_callbacks

MODEL = """
model block_on_ramp "a block on a ramp"
parameters { sink = 0 mm "how far the block starts inside the ramp" }
experiment { stop_time = 0.1 s; interval = 1 ms; tolerance = 1e-6 }
object ramp {
  parent = world; position = [0, -0.05, 0] m
  shape box { lengths = [1, 0.1, 1] m }
  contact { material = dry_wood }
}
object block {
  shape box { lengths = [0.1, 0.05, 0.1] m }
  mass { material = steel }
  contact { material = steel }
  output = true
}
joint slide free { from = world; to = block; position = [0, 0.025 - sink, 0] }
"""


@pytest.fixture
def block_fmu(tmp_path):
    model = tmp_path / "block_on_ramp.m3d"
    model.write_text(MODEL)
    fmu = tmp_path / "block_on_ramp.fmu"
    fmu3d("build", model, "-o", fmu)
    return fmu


def start(fmu, sink):
    """Instantiates, sets `sink` and initializes; returns (exception or None, log messages)."""
    description = fmpy.read_model_description(str(fmu))
    unzipped = fmpy.extract(str(fmu))
    messages = []
    callbacks, _record = recording_callbacks(messages)
    instance = FMU2Slave(guid=description.guid, unzipDirectory=unzipped,
                         modelIdentifier=description.coSimulation.modelIdentifier,
                         instanceName="block")
    instance.instantiate(callbacks=callbacks)
    vr = {v.name: v.valueReference for v in description.modelVariables}
    failure = None
    try:
        instance.setupExperiment(startTime=0.0, stopTime=0.1)
        instance.enterInitializationMode()
        instance.setReal([vr["sink"]], [sink])
        instance.exitInitializationMode()
        instance.doStep(currentCommunicationPoint=0.0, communicationStepSize=0.01)
    except FMICallException as e:
        failure = e
    instance.freeInstance()
    shutil.rmtree(unzipped, ignore_errors=True)
    return failure, messages


def test_a_parameter_that_sinks_the_block_is_refused_at_exit_initialization(block_fmu):
    failure, messages = start(block_fmu, 1.6e-3)
    assert failure is not None and failure.status == fmi2Error, messages
    text = " ".join(m for _, _, m in messages)
    print(text)
    assert "fmi2ExitInitializationMode" in text
    for expected in ["`ramp` and `block` overlap by 1.6000 mm",
                     "more than the 0.1000 mm a start may have",
                     "moving `block` by 1.6000 mm along [0.0000, 1.0000, 0.0000]"]:
        assert expected in text, text


def test_the_block_touching_starts(block_fmu):
    failure, messages = start(block_fmu, 0.0)
    assert failure is None, messages
