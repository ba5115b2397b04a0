"""fmpy simulates the FMUs: the same numbers as `fmu3d simulate` on the model file, an analytic
pendulum period, and drives through FMU inputs.

fmpy and `fmu3d simulate` run the same engine with the same tolerance and communication points
(start + i*interval), so their results agree to the last bits; a difference shows a bug in the
FMI layer (start time, step handling, inputs, parameters), not in the physics. 1e-9 relative
leaves room for harmless differences in floating-point evaluation order only.
"""

import math

import fmpy
import numpy as np
import pytest

from conftest import MODELS, assert_same_results, fmu3d, pendulum_period

RTOL = 1e-9


def fmpy_default_interval(description):
    """The output interval fmpy picks for a Co-Simulation FMU without `output_interval`:
    DefaultExperiment stepSize, doubled until there are at most 1000 steps."""
    experiment = description.defaultExperiment
    start, stop = float(experiment.startTime), float(experiment.stopTime)
    interval = float(experiment.stepSize)
    while (stop - start) / interval > 1000:
        interval *= 2
    return interval


def output_names(description):
    return [v.name for v in description.modelVariables if v.causality == "output"]


@pytest.mark.parametrize("name", MODELS)
def test_default_experiment_agrees_with_fmu3d_simulate(fmus, simulation, reference, name):
    description = fmpy.read_model_description(str(fmus[name]))
    result = simulation(name)
    interval = fmpy_default_interval(description)
    expected = reference(name, step=interval)
    outputs = output_names(description)
    assert list(expected.dtype.names) == ["time"] + outputs
    assert result["time"][0] == float(description.defaultExperiment.startTime)
    assert result["time"][-1] == float(description.defaultExperiment.stopTime)
    worst = assert_same_results(result, expected, outputs, RTOL, f"{name} (default experiment)")
    print(f"{name}: default experiment, {len(result)} rows, max |fmpy - fmu3d simulate| = {worst:.3g}")


@pytest.mark.parametrize("name", MODELS)
def test_shorter_custom_experiment_agrees_with_fmu3d_simulate(fmus, reference, name):
    description = fmpy.read_model_description(str(fmus[name]))
    start = float(description.defaultExperiment.startTime)
    stop, interval = start + 1.25, 0.025
    result = fmpy.simulate_fmu(str(fmus[name]), stop_time=stop, output_interval=interval)
    expected = reference(name, stop_time=stop, step=interval)
    outputs = output_names(description)
    worst = assert_same_results(result, expected, outputs, RTOL, f"{name} (to {stop} s)")
    print(f"{name}: to {stop} s every {interval} s, max |fmpy - fmu3d simulate| = {worst:.3g}")


def test_undamped_pendulum_swings_with_the_analytic_period(fmus):
    """Oscillations of 1 deg about the lowest point (phi = -90 deg: gravity along -y, the center
    of mass on the body's x axis), with the period of the finite amplitude (the small-angle
    2 pi sqrt(I_O / (m g d_cm)) is 1.9e-5 shorter)."""
    m, d_cm, amplitude = 1.0, 0.5, math.radians(1)
    period = pendulum_period(0.001 + m * d_cm**2, m, d_cm, amplitude)
    # fmpy takes start values in the variable's unit (SI: rad). A (value, "deg") tuple needs a
    # DisplayUnit "deg" in modelDescription.xml, which the FMU does not declare.
    result = fmpy.simulate_fmu(
        str(fmus["pendulum"]),
        start_values={"d": 0.0, "phi0": math.radians(-89)},
        stop_time=10.0,
        output_interval=1e-3,
        output=["rev.phi", "rev.w"],
        # The swing is 0.017 rad: the model's tolerance (1e-6, absolute as well) would allow a
        # period error of 1e-5; the importer asks for a tighter one.
        relative_tolerance=1e-10,
    )
    t, x = result["time"], result["rev.phi"] + math.pi / 2
    assert x[0] == pytest.approx(amplitude, rel=1e-12), "start value phi0 applied"
    # Upward zero crossings of the angle from the lowest point (inflection points of the
    # sine, where linear interpolation is exact to third order).
    i = np.flatnonzero((x[:-1] < 0) & (x[1:] >= 0))
    crossings = t[i] - x[i] * (t[i + 1] - t[i]) / (x[i + 1] - x[i])
    assert len(crossings) >= 6, crossings
    measured = (crossings[-1] - crossings[0]) / (len(crossings) - 1)
    # Undamped: the amplitude stays 1 deg. The samples (1 ms apart) catch the later peaks up to
    # (w dt/2)^2/2 = 2.4e-6 below them.
    later = np.max(np.abs(x[t > period])) / amplitude - 1
    print(f"pendulum period {measured:.9f} s, analytic {period:.9f} s, relative error "
          f"{measured / period - 1:.2e}; amplitude after the first period {later:.1e} relative")
    assert abs(measured / period - 1) < 1e-8  # measured 2.0e-9
    assert abs(later) < 1e-5  # measured 2.1e-8


