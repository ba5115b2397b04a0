"""The gripper (models/gripper.m3d) as an FMU driven through fmpy: two steel fingers on
prismatic joints, whose forces are the FMU inputs, hold a 0.7 kg wooden box against gravity by
friction. References are Coulomb's law with the shipped steel-on-dry-wood coefficients
(mu_s = 0.6, mu_k = 0.5) and the documented density of dry wood (700 kg/m3): the box is held
when 2 mu_s F >= m g (F >= 5.72 N), without creep; squeezed less, it slides down with
a = g - 2 mu_k F / m; released, it falls freely."""

import fmpy
import numpy as np
import pytest

from conftest import fmu3d, MODELS

G, MU_S, MU_K = 9.81, 0.6, 0.5
MASS = 700.0 * 0.1**3


@pytest.fixture(scope="module")
def gripper_fmu(tmp_path_factory):
    fmu = tmp_path_factory.mktemp("gripper") / "gripper.fmu"
    fmu3d("build", MODELS["gripper"], "-o", fmu)
    return str(fmu)


def squeeze(fmu, force, stop=1.0):
    """The box's height and speed while the fingers press with `force` [N] each."""
    signals = np.array([(0.0, force, -force), (stop, force, -force)],
                       dtype=[("time", float), ("left.f", float), ("right.f", float)])
    result = fmpy.simulate_fmu(fmu, stop_time=stop, output_interval=0.001, input=signals,
                               output=["box.r[2]", "box.v[2]"])
    return result["time"], result["box.r[2]"], result["box.v[2]"]


def test_a_firm_grip_holds_the_box_without_creep(gripper_fmu):
    time, y, _ = squeeze(gripper_fmu, 20.0, stop=2.0)
    sag, late = abs(y).max(), abs(y[-1] - y[len(y) // 2])
    print(f"held at 20 N: sags {sag:.2e} m, moves {late:.1e} m in the last second")
    # The elastic offset of the stuck contacts: m g over their stiffness 2 mu_s F / 10 um.
    elastic = MASS * G / (2 * MU_S * 20.0) * 1e-5
    assert sag < 2 * elastic, f"sags {sag} m (elastic offset {elastic} m)"
    assert late < 1e-9


@pytest.mark.parametrize("force", [2.0, 4.0])
def test_a_weak_grip_lets_the_box_slide_at_coulombs_rate(gripper_fmu, force):
    # The box leaves the 0.1 m long finger faces after about 0.17 s (0.22 s at 4 N).
    time, y, v = squeeze(gripper_fmu, force, stop=0.15)
    late = time >= 0.02
    acceleration = -np.polyfit(time[late], v[late], 1)[0]
    expected = G - 2 * MU_K * force / MASS
    error = abs(acceleration / expected - 1)
    print(f"at {force} N: slides down at {acceleration:.5f} m/s2 (Coulomb {expected:.5f}, "
          f"relative error {error:.1e})")
    assert error < 1e-4


def test_released_the_box_falls_freely(gripper_fmu):
    time, y, _ = squeeze(gripper_fmu, 0.0)
    assert abs(y + 0.5 * G * time**2).max() < 1e-6
