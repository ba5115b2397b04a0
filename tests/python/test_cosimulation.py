"""Co-simulation of a drive-train FMU made by another exporter (pythonfmu) with an fmu3d mechanism:
the crank with flywheel of examples/cosimulation, driven through its joint's flange.

The coupled system has one degree of freedom, so examples/cosimulation/reference.py writes its
equations directly and integrates them with scipy (rtol 1e-11): a monolithic reference that
shares no code with fmu3d or with the FMUs. Against it:

- the crank angle of the fmpy master converges as the communication step h shrinks (at least
  linearly: halving h at least halves the error) and is within 2e-4 rad at h = 1 ms over 2 s
  (2.7e-5 measured);
- the energy balance (electrical energy in = mechanical energy + magnetic energy + resistive
  losses) closes to 0.1 % of the energy delivered (0.015 % measured), and each term agrees with
  the reference's to 0.1 % of it;
- libcosim, running the same connections with its own master, agrees with the fmpy master that
  passes the same information (no torque derivative) within the co-simulation error.
"""

import sys

import fmpy
import numpy as np
import pytest
from fmpy.validation import validate_fmu

from conftest import EXAMPLES, angle_differences, assert_runs_agree, fmu3d
sys.path.insert(0, str(EXAMPLES))

import ecco_master  # noqa: E402
import fmpy_master  # noqa: E402
import libcosim_master  # noqa: E402
import reference  # noqa: E402
from drive_train import PARAMETERS as DRIVE_PARAMETERS  # noqa: E402

STEPS = (4e-3, 2e-3, 1e-3, 0.5e-3)
STOP_TIME = 2.0


@pytest.fixture(scope="module")
def example(crank_example):
    """The example's FMUs built as a user builds them: (crank.fmu, drive_train.fmu)."""
    return crank_example[:2]


@pytest.fixture(scope="module")
def exact():
    return reference.simulate(STOP_TIME)


def angle_error(result, exact):
    """Max |crank angle - monolithic reference| over the run [rad]."""
    return float(np.max(np.abs(result.angle("crank") - exact(result.time)[1])))


@pytest.fixture(scope="module")
def fmpy_runs(example):
    """The fmpy master at every communication step (torque derivative passed, speed
    extrapolated): {h: Result}."""
    crank, drive = example
    return {h: fmpy_master.run(crank, drive, h, STOP_TIME) for h in STEPS}


def test_drive_fmu_validates_and_has_the_reference_parameters(example):
    _, drive = example
    assert validate_fmu(str(drive)) == []
    description = fmpy.read_model_description(str(drive))
    variables = {v.name: v for v in description.modelVariables}
    causality = {name: v.causality for name, v in variables.items()}
    assert causality["w_load"] == causality["a_load"] == "input"
    for name in ("tau_load", "dtau_load", "current", "voltage", "P_el", "E_el", "E_loss", "E_mag"):
        assert causality[name] == "output", name
    assert causality["J_reflected"] == "calculatedParameter"
    # The reference is written for the drive's defaults.
    for name, value, _ in DRIVE_PARAMETERS:
        assert variables[name].causality == "parameter"
        if name in reference.PARAMETERS:
            # (pythonfmu writes 16 significant digits)
            assert float(variables[name].start) == pytest.approx(reference.PARAMETERS[name],
                                                                 rel=1e-15), name


def test_crank_parameters_are_those_of_the_reference(example):
    crank, _ = example
    variables = {v.name: v for v in fmpy.read_model_description(str(crank)).modelVariables}
    assert variables["crank.tau"].causality == "input"
    for name in ("J_fw", "m_e", "r_e", "phi0"):
        assert float(variables[name].start) == reference.PARAMETERS[name], name
    drive = reference.PARAMETERS
    assert float(variables["J_drive"].start) == pytest.approx(drive["J_m"] * drive["ratio"] ** 2)


def test_reference_is_converged(exact):
    looser = reference.simulate(STOP_TIME, rtol=1e-9, atol=1e-10)
    t = np.linspace(0.0, STOP_TIME, 401)
    assert np.max(np.abs(looser(t)[1] - exact(t)[1])) < 1e-7
    # It is a real run: the crank turned several times and follows the set speed.
    phi, w = exact(STOP_TIME)[1:3]
    assert phi > 20 and abs(w - reference.PARAMETERS["w_set"]) < 0.5


def test_crank_angle_converges_to_the_monolithic_reference(fmpy_runs, exact):
    errors = {}
    for h, result in fmpy_runs.items():
        assert result.time[-1] == pytest.approx(STOP_TIME, abs=1e-12)
        errors[h] = angle_error(result, exact)
    print("max |phi - phi_ref| over 2 s: "
          + ", ".join(f"h = {h * 1e3:g} ms: {e:.3e} rad" for h, e in errors.items()))
    for h, half in zip(STEPS, STEPS[1:]):
        assert errors[half] <= errors[h] / 2, f"no linear convergence from h = {h} to {half}"
    assert errors[1e-3] < 2e-4


def test_energy_balance_closes(fmpy_runs, exact):
    result = fmpy_runs[1e-3]
    print(result.report("fmpy master, h = 1 ms"))
    E_el = result.E_el[-1]
    assert E_el > 1.0
    # Over the whole run, not only at the end (measured 1.5e-4 of the energy in).
    assert np.max(np.abs(result.balance_error)) < 1e-3 * E_el
    # And each term agrees with the reference's (measured 1.8e-4 of the energy in, the losses).
    expected = reference.energies(exact, STOP_TIME)
    actual = [result.E_el[-1], result.E_mech[-1], result.E_mag[-1], result.E_loss[-1]]
    print("|terms - reference| / energy in: "
          + ", ".join(f"{name} {abs(a - e) / E_el:.1e}" for name, a, e in
                      zip(("electrical", "mechanical", "magnetic", "losses"), actual, expected)))
    np.testing.assert_allclose(actual, expected, rtol=0, atol=1e-3 * E_el)


