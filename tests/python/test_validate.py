"""fmpy's validation of every FMU, and what fmpy reads from modelDescription.xml against what the
model file says (read here with a few regular expressions, not with fmu3d's parser)."""

import re
import sys

import fmpy
import pytest
from fmpy.validation import validate_fmu

from conftest import EXAMPLES, MODELS, declared_experiment, declared_parameters, fmu3d, model_text

sys.path.insert(0, str(EXAMPLES))

import fmpy_master  # noqa: E402


def declared_joints(name):
    """[(joint name, kind, flange)] of every joint the model file declares, in `for` loops and
    sub-assemblies too (the name without its index or instance)."""
    joints = []
    pattern = r"^\s*joint\s+(\w+)(?:\[[^\]]*\])?\s+(\w+)\s*\{([^}]*)\}"
    for m in re.finditer(pattern, model_text(name), re.M):
        flange = re.search(r"flange\s*=\s*(\w+)", m.group(3))
        joints.append((m.group(1), m.group(2), flange.group(1) if flange else "passive"))
    return joints


def declared_output_objects(name):
    """Objects declared with `output = true`, in `for` loops and sub-assemblies too."""
    text = model_text(name)
    objects = []
    for m in re.finditer(r"^\s*object\s+(\w+)(?:\[[^\]]*\])?\s*\{", text, re.M):
        depth, i = 1, m.end()
        while depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        if re.search(r"(?:^|[{;])\s*output\s*=\s*true\b", text[m.end() : i], re.M):
            objects.append(m.group(1))
    return objects


def instances(variables, element, suffix):
    """The FMU names of a declared element: itself, `element[i]` of a `for` loop, or
    `instance.element` of a sub-assembly (read from the names of the variables `NAME.suffix`)."""
    pattern = re.compile(rf"((?:\w+\.)*{element}(?:\[\d+\])?)\.{re.escape(suffix)}")
    return sorted({m.group(1) for v in variables if (m := pattern.fullmatch(v))})


#: The models with an object declared `output = true` (chain's only output frame depends on its
#: loop index).
OUTPUT_MODELS = [name for name in MODELS if declared_output_objects(name)]


@pytest.mark.parametrize("name", MODELS)
def test_fmpy_validation_finds_no_problem(fmus, name):
    problems = validate_fmu(str(fmus[name]))
    assert problems == [], f"{name}: " + "\n".join(problems)


def test_fmpy_validation_finds_no_problem_in_the_cosimulation_examples(crank_example, tmp_path):
    """The FMUs of examples/cosimulation as a user builds them: every mechanism with `fmu3d
    build`, the torque- and the motion-driven drive train with pythonfmu."""
    crank, drive, _ = crank_example
    built = [crank, drive, fmpy_master.build_drive(EXAMPLES / "drive_train_motion.py", tmp_path,
                                                   [EXAMPLES / "drive_train.py"])]
    for model in sorted(EXAMPLES.glob("*.m3d")):
        if model.stem != crank.stem:
            built.append(tmp_path / f"{model.stem}.fmu")
            fmu3d("build", model, "-o", built[-1])
    problems = [f"{fmu.name}: {problem}" for fmu in built for problem in validate_fmu(str(fmu))]
    print(f"fmpy validated {', '.join(fmu.name for fmu in built)}: {len(problems)} problems")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("name", MODELS)
def test_fmpy_reads_the_default_experiment_of_the_model(fmus, name):
    description = fmpy.read_model_description(str(fmus[name]))
    experiment = description.defaultExperiment
    assert experiment is not None
    expected = declared_experiment(name)
    assert float(experiment.startTime) == pytest.approx(expected["start_time"], abs=1e-12)
    assert float(experiment.stopTime) == pytest.approx(expected["stop_time"], rel=1e-12)
    assert float(experiment.stepSize) == pytest.approx(expected["interval"], rel=1e-12)
    assert float(experiment.tolerance) == pytest.approx(expected["tolerance"], rel=1e-12)
    assert description.fmiVersion == "2.0"
    assert description.coSimulation is not None
    assert description.modelExchange is not None
    assert (description.modelExchange.modelIdentifier
            == description.coSimulation.modelIdentifier)


