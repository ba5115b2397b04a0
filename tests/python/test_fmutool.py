"""Renault's FMU Manipulation Toolbox (PyPI fmu-manipulation-toolbox, pinned in requirements.txt)
as another independent importer of the FMUs.

- `fmutool -input X.fmu -check` validates modelDescription.xml against the FMI 2.0 schema and the
  rules the schema cannot express (causality, variability and initial combinations, start values,
  <ModelStructure> against the outputs). Every shipped model passes; a description broken on
  purpose fails, so the check is not vacuous.
- `fmucontainer` wraps FMUs into one Co-Simulation FMU whose own runtime (container.so, shipped in
  the package) loads the embedded libraries, steps each with a fixed internal step (t += step)
  and copies outputs to the linked inputs between steps (a Jacobi scheme: no input derivatives,
  inputs held over the step); fmpy runs the container.

  One model alone in a container, every shipped model, on the grid of `fmu3d simulate` (2^-7 s,
  exact in binary, so the container's accumulated time is exactly start + i*step): the same
  numbers to the last bit (measured: 0 on every model). Same engine on both sides, so this checks
  the FMI layer under container.so, not the physics.

  Two FMUs: the crank of examples/cosimulation (fmu3d) and its drive train (pythonfmu), coupled
  by the container with the connections of libcosim_master.py, at 1 ms. Against libcosim running
  the same connections (also Jacobi, inputs held): the same run to 6.0e-14 rad (their
  communication points differ in the last bit: the container adds 1 ms at each step, libcosim
  counts integer nanoseconds). Against the monolithic reference of reference.py (scipy, no code
  shared with fmu3d or the FMUs): the crank angle within the co-simulation error of that
  coupling, 2.05e-4 rad over 2 s (the README's table: 2.1e-4 rad for libcosim at 1 ms).
"""

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import fmpy
import numpy as np
import pytest

from conftest import (EXAMPLES, SHIPPED_MODELS, assert_same_results, declared_experiment,
                      installed_tool)

sys.path.insert(0, str(EXAMPLES))

import libcosim_master  # noqa: E402
import reference as monolithic  # noqa: E402
from mechanisms import CRANK  # noqa: E402

TOOLS = Path(sys.executable).parent  # the console scripts of the package, beside .venv's python
STEP = 2.0**-7
STEPS = 256  # 2 s


def toolbox(command, *args, cwd=None):
    """Runs one of the toolbox's commands (`fmutool`, `fmucontainer`): the finished process,
    with everything it logged in `stdout` (the toolbox logs to standard output)."""
    return subprocess.run([str(installed_tool(TOOLS / command)), *map(str, args)], cwd=cwd,
                          capture_output=True, text=True)


def logged_problems(run):
    """The ERROR and WARNING lines the toolbox logged."""
    return [line for line in (run.stdout + run.stderr).splitlines()
            if line.startswith(("ERROR", "WARNING", "CRITICAL"))]


# --- fmutool -check ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", SHIPPED_MODELS)
def test_fmutool_check_passes(fmus, name):
    run = toolbox("fmutool", "-input", fmus[name], "-check")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "This FMU seems to be compliant with FMI-2.0." in run.stdout
    assert "No semantic error against the FMI-2 standard." in run.stdout
    assert not logged_problems(run), logged_problems(run)


def test_fmutool_check_fails_on_an_output_missing_from_the_model_structure(fmus, tmp_path):
    """The same FMU with one output left out of <ModelStructure><Outputs>: fmutool's semantic
    check must name it and exit with its check-failed status, 7."""
    broken = tmp_path / "pendulum.fmu"
    with zipfile.ZipFile(fmus["pendulum"]) as source, zipfile.ZipFile(broken, "w") as target:
        for item in source.infolist():
            data = source.read(item)
            if item.filename == "modelDescription.xml":
                text = data.decode()
                first = text.index("<Unknown", text.index("<Outputs>"))
                data = (text[:first] + text[text.index("/>", first) + 2:]).encode()
            target.writestr(item, data)
    run = toolbox("fmutool", "-input", broken, "-check")
    print("\n".join(logged_problems(run)))
    assert run.returncode == 7
    assert any("is not listed in <Outputs>" in line for line in logged_problems(run))


# --- fmucontainer -----------------------------------------------------------------------------

