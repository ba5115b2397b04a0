"""Shared fixtures of the Python harness: the FMUs of every model, built once per session with
`fmu3d build`, and reference results computed by `fmu3d simulate` on the model files.

The harness imports the FMUs the way users' tools do (fmpy, libcosimpy) and compares them with
the same engine run without any importer, and with analytic results. It needs the release build
of `fmu3d` and the runtime library next to it:

    cargo build --release -p fmu-runtime -p packager
    .venv/bin/python -m pytest tests/python -q
"""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

REPOSITORY = Path(__file__).resolve().parents[2]
FMU3D = REPOSITORY / "target" / "release" / "fmu3d"
RUNTIME = REPOSITORY / "target" / "release" / "libfmu_runtime.so"

#: The shipped examples, then the models written for these tests (inputs, a late start time).
MODEL_FILES = sorted((REPOSITORY / "models").glob("*.m3d")) + sorted(
    (Path(__file__).parent / "models").glob("*.m3d")
)
MODELS = {path.stem: path for path in MODEL_FILES}

#: Builds are stamped with this time (2023-11-14T22:13:20Z), as in the Rust tests.
SOURCE_DATE_EPOCH = "1700000000"


def fmu3d(*args, cwd=None):
    """Runs `fmu3d ARGS`, fails the test with its stderr if it fails."""
    if not FMU3D.is_file() or not RUNTIME.is_file():
        pytest.fail(
            f"{FMU3D} or {RUNTIME} is missing: run "
            "`cargo build --release -p fmu-runtime -p packager` first"
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
    examples = REPOSITORY / "examples" / "cosimulation"
    if str(examples) not in sys.path:
        sys.path.insert(0, str(examples))
    import fmpy_master

    folder = tmp_path_factory.mktemp("crank_example")
    crank = folder / "crank.fmu"
    fmu3d("build", examples / "crank.m3d", "-o", crank)
    return crank, fmpy_master.build_drive(examples / "drive_train.py", folder), folder


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


def read_csv(path):
    """A CSV of `fmu3d simulate` as a structured array whose fields are the variable names."""
    return np.genfromtxt(path, delimiter=",", names=True, deletechars="", dtype=float)


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