@pytest.mark.parametrize("name", MODELS)
def test_fmpy_sees_every_parameter_with_its_si_unit_and_value(fmus, name):
    description = fmpy.read_model_description(str(fmus[name]))
    variables = {v.name: v for v in description.modelVariables}
    defined_units = {u.name for u in description.unitDefinitions}
    parameters = declared_parameters(name)
    assert parameters, f"{name}: the harness found no parameters in the model file"
    for parameter, (value, unit) in parameters.items():
        assert parameter in variables, f"{name}: parameter {parameter} is not an FMU variable"
        variable = variables[parameter]
        assert variable.type == "Real"
        assert variable.causality in ("parameter", "calculatedParameter"), parameter
        if unit is not None:
            assert variable.unit == unit, f"{name}: {parameter}"
            assert unit in defined_units, f"{name}: unit {unit} has no UnitDefinition"
        if value is not None and variable.causality == "parameter":
            assert float(variable.start) == pytest.approx(value, rel=1e-15), parameter


@pytest.mark.parametrize("name", MODELS)
def test_fmpy_sees_the_flange_variables_of_every_joint(fmus, name):
    description = fmpy.read_model_description(str(fmus[name]))
    variables = {v.name: v for v in description.modelVariables}
    # DESIGN contract: names, SI units, and causality by flange mode.
    # Per kind, its axes: coordinate, speed, acceleration, flange load (Modelica's names).
    turn = lambda q, w, a, tau: ((q, "rad"), (w, "rad/s"), (a, "rad/s2"), (tau, "N.m"))  # noqa: E731
    slide = lambda s, v, a, f: ((s, "m"), (v, "m/s"), (a, "m/s2"), (f, "N"))  # noqa: E731
    kinds = {
        "revolute": [turn("phi", "w", "a", "tau")],
        "prismatic": [slide("s", "v", "a", "f")],
        "universal": [turn("phi_a", "w_a", "a_a", "tau_a"), turn("phi_b", "w_b", "a_b", "tau_b")],
        "cylindrical": [slide("s", "v", "a", "f"), turn("phi", "w", "wd", "tau")],
        "planar": [slide("s_x", "v_x", "a_x", "f_x"), slide("s_y", "v_y", "a_y", "f_y"),
                   turn("phi", "w", "wd", "tau")],
    }
    joints = declared_joints(name)
    assert joints, f"{name}: the harness found no joint in the model file"
    for joint, kind, flange in joints:
        if kind not in kinds:
            # Free and fixed joints have no joint variables (a free body's motion is its
            # frame's outputs).
            assert not any(instances(variables, joint, suffix) for suffix in "phi s w v a".split()), \
                f"{name}: {kind} joint {joint} has joint variables"
            continue
        for names in kinds[kind]:
            check_axis_variables(variables, name, joint, kind, flange, names)


def check_axis_variables(variables, name, joint, kind, flange, names):
    """The variables of one axis of a joint: units, and causality by flange mode."""
    found = instances(variables, joint, names[0][0])
    assert found, f"{name}: no variables of {kind} joint {joint}"
    for instance in found:
        position, speed, acceleration, drive = (f"{instance}.{n}" for n, _ in names)
        for suffix, unit in names:
            variable = variables.get(f"{instance}.{suffix}")
            if variable is not None:
                assert variable.unit == unit, f"{name}: {instance}.{suffix}"
        if flange == "passive":
            assert variables[position].causality == "output"
            assert variables[speed].causality == "output"
            assert drive not in variables or variables[drive].causality != "input"
        elif flange == "force":
            assert variables[drive].causality == "input"
            for output in (position, speed, acceleration):
                assert variables[output].causality == "output", output
        elif flange == "motion":
            for input_ in (position, speed, acceleration):
                assert variables[input_].causality == "input", input_
            assert variables[drive].causality == "output"
        else:
            pytest.fail(f"{name}: unknown flange {flange}")


@pytest.mark.parametrize("name", OUTPUT_MODELS)
def test_fmpy_sees_the_outputs_of_every_output_object(fmus, name):
    description = fmpy.read_model_description(str(fmus[name]))
    variables = {v.name: v for v in description.modelVariables}
    for obj in declared_output_objects(name):
        found = instances(variables, obj, "r[1]")
        assert found, f"{name}: no outputs of object {obj}"
        for instance in found:
            for i in (1, 2, 3):
                assert variables[f"{instance}.r[{i}]"].unit == "m"
                assert variables[f"{instance}.v[{i}]"].unit == "m/s"
                assert variables[f"{instance}.w[{i}]"].unit == "rad/s"
                for quantity in "rvw":
                    assert variables[f"{instance}.{quantity}[{i}]"].causality == "output"
            for i in (1, 2, 3, 4):
                assert variables[f"{instance}.Q[{i}]"].causality == "output"
