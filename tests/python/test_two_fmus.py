"""Several FMUs and instances in one process, through fmpy's low-level FMI 2.0 API: no shared
state between them, and loading again after the libraries were unloaded."""

import fmpy
import numpy as np
from fmpy.fmi2 import FMU2Slave

from conftest import assert_same_results

# A step exact in binary (2^-7 s), so that t + H is exactly the next (i + 1) * H of `fmu3d
# simulate`: the integrator stops at each communication point, and a communication point off
# by one bit changes its step sequence (differences within the solver tolerance).
H, STEPS = 2.0**-7, 256  # 2 s


class Instance:
    """One FMU instance, initialized at t = 0, recording its outputs at every step."""

    def __init__(self, fmu, folder, name, start_values=None):
        self.description = fmpy.read_model_description(str(fmu))
        self.outputs = [v for v in self.description.modelVariables if v.causality == "output"]
        references = {v.name: v.valueReference for v in self.description.modelVariables}
        self.slave = FMU2Slave(
            guid=self.description.guid,
            unzipDirectory=folder,
            modelIdentifier=self.description.coSimulation.modelIdentifier,
            instanceName=name,
        )
        self.slave.instantiate()
        self.slave.setupExperiment(startTime=0.0)
        self.slave.enterInitializationMode()
        for variable, value in (start_values or {}).items():
            self.slave.setReal([references[variable]], [value])
        self.slave.exitInitializationMode()
        self.time = 0.0
        self.rows = [self.sample()]

    def sample(self):
        return (self.time, *self.slave.getReal([v.valueReference for v in self.outputs]))

    def step(self, i):
        self.slave.doStep(currentCommunicationPoint=self.time, communicationStepSize=H)
        self.time = (i + 1) * H
        self.rows.append(self.sample())

    def result(self):
        dtype = [("time", float)] + [(v.name, float) for v in self.outputs]
        return np.array(self.rows, dtype=dtype)

    def free(self):
        self.slave.terminate()
        self.slave.freeInstance()  # fmi2FreeInstance, then fmpy unloads the library


def run_alone(fmu, folder, name, **kwargs):
    instance = Instance(fmu, folder, name, **kwargs)
    for i in range(STEPS):
        instance.step(i)
    instance.free()
    return instance


def test_two_fmus_stepped_alternately_give_their_results_alone(fmus, reference, tmp_path):
    folders = {
        name: fmpy.extract(str(fmus[name]), unzipdir=str(tmp_path / name))
        for name in ("pendulum", "double_pendulum")
    }
    alone = {name: run_alone(fmus[name], folders[name], f"{name}_alone") for name in folders}

    together = {name: Instance(fmus[name], folders[name], name) for name in folders}
    for i in range(STEPS):
        for instance in together.values():
            instance.step(i)
    for name, instance in together.items():
        names = [v.name for v in instance.outputs]
        result = instance.result()
        worst = assert_same_results(result, alone[name].result(), names, 1e-12, f"{name}: alone")
        expected = reference(name, stop_time=STEPS * H, step=H)
        worst = max(worst, assert_same_results(result, expected, names, 1e-9, f"{name}: fmu3d"))
        print(f"{name}: stepped alternately with another FMU, max difference {worst:.3g}")
    for instance in together.values():
        instance.free()

    # The libraries were unloaded: a new instance loads again and still works.
    third = run_alone(fmus["pendulum"], folders["pendulum"], "pendulum_again")
    expected = reference("pendulum", stop_time=STEPS * H, step=H)
    names = [v.name for v in third.outputs]
    assert_same_results(third.result(), expected, names, 1e-9, "pendulum after unloading")


def test_two_instances_of_one_fmu_keep_their_own_parameters(fmus, reference, tmp_path):
    folder = fmpy.extract(str(fmus["pendulum"]), unzipdir=str(tmp_path / "pendulum"))
    default = Instance(fmus["pendulum"], folder, "default")
    heavy = Instance(fmus["pendulum"], folder, "changed", start_values={"d": 0.0, "phi0": 0.5})
    for i in range(STEPS):
        default.step(i)
        heavy.step(i)
    names = [v.name for v in default.outputs]
    expected = reference("pendulum", stop_time=STEPS * H, step=H)
    assert_same_results(default.result(), expected, names, 1e-9, "default pendulum")
    changed = heavy.result()
    assert changed["rev.phi"][0] == 0.5
    assert np.max(np.abs(changed["rev.phi"] - expected["rev.phi"])) > 0.1
    default.free()
    heavy.free()
