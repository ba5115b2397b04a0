"""Co-simulation of several drive-train FMU instances with an fmu3d mechanism: the robot arm
(three joints, one position-controlled drive each) and the four-bar crank (one speed-controlled
drive), run by the fmpy master and by libcosim (examples/cosimulation).

The references are independent of the code under test:

- the commanded joint angles (parameters of the drives): the arm must reach them within
  1e-3 rad and hold them against gravity (integral action);
- the potential energy of the arm at rest in its end pose, written here in closed form from the
  geometry of robot_arm.m3d: the mechanical energy the master computes from the FMU's outputs
  must match it;
- the energy balance: electrical energy in = mechanical energy + magnetic energy + resistive and
  friction losses, to 0.5 % of the energy delivered;
- the arm run with a communication step four times smaller (fmpy master, input derivatives):
  libcosim and the fmpy master passing the same information (no torque derivative) must agree
  within the co-simulation error of either against it;
- the same reference for the output derivatives: the drives extrapolating their inputs with the
  arm's output derivatives come closer to it than with the joints' accelerations;
- the four-bar crank's set speed: after the ramp the speed deviates from it by no more than the
  drive's proportional action allows for the torque the four-bar's gravity and inertia demand,
  and on average not at all.
"""

import math
import sys

import fmpy
import numpy as np
import pytest

from conftest import EXAMPLES, fmu3d
sys.path.insert(0, str(EXAMPLES))

import fmpy_master  # noqa: E402
import libcosim_master  # noqa: E402
from drive_train import PARAMETERS as DRIVE_PARAMETERS  # noqa: E402
from mechanisms import ARM_MOVES, FOURBAR_CRANK, ROBOT_ARM  # noqa: E402

H = 1e-3
G = 9.81


@pytest.fixture(scope="module")
def drive_fmu(crank_example):
    return crank_example[1]


@pytest.fixture(scope="module")
def arm_fmu(tmp_path_factory):
    fmu = tmp_path_factory.mktemp("arm") / "robot_arm.fmu"
    fmu3d("build", ROBOT_ARM.model, "-o", fmu)
    return fmu


@pytest.fixture(scope="module")
def arm_runs(arm_fmu, drive_fmu):
    """The arm in both masters at h = 1 ms: {"fmpy": derivatives passed, "fmpy held": no
    torque derivative, "fmpy output derivatives": derivatives passed and the drives' inputs
    extrapolated with the arm's output derivatives, "libcosim": libcosim's own master}."""
    stop = ROBOT_ARM.stop_time
    return {
        "fmpy": fmpy_master.run_mechanism(ROBOT_ARM, arm_fmu, drive_fmu, H, stop),
        "fmpy held": fmpy_master.run_mechanism(ROBOT_ARM, arm_fmu, drive_fmu, H, stop,
                                               derivatives=False),
        "fmpy output derivatives": fmpy_master.run_mechanism(
            ROBOT_ARM, arm_fmu, drive_fmu, H, stop, output_derivatives=True),
        "libcosim": libcosim_master.run_mechanism(ROBOT_ARM, arm_fmu, drive_fmu,
                                                  int(round(H * 1e9)), stop),
    }


def commanded_end(result):
    return np.array([ARM_MOVES[joint][1] for joint in result.joints])


def test_drive_has_the_position_mode(drive_fmu):
    variables = {v.name: v for v in fmpy.read_model_description(str(drive_fmu)).modelVariables}
    assert variables["position_control"].type == "Boolean"
    assert variables["position_control"].start in ("false", False)  # speed control by default
    assert variables["phi_load"].causality == "input"
    assert variables["phi_ref"].causality == "output"
    names = {name for name, _, _ in DRIVE_PARAMETERS}
    assert {"Kv", "phi_begin", "phi_end", "t_begin", "t_move"} <= names


