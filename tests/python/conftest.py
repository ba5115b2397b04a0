"""Shared fixtures and helpers of the Python harness: the FMUs of every model, built once per
session with `fmu3d build`; their runs in fmpy and the results of `fmu3d simulate` on the model
files, cached; what the model files declare (parameters, experiment), read here with regular
expressions; an FMU instance driven through fmpy's low-level API.

The harness imports the FMUs the way users' tools do (fmpy, libcosimpy, fmi-sim, the FMU
Manipulation Toolbox, a strict loader) and compares them with the same engine run without any
importer, and with analytic results. It needs the release build
of `fmu3d` and the runtime library next to it:

    bash scripts/build.sh
    .venv/bin/python -m pytest tests/python -q
"""

import ctypes
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import fmpy
import numpy as np
import pytest
from fmpy.fmi2 import FMU2Slave, fmi2CallbackFunctions, fmi2CallbackLoggerTYPE
from scipy.special import ellipk

# The FMU always calls the (variadic) logger with the format "%s" and the message as the one
# argument after it; on x86-64 a six-argument callback receives that argument unchanged.
LoggerWithArgument = ctypes.CFUNCTYPE(
    None, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p
)


def recording_callbacks(messages):
    """fmi2CallbackFunctions whose logger appends (status, category, message) to `messages`.
    Returns the structure and the C callable; keep both alive while the FMU may log."""

    @LoggerWithArgument
    def record(environment, instance, status, category, format, message):
        assert format == b"%s"
        messages.append((status, category.decode(), message.decode()))

    callbacks = fmi2CallbackFunctions()
    callbacks.logger = ctypes.cast(record, fmi2CallbackLoggerTYPE)
    return callbacks, record


REPOSITORY = Path(__file__).resolve().parents[2]
FMU3D = REPOSITORY / "target" / "release" / "fmu3d"
RUNTIME = REPOSITORY / "target" / "release" / "libfmu_runtime.so"

#: The shipped examples, then the models written for these tests (inputs, a late start time).
MODEL_FILES = sorted((REPOSITORY / "models").glob("*.m3d")) + sorted(
    (Path(__file__).parent / "models").glob("*.m3d")
)
MODELS = {path.stem: path for path in MODEL_FILES}

EXAMPLES = REPOSITORY / "examples" / "cosimulation"

#: The models shipped with fmu3d (models/*.m3d): every importer of the harness runs each of them.
SHIPPED_MODELS = [path.stem for path in sorted((REPOSITORY / "models").glob("*.m3d"))]

#: The official FMI 2.0 headers, as fmpy ships them.
FMI2_HEADERS = Path(fmpy.__file__).parent / "c-code"


def fmi2_function_names():
    """Every function the official fmi2Functions.h declares (`FMI2_Export fmi2XTYPE fmi2X;`),
    parsed from the header: the 44 of FMI 2.0, common, Model Exchange and Co-Simulation."""
    text = (FMI2_HEADERS / "fmi2Functions.h").read_text()
    return re.findall(r"^\s*FMI2_Export\s+(fmi2\w+)TYPE\s+\1\s*;", text, re.M)


def installed_tool(path):
    """An importer the set-up installs (`bash scripts/setup.sh --python`, run by scripts/test.sh):
    its path, or the test fails (not skips) saying how to get it."""
    path = Path(path)
    if not path.is_file():
        pytest.fail(f"{path} is missing: run `bash scripts/setup.sh --python`, which installs it")
    return path

#: Builds are stamped with this time (2023-11-14T22:13:20Z), as in the Rust tests.
SOURCE_DATE_EPOCH = "1700000000"


# --- The model files, read with a few regular expressions (not with fmu3d's parser) ------

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


def fmu3d(*args, cwd=None):
    """Runs `fmu3d ARGS`, fails the test with its stderr if it fails."""
    if not FMU3D.is_file() or not RUNTIME.is_file():
        pytest.fail(
            f"{FMU3D} or {RUNTIME} is missing: run "
            "`bash scripts/build.sh` first"
        )
    env = dict(os.environ, SOURCE_DATE_EPOCH=SOURCE_DATE_EPOCH)
    env.pop("FMU3D_RUNTIME", None)
    run = subprocess.run(
        [str(FMU3D), *map(str, args)], cwd=cwd, env=env, capture_output=True, text=True
    )
    if run.returncode != 0:
        pytest.fail(f"fmu3d {' '.join(map(str, args))} failed:\n{run.stderr}")
    return run


@pytest.fixture(scope="session")
def crank_example(tmp_path_factory):
    """The FMUs of examples/cosimulation's crank built as a user builds them: (crank.fmu by
    `fmu3d build`, drive_train.fmu by pythonfmu, their folder)."""
    if str(EXAMPLES) not in sys.path:
        sys.path.insert(0, str(EXAMPLES))
    import fmpy_master

    folder = tmp_path_factory.mktemp("crank_example")
    crank = folder / "crank.fmu"
    fmu3d("build", EXAMPLES / "crank.m3d", "-o", crank)
    return crank, fmpy_master.build_drive(EXAMPLES / "drive_train.py", folder), folder


