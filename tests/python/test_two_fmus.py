"""Several FMUs and instances in one process, through fmpy's low-level FMI 2.0 API: no shared
state between them, and loading again after the libraries were unloaded. The references are runs
of the same engine (alone, `fmu3d simulate`): this checks the FMI layer, not the physics."""

import fmpy
import numpy as np

from conftest import Instance, assert_same_results

# A step exact in binary (2^-7 s), so that t + H is exactly the next (i + 1) * H of `fmu3d
# simulate`: the integrator stops at each communication point, and a communication point off
# by one bit changes its step sequence (differences within the solver tolerance).
H, STEPS = 2.0**-7, 256  # 2 s


def run_alone(fmu, folder, name, **kwargs):
    instance = Instance(fmu, folder, name, **kwargs)
    for _ in range(STEPS):
        instance.step(H)
    instance.free()
    return instance


def test_two_fmus_stepped_alternately_give_their_results_alone(fmus, reference, tmp_path):
    folders = {
        name: fmpy.extract(str(fmus[name]), unzipdir=str(tmp_path / name))
        for name in ("pendulum", "double_pendulum")
    }
    alone = {name: run_alone(fmus[name], folders[name], f"{name}_alone") for name in folders}

    together = {name: Instance(fmus[name], folders[name], name) for name in folders}
    for _ in range(STEPS):
        for instance in together.values():
            instance.step(H)
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
    for _ in range(STEPS):
        default.step(H)
        heavy.step(H)
    names = [v.name for v in default.outputs]
    expected = reference("pendulum", stop_time=STEPS * H, step=H)
    assert_same_results(default.result(), expected, names, 1e-9, "default pendulum")
    changed = heavy.result()
    assert changed["rev.phi"][0] == 0.5
    assert np.max(np.abs(changed["rev.phi"] - expected["rev.phi"])) > 0.1
    default.free()
    heavy.free()
