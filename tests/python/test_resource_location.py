"""fmuResourceLocation as importers pass it, and when they get it wrong: the FMU finds its own
resources folder from where its library was loaded, says so in a warning, and runs."""

import ctypes

import fmpy
from fmpy.fmi2 import FMU2Slave, fmi2CoSimulation

from conftest import recording_callbacks

MESSAGES = []
CALLBACKS, RECORD = recording_callbacks(MESSAGES)


def instantiate(fmu, folder, location):
    """fmi2Instantiate with a resource location of our choosing (fmpy's own instantiate always
    passes the right one)."""
    description = fmpy.read_model_description(str(fmu))
    slave = FMU2Slave(
        guid=description.guid,
        unzipDirectory=folder,
        modelIdentifier=description.coSimulation.modelIdentifier,
        instanceName="located",
    )
    slave.callbacks = CALLBACKS
    slave.component = slave.fmi2Instantiate(
        b"located", fmi2CoSimulation, description.guid.encode(), location, ctypes.byref(CALLBACKS), 0, 0
    )
    return slave


def run_one_step(slave):
    slave.setupExperiment(startTime=0.0)
    slave.enterInitializationMode()
    slave.exitInitializationMode()
    slave.doStep(currentCommunicationPoint=0.0, communicationStepSize=0.01)
    slave.terminate()
    slave.fmi2FreeInstance(slave.component)
    slave.freeLibrary()


def test_the_location_forms_importers_use(fmus, tmp_path):
    folder = fmpy.extract(str(fmus["pendulum"]), unzipdir=str(tmp_path / "unzipped"))
    resources = tmp_path / "unzipped" / "resources"
    for location in (resources.as_uri(), "file:" + str(resources), "file://localhost" + str(resources)):
        MESSAGES.clear()
        slave = instantiate(fmus["pendulum"], folder, location.encode())
        assert slave.component, f"{location}: {MESSAGES}"
        assert not any(status >= 1 for status, _, _ in MESSAGES), MESSAGES
        run_one_step(slave)


def test_a_missing_or_wrong_location_falls_back_to_the_library_folder(fmus, tmp_path):
    folder = fmpy.extract(str(fmus["pendulum"]), unzipdir=str(tmp_path / "unzipped"))
    for location in (None, b"http://example.org/resources", b"file:///no/such/folder"):
        MESSAGES.clear()
        slave = instantiate(fmus["pendulum"], folder, location)
        assert slave.component, f"{location}: {MESSAGES}"
        warnings = [m for status, category, m in MESSAGES if category == "logStatusWarning"]
        assert len(warnings) == 1 and "using the resources of the FMU this library was loaded from" in warnings[0], MESSAGES
        run_one_step(slave)