def angle_differences(first, second, phi_ref, joint="crank"):
    """Two co-simulation runs on the same communication points, against a reference angle of
    their joint: (max |first - second|, max |first - phi_ref|, max |second - phi_ref|) [rad]."""
    phi = [run.angle(joint) for run in (first, second)]
    return (float(np.max(np.abs(phi[0] - phi[1]))),
            *(float(np.max(np.abs(p - phi_ref))) for p in phi))


def assert_runs_agree(first, second, phi_ref, what):
    """Two co-simulation runs of the crank example on the same communication points differ by
    no more than the co-simulation error (the larger of their errors against the reference
    angle phi_ref), which stays below 1e-3 rad; the first's energy balance closes to 1 %."""
    difference, *errors = angle_differences(first, second, phi_ref)
    print(f"h = 1 ms: max |{what}| = {difference:.3e} rad, co-simulation error "
          f"{max(errors):.3e} rad")
    print(first.report(what.split(" - ")[0]))
    assert difference <= max(errors)
    assert max(errors) < 1e-3
    assert abs(first.balance_error[-1]) < 0.01 * first.E_el[-1]


def pendulum_period(inertia, mass, distance, amplitude, g=9.81):
    """The period of a rigid pendulum (moment `inertia` about its axis, center of mass
    `distance` from it) swinging by `amplitude` to either side of the lowest point:
    4 sqrt(I/(m g d)) K(sin(amplitude/2)), K the complete elliptic integral of the first kind
    (scipy's ellipk takes the square of its modulus)."""
    return 4 * math.sqrt(inertia / (mass * g * distance)) * ellipk(math.sin(amplitude / 2) ** 2)


class Instance:
    """One FMU instance through fmpy's low-level FMI 2.0 API, initialized at t = 0 (parameters
    set in initialization mode), recording its outputs at every communication point."""

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

    def step(self, h):
        """fmi2DoStep from the current time over h (choose h exact in binary, so that the
        communication points are exactly i*h), then records the outputs."""
        self.slave.doStep(currentCommunicationPoint=self.time, communicationStepSize=h)
        self.time += h
        self.rows.append(self.sample())

    def result(self):
        dtype = [("time", float)] + [(v.name, float) for v in self.outputs]
        return np.array(self.rows, dtype=dtype)

    def free(self):
        self.slave.terminate()
        self.slave.freeInstance()  # fmi2FreeInstance, then fmpy unloads the library


def read_csv(path):
    """A CSV of `fmu3d simulate` as a structured array whose fields are the variable names, read
    by pandas as a user would (the header's names quoted as RFC 4180 says: `ball[1,2].r[1]` is
    one column)."""
    import pandas

    frame = pandas.read_csv(path, dtype=float)
    return frame.to_records(index=False)


@pytest.fixture(scope="session")
def fmus(tmp_path_factory):
    """Every model built into an FMU: {model name: path of the .fmu}."""
    folder = tmp_path_factory.mktemp("fmus")
    built = {}
    for name, model in MODELS.items():
        fmu = folder / f"{name}.fmu"
        fmu3d("build", model, "-o", fmu)
        assert fmu.is_file(), fmu
        built[name] = fmu
    return built


@pytest.fixture(scope="session")
def simulation(fmus):
    """`simulation(name, **options)`: fmpy.simulate_fmu of the model's FMU with these options
    (none: the default experiment), every output recorded; cached."""
    cache = {}

    def simulate(name, **options):
        key = (name, tuple(sorted((k, repr(v)) for k, v in options.items())))
        if key not in cache:
            cache[key] = fmpy.simulate_fmu(str(fmus[name]), **options)
        return cache[key]

    return simulate


@pytest.fixture(scope="session")
def reference(tmp_path_factory):
    """`reference(name, stop_time=None, step=None)`: the result of `fmu3d simulate` on the model
    file (not the FMU), as a structured array with `time` and every output; cached."""
    folder = tmp_path_factory.mktemp("reference")
    cache = {}

    def simulate(name, stop_time=None, step=None):
        key = (name, stop_time, step)
        if key not in cache:
            csv = folder / f"{name}-{len(cache)}.csv"
            args = ["simulate", MODELS[name], "-o", csv]
            if stop_time is not None:
                args += ["--stop-time", repr(float(stop_time))]
            if step is not None:
                args += ["--step", repr(float(step))]
            fmu3d(*args)
            cache[key] = read_csv(csv)
        return cache[key]

    return simulate


def assert_same_results(actual, expected, names, rtol=1e-9, what=""):
    """Every column of `names` agrees at every row: |a - e| <= rtol * max(1, max |e| of the
    column). Returns the largest absolute difference seen, for reports."""
    assert len(actual) == len(expected), f"{what}: {len(actual)} rows, expected {len(expected)}"
    np.testing.assert_array_equal(actual["time"], expected["time"], err_msg=f"{what}: time")
    worst = 0.0
    for name in names:
        a = np.asarray(actual[name], dtype=float)
        e = np.asarray(expected[name], dtype=float)
        scale = max(1.0, float(np.max(np.abs(e))))
        difference = np.abs(a - e)
        worst = max(worst, float(np.max(difference)))
        bad = np.flatnonzero(difference > rtol * scale)
        assert bad.size == 0, (
            f"{what}: {name} differs first at t = {expected['time'][bad[0]]}: "
            f"{a[bad[0]]!r} vs {e[bad[0]]!r} (largest difference {np.max(difference):.3g})"
        )
    return worst