@pytest.mark.parametrize("step", [0.2, 1.0, 3.0])
def test_bouncing_ball_stays_on_the_floor_at_a_long_communication_step(fmus, step):
    """A 5 Hz controller's step (0.2 s), a 1 s step and one step to the stop time: the ball
    bounces and comes to rest on the floor (top face at y = 0) as in the 5 ms run, instead of
    passing through it between two steps (it fell to -43 m at 0.2 s before the integrator's
    steps were bounded by the time to the next possible touch)."""
    radius = 0.05
    fine = fmpy.simulate_fmu(str(fmus["bouncing_ball"]), stop_time=3.0, output_interval=5e-3,
                             output=["ball.r[2]"])
    coarse = fmpy.simulate_fmu(str(fmus["bouncing_ball"]), stop_time=3.0, output_interval=step,
                               output=["ball.r[2]"])
    y_fine, y = fine["ball.r[2]"], coarse["ball.r[2]"]
    assert coarse["time"][-1] == pytest.approx(3.0)
    print(f"bouncing ball at a {step} s step: lowest center {y.min():.6f} m, final "
          f"{y[-1]:.9f} m, 5 ms run {y_fine[-1]:.9f} m, difference {abs(y[-1] - y_fine[-1]):.1e} m")
    # At rest the center sits the static penetration (5 micrometres here) below one radius.
    assert abs(y_fine[-1] - radius) < 1e-5
    assert y.min() > radius - 1e-3, "never through the floor"
    assert abs(y[-1] - y_fine[-1]) < 1e-12


# --- Drives through FMU inputs (tests/python/models/drives.m3d) ---------------------------

M, L, G, M_SLIDER = 1.0, 0.5, 9.81, 2.0


def drive_signals(t, tau, a, v, s):
    signals = np.zeros(
        len(t),
        dtype=[("time", float), ("rev.tau", float), ("slide.s", float), ("slide.v", float),
               ("slide.a", float)],
    )
    signals["time"], signals["rev.tau"] = t, tau
    signals["slide.s"], signals["slide.v"], signals["slide.a"] = s, v, a
    return signals


def test_static_torque_holds_the_pendulum_and_the_slider_force_is_m_times_a(fmus):
    # The body's center of mass at [L, 0, 0] with phi = 0: gravity's torque about z is -m*g*L.
    t = np.linspace(0.0, 2.0, 201)
    a0 = 1.5
    signals = drive_signals(t, M * G * L, a0, a0 * t, a0 * t**2 / 2)
    result = fmpy.simulate_fmu(
        str(fmus["drives"]), input=signals, stop_time=2.0, output_interval=0.01,
        output=["rev.phi", "rev.w", "slide.f", "slider.r[1]"],
    )
    assert result["time"][-1] == 2.0
    assert np.max(np.abs(result["rev.phi"])) < 1e-6
    assert np.max(np.abs(result["rev.w"])) < 1e-6
    np.testing.assert_allclose(result["slide.f"], M_SLIDER * a0, rtol=1e-12)
    # Without an input the pendulum falls: the torque input is what holds it.
    falling = fmpy.simulate_fmu(str(fmus["drives"]), stop_time=0.5, output=["rev.phi"])
    assert falling["rev.phi"][-1] < -0.1


