"""fmpy's validation of every FMU, and what fmpy reads from modelDescription.xml against what the
model file says (read here with a few regular expressions, not with fmu3d's parser)."""

import math
import re

import fmpy
import pytest
from fmpy.validation import validate_fmu

from conftest import MODELS

#: Units a model file may write, with their SI unit and factor (docs/model-format.md, "Units").
SI = {
    "deg": ("rad", math.pi / 180),
    "deg/s": ("rad/s", math.pi / 180),
    "mm": ("m", 1e-3),
    "cm": ("m", 1e-2),
    "km": ("m", 1e3),
    "g": ("kg", 1e-3),
    "ms": ("s", 1e-3),
    "N/mm": ("N/m", 1e3),
    "mV": ("V", 1e-3),
    "kV": ("V", 1e3),
    "mA": ("A", 1e-3),
    "mOhm": ("Ohm", 1e-3),
    "kOhm": ("Ohm", 1e3),
    "mH": ("H", 1e-3),
    "uH": ("H", 1e-6),
    "V.s/rad": ("N.m/A", 1.0),
}

NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"


def model_text(name):
    """The model file without comments."""
    return re.sub(r"#[^\n]*", "", MODELS[name].read_text())


def declared_parameters(name):
    """{name: (SI value or None when not a plain number, SI unit or None)} of the top-level
    `parameters { ... }` block."""
    block = re.search(r"^parameters\s*\{(.*?)^\}", model_text(name), re.S | re.M)
    parameters = {}
    if block is None:
        return parameters
    for line in block.group(1).splitlines():
        m = re.match(rf"\s*(\w+)\s*=\s*(.*?)\s*(\"[^\"]*\")?\s*$", line)
        if not m:
            continue
        value = re.fullmatch(rf"({NUMBER})\s*([A-Za-z][\w./]*)?", m.group(2))
        if value is None:
            parameters[m.group(1)] = (None, None)
            continue
        unit, factor = value.group(2), 1.0
        if unit is not None:
            unit, factor = SI.get(unit, (unit, 1.0))
        parameters[m.group(1)] = (float(value.group(1)) * factor, unit)
    return parameters


def declared_experiment(name):
    """startTime, stopTime, stepSize, tolerance of the `experiment` statement, with the
    documented defaults."""
    fields = {"start_time": 0.0, "stop_time": 1.0, "interval": 0.01, "tolerance": 1e-6}
    m = re.search(r"^experiment\s*\{(.*?)\}", model_text(name), re.S | re.M)
    if m:
        for field, number, unit in re.findall(rf"(\w+)\s*=\s*({NUMBER})\s*(ms|s)?", m.group(1)):
            fields[field] = float(number) * (1e-3 if unit == "ms" else 1.0)
    return fields


def declared_joints(name):
    """[(joint name, kind, flange)] of the joints not declared inside a `for` loop."""
    joints = []
    for m in re.finditer(r"^joint\s+(\w+)\s+(\w+)\s*\{([^}]*)\}", model_text(name), re.M):
        flange = re.search(r"flange\s*=\s*(\w+)", m.group(3))
        joints.append((m.group(1), m.group(2), flange.group(1) if flange else "passive"))
    return joints


def declared_output_objects(name):
    """Objects (not in a `for` loop) declared with `output = true`."""
    objects = []
    for m in re.finditer(r"^object\s+(\w+)\s*\{", model_text(name), re.M):
        depth, i = 1, m.end()
        text = model_text(name)
        while depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        if re.search(r"^\s*output\s*=\s*true", text[m.end() : i], re.M):
            objects.append(m.group(1))
    return objects


@pytest.mark.parametrize("name", MODELS)
def test_fmpy_validation_finds_no_problem(fmus, name):
    problems = validate_fmu(str(fmus[name]))
    assert problems == [], f"{name}: " + "\n".join(problems)


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
    assert description.modelExchange is None


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
    names = {
        "revolute": (("phi", "rad"), ("w", "rad/s"), ("a", "rad/s2"), ("tau", "N.m")),
        "prismatic": (("s", "m"), ("v", "m/s"), ("a", "m/s2"), ("f", "N")),
    }
    for joint, kind, flange in declared_joints(name):
        if kind not in names:
            continue
        position, speed, acceleration, drive = (f"{joint}.{n}" for n, _ in names[kind])
        for (suffix, unit) in names[kind]:
            variable = variables.get(f"{joint}.{suffix}")
            if variable is not None:
                assert variable.unit == unit, f"{name}: {joint}.{suffix}"
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


@pytest.mark.parametrize("name", MODELS)
def test_fmpy_sees_the_outputs_of_every_output_object(fmus, name):
    description = fmpy.read_model_description(str(fmus[name]))
    variables = {v.name: v for v in description.modelVariables}
    for obj in declared_output_objects(name):
        for i in (1, 2, 3):
            assert variables[f"{obj}.r[{i}]"].unit == "m"
            assert variables[f"{obj}.v[{i}]"].unit == "m/s"
            assert variables[f"{obj}.r[{i}]"].causality == "output"
        for i in (1, 2, 3, 4):
            assert variables[f"{obj}.Q[{i}]"].causality == "output"
