"""The monolithic crank drive (models/crank_drive.m3d: DC motor, gear, crank with flywheel in one
FMU) against the scipy reference of examples/cosimulation/reference.py with the same open-loop
voltage ramp, and its closed-loop variant (tests/python/models/crank_drive_pi.m3d: the PI speed
controller with voltage limit and anti-windup of the drive-train FMU) against the reference's
controlled system. The reference writes the one-degree-of-freedom equations directly and shares no
code with fmu3d.
"""

import sys

import fmpy
import numpy as np
import pytest

from conftest import REPOSITORY

sys.path.insert(0, str(REPOSITORY / "examples" / "cosimulation"))

import reference  # noqa: E402

U_MAX, T_RAMP, STOP_TIME = 8.0, 0.2, 2.0


def test_monolithic_drive_matches_the_scipy_reference(fmus):
    result = fmpy.simulate_fmu(str(fmus["crank_drive"]), stop_time=STOP_TIME, output_interval=1e-3,
                               output=["crank.phi", "crank.w", "motor.i", "motor.v", "motor.P_el"])
    exact = reference.simulate(STOP_TIME, voltage=lambda t: U_MAX * min(t / T_RAMP, 1.0))
    t = result["time"]
    i, phi, w, _, e_el, _ = exact(t)
    assert np.max(np.abs(result["crank.phi"] - phi)) < 1e-6
    assert np.max(np.abs(result["crank.w"] - w)) < 1e-5
    assert np.max(np.abs(result["motor.i"] - i)) < 1e-4
    assert np.max(np.abs(result["motor.v"] - U_MAX * np.minimum(t / T_RAMP, 1.0))) < 1e-12
    # The electrical energy: the trapezoidal integral of the power output against the
    # reference's integral of u*i.
    energy = np.concatenate(([0.0], np.cumsum(np.diff(t) * (result["motor.P_el"][1:]
                                                             + result["motor.P_el"][:-1]) / 2)))
    assert abs(energy[-1] - e_el[-1]) < 1e-3 * e_el[-1]


@pytest.mark.parametrize("u_max", [8.0, 5.0])
def test_speed_controlled_drive_matches_the_scipy_reference(fmus, u_max):
    """At the default limit of 8 V the voltage stays below it; at 5 V the controller saturates
    during the ramp and the anti-windup acts."""
    result = fmpy.simulate_fmu(str(fmus["crank_drive_pi"]), stop_time=STOP_TIME,
                               output_interval=1e-3, start_values={"U_max": u_max},
                               output=["crank.phi", "crank.w", "motor.i", "motor.v", "motor.w_ref"])
    exact = reference.simulate(STOP_TIME, U_max=u_max)
    t = result["time"]
    i, phi, w, x, _, _ = exact(t)
    p = exact.parameters
    assert np.max(np.abs(result["crank.phi"] - phi)) < 1e-6
    assert np.max(np.abs(result["crank.w"] - w)) < 1e-5
    assert np.max(np.abs(result["motor.i"] - i)) < 1e-4
    w_ref = p["w_set"] * np.minimum(t / p["t_ramp"], 1.0)
    assert np.max(np.abs(result["motor.w_ref"] - w_ref)) < 1e-12
    # The controller's voltage from the reference's states, limited to U_max.
    u = np.clip(p["Kp"] * (w_ref - w) + p["Ki"] * x, -u_max, u_max)
    assert np.max(np.abs(result["motor.v"] - u)) < 1e-3
    saturated = np.max(np.abs(result["motor.v"])) == pytest.approx(u_max, rel=1e-12)
    assert saturated == (u_max < 6.0)