def build_container(folder, fmus, rules, step, expected_warnings=()):
    """Writes the container description (fmucontainer's CSV: rule;from_fmu;from_port;to_fmu;
    to_port) next to copies of `fmus` in `folder` and builds `container.fmu` there with the
    internal step `step`; the toolbox must log no error and no warning but those containing one
    of `expected_warnings`. Returns its path."""
    for fmu in fmus:
        shutil.copy(fmu, folder / Path(fmu).name)
    lines = ["rule;from_fmu;from_port;to_fmu;to_port",
             *(f"FMU;{Path(fmu).name};;;" for fmu in fmus), *rules]
    (folder / "container.csv").write_text("\n".join(lines) + "\n")
    # Outputs named explicitly: the toolbox's automatic outputs also try to expose the vectors
    # (body.r from body.r[1..3]), which an FMI 2.0 container cannot, and logs that as an error.
    run = toolbox("fmucontainer", "-container", f"container.csv:{step!r}", "-no-auto-output",
                  "-fmu-directory", folder)
    unexpected = [line for line in logged_problems(run)
                  if not (line.startswith("WARNING") and any(w in line for w in expected_warnings))]
    assert run.returncode == 0 and not unexpected, run.stdout + run.stderr
    return folder / "container.fmu"


def outputs_of(fmu):
    description = fmpy.read_model_description(str(fmu))
    return [v.name for v in description.modelVariables if v.causality == "output"]


@pytest.mark.parametrize("name", SHIPPED_MODELS)
def test_a_container_of_one_model_runs_like_fmu3d_simulate(fmus, reference, tmp_path, name):
    outputs = outputs_of(fmus[name])
    container = build_container(tmp_path, [fmus[name]],
                                [f"OUTPUT;{name}.fmu;{o};;{o}" for o in outputs], STEP)
    start = declared_experiment(name)["start_time"]
    stop = start + STEPS * STEP
    result = fmpy.simulate_fmu(str(container), start_time=start, stop_time=stop,
                               output_interval=STEP)
    expected = reference(name, stop_time=stop, step=STEP)
    assert list(result.dtype.names) == ["time"] + outputs
    # Bit for bit: the difference measured is 0 on every model, so the tolerance is 0.
    worst = assert_same_results(result, expected, outputs, rtol=0.0, what=f"{name} (container)")
    print(f"{name}: alone in an fmucontainer run by fmpy, {STEPS} steps of 2^-7 s, "
          f"max |container - fmu3d simulate| = {worst:.3g}")


def test_a_container_of_the_crank_and_its_drive_follows_the_monolithic_reference(crank_example,
                                                                                  tmp_path):
    crank, drive, _ = crank_example
    h, stop = 1e-3, 2.0
    links = [f"LINK;{Path(drive).name};{output};{Path(crank).name};{input_}"
             if source == CRANK.drives[0].instance_name else
             f"LINK;{Path(crank).name};{output};{Path(drive).name};{input_}"
             for source, output, _, input_ in libcosim_master.connections(CRANK)]
    outputs = [f"OUTPUT;{Path(crank).name};crank.{q};;crank.{q}" for q in ("phi", "w")]
    # The motor's rotor, reflected through the gear, lives in the crank (as libcosim_master.py).
    start = [f"START;{Path(crank).name};J_drive;{CRANK.drives[0].reflected_inertia()!r};"]
    # Warned: the outputs not linked (the drive's energies, the crank's frame), and the loop of
    # links between the two FMUs, which the container initializes without the values its
    # inputs get from the loop (both FMUs start from their start values, as in libcosim).
    container = build_container(tmp_path, [drive, crank], links + outputs + start, h,
                                expected_warnings=("is not connected", "Loop of links"))
    result = fmpy.simulate_fmu(str(container), stop_time=stop, output_interval=h)

    libcosim = libcosim_master.run(crank, drive, step_ns=1_000_000, stop_time=stop)
    assert len(result) == len(libcosim.time) == round(stop / h) + 1
    np.testing.assert_allclose(result["time"], libcosim.time, rtol=0, atol=1e-12)
    phi_ref = monolithic.simulate(stop)(libcosim.time)[1]
    phi, phi_libcosim = result["crank.phi"], libcosim.angle("crank")
    apart = float(np.max(np.abs(phi - phi_libcosim)))
    error = float(np.max(np.abs(phi - phi_ref)))
    error_libcosim = float(np.max(np.abs(phi_libcosim - phi_ref)))
    print(f"crank and drive in an fmucontainer, h = 1 ms, 2 s: max |container - libcosim| = "
          f"{apart:.3g} rad; against the monolithic reference {error:.4g} rad "
          f"(libcosim {error_libcosim:.4g} rad); final angle {phi[-1]:.6f} rad")
    assert phi[-1] > 20, "the drive turned the crank"
    assert apart < 6e-13  # measured 6.0e-14
    assert error < 2.2e-4  # measured 2.05e-4, the co-simulation error of the held torque