def test_slider_force_follows_a_varying_commanded_acceleration(fmus):
    """fmpy sets the inputs at each communication point t and holds them over the step (no input
    derivatives), so the output at t + h is that of the command sampled at t."""
    h, w, amplitude = 0.01, 2 * math.pi, 0.3
    t = np.linspace(0.0, 2.0, 2001)
    a = amplitude * np.sin(w * t)
    v = amplitude / w * (1 - np.cos(w * t))
    s = amplitude / w * (t - np.sin(w * t) / w)
    result = fmpy.simulate_fmu(
        str(fmus["drives"]), input=drive_signals(t, 0.0, a, v, s), stop_time=2.0,
        output_interval=h, output=["slide.f", "slide.a"],
    )
    held = amplitude * np.sin(w * (result["time"][1:] - h))
    np.testing.assert_allclose(result["slide.a"][1:], held, rtol=0, atol=1e-12)
    np.testing.assert_allclose(result["slide.f"][1:], M_SLIDER * held, rtol=0, atol=1e-9)
    assert np.max(np.abs(result["slide.f"])) > 0.5, "the command is not zero"


def test_acceleration_output_follows_the_torque_input_without_a_step(fmus):
    """After fmi2SetReal on an input, fmi2GetReal of an output that depends directly on it
    (ModelStructure/Outputs) returns the new value (FMI 2.0, 4.2.1). Here with fmpy's
    simulate_fmu, which sets the inputs in initialization mode: the first row must show the
    pendulum held (rev.a = 0), not falling (rev.a = -m*g*L/I_O)."""
    t = np.array([0.0, 1.0])
    result = fmpy.simulate_fmu(
        str(fmus["drives"]), input=drive_signals(t, M * G * L, 0.0, 0.0, 0.0), stop_time=0.1,
        output=["rev.a"],
    )
    assert abs(result["rev.a"][0]) < 1e-9, result["rev.a"][0]


GRID_OF_BALLS = """
model grid "balls named by two indices"
gravity uniform { g = [0, -9.81, 0] m/s2 }
for i in 1:2 {
  for j in 1:2 {
    object ball[i, j] { shape sphere { diameter = 0.02 m }; mass { material = steel }; output = true }
    joint drop[i, j] free { from = world; to = ball[i, j]; position = [i*0.1, j*0.1, 0] m }
  }
}
experiment { stop_time = 0.2 s; interval = 0.05 s }
"""


def test_a_result_with_multi_index_names_reads_in_pandas_and_pythons_csv(tmp_path):
    """`fmu3d simulate` quotes the names of its CSV header as RFC 4180 says (fmpy's result files
    quote every name), so that a name with a comma, every multi-index array's
    (`ball[1,2].r[1]`), stays one column in pandas and Python's csv module: the columns are
    fmpy's outputs of the same model's FMU, by name and by value."""
    import csv

    import pandas

    model = tmp_path / "grid.m3d"
    model.write_text(GRID_OF_BALLS)
    fmu3d("simulate", model, "-o", tmp_path / "grid.csv")
    fmu3d("build", model, "-o", tmp_path / "grid.fmu")
    expected = fmpy.simulate_fmu(tmp_path / "grid.fmu", output_interval=0.05)
    names = list(expected.dtype.names)
    assert "ball[1,2].r[1]" in names, names

    with open(tmp_path / "grid.csv", newline="") as file:
        header = next(csv.reader(file))
    assert header == names, header
    frame = pandas.read_csv(tmp_path / "grid.csv")
    assert list(frame.columns) == names, list(frame.columns)
    worst = max(
        float(np.max(np.abs(frame[name].to_numpy() - expected[name]))) for name in names
    )
    print(f"{len(names)} columns by name, largest difference from fmpy's run {worst:.1e}")
    assert worst <= 1e-12