@pytest.mark.parametrize("master", ["fmpy", "fmpy output derivatives", "libcosim"])
def test_arm_reaches_and_holds_the_commanded_angles(arm_runs, master):
    result = arm_runs[master]
    start = result.phi[0]
    end = commanded_end(result)
    # A real move of every joint (at least 0.5 rad), against gravity: the shoulder holds the
    # arm with a torque of several N.m at the end.
    assert np.all(np.abs(end - start) >= 0.5)
    assert abs(result.tau[-1, result.joints.index("shoulder")]) > 10.0
    hold = result.time >= result.time[-1] - 0.1
    error = np.max(np.abs(result.phi[hold] - end), axis=0)
    print(f"{master}: max |phi - commanded| over the last 0.1 s: "
          + ", ".join(f"{j} {e:.2e} rad" for j, e in zip(result.joints, error)))
    assert np.all(error < 1e-3)
    # At rest.
    assert np.all(np.abs(result.w[-1]) < 1e-2)


def arm_potential_energy(phi_shoulder, phi_elbow, p):
    """m*g*z of every body of robot_arm.m3d, from its geometry: a pitch angle phi about y turns
    the arm's x axis to (cos phi, 0, -sin phi); the base angle does not change heights."""
    z_elbow = p["h"] - p["L1"] * math.sin(phi_shoulder)
    fore = math.sin(phi_shoulder + phi_elbow)
    heights = [
        (p["m_column"], p["h"] / 2),
        (p["m_motor"], 0.0),  # base motor, on the base axis at the floor
        (p["m_motor"], p["h"]),  # shoulder motor
        (p["m1"], p["h"] - p["L1"] / 2 * math.sin(phi_shoulder)),
        (p["m_motor"], z_elbow),  # elbow motor
        (p["m2"], z_elbow - p["L2"] / 2 * fore),
        (p["m_load"], z_elbow - p["L2"] * fore),
    ]
    return G * sum(m * z for m, z in heights)


def test_arm_energy_balance_closes(arm_runs):
    geometry = dict(h=0.3, L1=0.4, L2=0.35, m_column=4.0, m1=3.0, m2=2.0, m_load=1.0,
                    m_motor=0.5)  # robot_arm.m3d's defaults
    shoulder0, elbow0 = ARM_MOVES["shoulder"][0], ARM_MOVES["elbow"][0]
    shoulder1, elbow1 = ARM_MOVES["shoulder"][1], ARM_MOVES["elbow"][1]
    lift = (arm_potential_energy(shoulder1, elbow1, geometry)
            - arm_potential_energy(shoulder0, elbow0, geometry))
    assert lift > 5.0
    for master in ("fmpy", "fmpy output derivatives", "libcosim"):
        result = arm_runs[master]
        print(result.report(f"{master}, h = 1 ms"))
        E_el = result.E_el[-1]
        # At rest in the end pose the mechanical energy is the potential energy gained.
        assert result.E_mech[-1] == pytest.approx(lift, rel=1e-3), master
        assert result.E_friction[-1] > 0.1 and result.E_loss[-1] > 0.1
        assert np.max(np.abs(result.balance_error)) < 0.005 * E_el, master


@pytest.fixture(scope="module")
def arm_fine(arm_fmu, drive_fmu):
    """The fmpy master at h/4 (input derivatives passed): the arm's converged motion."""
    return fmpy_master.run_mechanism(ROBOT_ARM, arm_fmu, drive_fmu, H / 4, ROBOT_ARM.stop_time)


def test_arm_masters_agree_within_the_cosimulation_error(arm_runs, arm_fine):
    """libcosim passes no input derivatives; the fmpy master run the same way must agree with it
    within the co-simulation error, measured against the fmpy master at h/4."""
    phi_ref = arm_fine.phi[::4]
    held, lc = arm_runs["fmpy held"], arm_runs["libcosim"]
    errors = {name: np.max(np.abs(arm_runs[name].phi - phi_ref)) for name in arm_runs}
    difference = np.max(np.abs(lc.phi - held.phi))
    print(f"h = 1 ms: max |libcosim - fmpy held| = {difference:.3e} rad; against h/4: "
          + ", ".join(f"{name} {e:.3e} rad" for name, e in errors.items()))
    assert difference <= max(errors["fmpy held"], errors["libcosim"])
    # All are small. (Here the torque derivative does not help at h = 1 ms: the armature's
    # time constant L/R is 1 ms, so a linear extrapolation of the torque over a step misses the
    # current's exponential rise while the arm starts to sag at t = 0.)
    assert max(errors.values()) < 5e-3