def test_output_derivatives_reduce_the_coupling_error(example, fmpy_runs, exact):
    """The master extrapolates the drive's speed input with the crank's output derivatives
    (fmi2GetRealOutputDerivatives: d w/dt exact, d a/dt the jerk) to the second order instead of
    linearly with crank.a: the angle error against the monolithic reference must shrink, by at
    least half, at every step size, and the energy balance must close at least as well."""
    crank, drive = example
    for h in (2e-3, 1e-3):
        linear = fmpy_runs[h]
        quadratic = fmpy_master.run(crank, drive, h, STOP_TIME, output_derivatives=True)
        errors = [angle_error(r, exact) for r in (linear, quadratic)]
        balances = [abs(r.balance_error[-1]) for r in (linear, quadratic)]
        print(f"h = {h * 1e3:g} ms: max |phi - phi_ref| {errors[0]:.3e} rad (crank.a), "
              f"{errors[1]:.3e} rad (output derivatives)")
        assert errors[1] < errors[0] / 2
        assert balances[1] < balances[0]


def test_derivative_of_the_angle_is_the_speed_through_fmpy(example):
    """fmpy reads d(crank.phi)/dt with fmi2GetRealOutputDerivatives: the crank's speed."""
    crank, _ = example
    slave = fmpy_master.Slave(crank, "crank")
    slave.set("crank.tau", 0.3)
    t = 0.0
    for _ in range(50):
        slave.step(t, 1e-3)
        t += 1e-3
    dphi, dw = slave.output_derivatives("crank.phi", "crank.w")
    w, a = slave.get("crank.w", "crank.a")
    slave.free()
    assert abs(w) > 0.1
    assert dphi == w and dw == a


def test_libcosim_agrees_with_the_fmpy_master(example, exact):
    """libcosim passes no input derivatives: the crank holds the drive's torque over the step.
    The fmpy master run the same way must agree with it within the co-simulation error (the two
    masters still order the exchange differently: libcosim reads the crank's acceleration
    before the new torque is set)."""
    crank, drive = example
    h = 1e-3
    lc = libcosim_master.run(crank, drive, step_ns=1_000_000, stop_time=STOP_TIME)
    held = fmpy_master.run(crank, drive, h, STOP_TIME, derivatives=False)
    assert len(lc.time) == len(held.time)
    phi_ref = exact(held.time)[1]
    assert_runs_agree(lc, held, phi_ref, "libcosim - fmpy held")


def test_ecco_adapts_the_step_and_closes_the_energy_balance_better(example, exact):
    """libcosim's ECCO algorithm with a power bond on the crank's flange (torque out of the
    drive, speed out of the crank): with fewer steps than the fixed-step run at 0.5 ms its
    energy balance error is smaller; its angle stays within the co-simulation error."""
    crank, drive = example
    ecco = ecco_master.run(crank, drive, tolerance=1e-4, stop_time=STOP_TIME)
    fixed = libcosim_master.run(crank, drive, step_ns=500_000, stop_time=STOP_TIME)
    steps = np.diff(ecco.time)
    errors = [angle_error(r, exact) for r in (ecco, fixed)]
    balances = [r.balance_error[-1] / r.E_el[-1] for r in (ecco, fixed)]
    print(f"ECCO: {len(steps)} steps of {steps.min():.2e} to {steps.max():.2e} s, angle error "
          f"{errors[0]:.2e} rad, balance {100 * balances[0]:.3f} %; fixed 0.5 ms: "
          f"{len(fixed.time) - 1} steps, {errors[1]:.2e} rad, {100 * balances[1]:.3f} %")
    assert ecco.time[-1] >= STOP_TIME
    assert steps.max() > 10 * steps.min()
    assert len(steps) < len(fixed.time) - 1
    assert abs(balances[0]) < abs(balances[1])
    assert errors[0] < 1e-3


def test_motion_driven_coupling_agrees_with_the_torque_driven_one(tmp_path, fmpy_runs, exact):
    """The drive integrates the motion with its own inertia model (motor + its model of the
    load inertia) and the crank, motion-driven, returns the torque its joint takes. Both
    couplings follow the monolithic reference within their co-simulation error at h = 1 ms, so
    they agree with each other; the motion-driven run's energy balance closes."""
    crank = tmp_path / "crank_motion.fmu"
    fmu3d("build", EXAMPLES / "crank_motion.m3d", "-o", crank)
    drive = fmpy_master.build_drive(EXAMPLES / "drive_train_motion.py", tmp_path,
                                    [EXAMPLES / "drive_train.py"])
    h = 1e-3
    motion = fmpy_master.run_motion(crank, drive, h, STOP_TIME)
    torque = fmpy_runs[h]
    phi_ref = exact(torque.time)[1]
    difference, motion_error, torque_error = angle_differences(motion, torque, phi_ref)
    balance = abs(motion.balance_error[-1]) / motion.E_el[-1]
    print(f"h = 1 ms: max |motion - torque-driven| = {difference:.3e} rad, errors against the "
          f"reference {motion_error:.3e} (motion), {torque_error:.3e} (torque) rad; motion-driven "
          f"energy balance {100 * balance:.3f} % of the energy in")
    # Measured 9.8e-5, 2.7e-5 and 1.0e-4 rad; 0.13 %.
    assert motion_error < 5e-4
    assert torque_error < 1.5e-4
    assert difference < 5e-4
    assert balance < 5e-3