def test_output_derivatives_reduce_the_arm_coupling_error(arm_runs, arm_fine):
    """Every drive extrapolates its joint's speed and angle with the arm's output derivatives
    d(J.w)/dt and d(J.a)/dt (second order) instead of with J.a: against the run at h/4 the
    angles at h = 1 ms come closer and the energy balance closes better."""
    phi_ref = arm_fine.phi[::4]
    linear, quadratic = arm_runs["fmpy"], arm_runs["fmpy output derivatives"]
    errors = [np.max(np.abs(r.phi - phi_ref)) for r in (linear, quadratic)]
    balances = [np.max(np.abs(r.balance_error)) / r.E_el[-1] for r in (linear, quadratic)]
    print(f"h = 1 ms against h/4: {errors[0]:.3e} rad (J.a), {errors[1]:.3e} rad (output "
          f"derivatives); balance {100 * balances[0]:.3f} %, {100 * balances[1]:.3f} %")
    assert errors[1] < errors[0]
    assert balances[1] < balances[0]


@pytest.fixture(scope="module")
def fourbar_runs(tmp_path_factory, drive_fmu):
    fmu = tmp_path_factory.mktemp("fourbar") / "fourbar_crank.fmu"
    fmu3d("build", FOURBAR_CRANK.model, "-o", fmu)
    stop = FOURBAR_CRANK.stop_time
    return {
        "fmpy": fmpy_master.run_mechanism(FOURBAR_CRANK, fmu, drive_fmu, H, stop),
        "libcosim": libcosim_master.run_mechanism(FOURBAR_CRANK, fmu, drive_fmu,
                                                  int(round(H * 1e9)), stop),
    }


@pytest.mark.parametrize("master", ["fmpy", "libcosim"])
def test_fourbar_crank_follows_the_set_speed(fourbar_runs, master):
    result = fourbar_runs[master]
    defaults = {name: value for name, value, _ in DRIVE_PARAMETERS}
    drive = defaults | FOURBAR_CRANK.drives[0].parameters
    w_set = drive["w_set"]
    settled = result.time >= 2 * drive["t_ramp"]
    w, tau = result.speed("rev1")[settled], result.tau[settled, 0]
    # The drive's proportional action, from back EMF and the speed controller's Kp: a torque
    # deviation d_tau at the crank goes with a speed deviation d_tau / B (quasi-static).
    gain = drive["ratio"] * drive["k"]
    B = (gain**2 + drive["Kp"] * gain) / drive["R"]
    allowed = np.max(np.abs(tau - tau.mean())) / B
    deviation = np.max(np.abs(w - w_set))
    print(f"{master}: max |w - w_set| = {deviation:.4f} rad/s (allowed {allowed:.4f}), mean "
          f"{np.mean(w - w_set):.2e} rad/s, torque {tau.min():.3f} .. {tau.max():.3f} N.m")
    assert 0.01 < deviation <= allowed  # the four-bar does load the drive
    # Integral action: no speed error on average over whole turns (t_ramp..end: 2 turns).
    assert abs(np.mean(w - w_set)) < 1e-3 * w_set


@pytest.mark.parametrize("master", ["fmpy", "libcosim"])
def test_fourbar_crank_energy_balance_closes(fourbar_runs, master):
    result = fourbar_runs[master]
    print(result.report(f"{master}, h = 1 ms"))
    assert result.E_el[-1] > 1.0 and result.E_mech[-1] > 0.1
    assert np.max(np.abs(result.balance_error)) < 0.005 * result.E_el[-1]
