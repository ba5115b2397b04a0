"""FMU states through fmpy's FMU2Slave during a contact: the bouncing ball, saved just before its
first impact (fmi2GetFMUstate), is run on across the impact, restored (fmi2SetFMUstate) and run
on again: the outputs repeat to the last bit. So do they from the state serialized
(fmi2SerializeFMUstate) and restored into a fresh instance (fmi2DeSerializeFMUstate). This
checks the FMI layer, the exact rollback a master relies on, not the physics."""

import math

import fmpy
import numpy as np
import pytest

from conftest import Instance

H = 2.0**-12  # 0.24 ms, exact in binary: the contact lasts several steps
#: 0.4395 s, 0.6 ms before the first touch at sqrt(2 (1 m - 0.05 m)/g) = 0.4401 s.
BEFORE = 1800
ACROSS = 200  # 49 ms on


@pytest.fixture
def ball(fmus, tmp_path):
    """The bouncing ball stepped to just before its first impact, and its unzipped FMU."""
    folder = fmpy.extract(str(fmus["bouncing_ball"]), unzipdir=str(tmp_path / "bouncing_ball"))
    instance = Instance(fmus["bouncing_ball"], folder, "ball")
    for _ in range(BEFORE):
        instance.step(H)
    assert instance.time < math.sqrt(2 * 0.95 / 9.81) < instance.time + 10 * H
    yield instance, folder
    instance.free()


def run_on(instance, start):
    """From `start`, ACROSS steps on; the outputs at the start and at every step after."""
    instance.time, first = start, len(instance.rows)
    instance.rows.append(instance.sample())
    for _ in range(ACROSS):
        instance.step(H)
    return instance.result()[first:]


def assert_identical(actual, expected, what):
    for name in expected.dtype.names:
        np.testing.assert_array_equal(actual[name], expected[name], err_msg=f"{what}: {name}")


def crosses_the_impact(result):
    """The continuation holds the impact: the contact force acted and the ball turned upwards."""
    return np.max(result["impact.f_n"]) > 0 and result["ball.v[2]"][0] < 0 < result["ball.v[2]"][-1]


def test_state_restored_after_an_impact_repeats_it_bit_for_bit(ball):
    instance, _ = ball
    start = instance.time
    state = instance.slave.getFMUstate()
    first = run_on(instance, start)
    assert crosses_the_impact(first), "the continuation must cross the impact"
    instance.slave.setFMUstate(state)
    again = run_on(instance, start)
    instance.slave.freeFMUstate(state)
    print(f"{len(first)} samples from t = {start} s, peak contact force "
          f"{np.max(first['impact.f_n']):.1f} N: repeated bit for bit after fmi2SetFMUstate")
    assert_identical(again, first, "after fmi2SetFMUstate")


def test_serialized_state_repeats_the_impact_in_a_fresh_instance(ball, fmus):
    instance, folder = ball
    start = instance.time
    state = instance.slave.getFMUstate()
    serialized = instance.slave.serializeFMUstate(state)
    instance.slave.freeFMUstate(state)
    first = run_on(instance, start)
    assert crosses_the_impact(first), "the continuation must cross the impact"

    fresh = Instance(fmus["bouncing_ball"], folder, "fresh")  # at t = 0, the ball at the top
    restored = fresh.slave.deSerializeFMUstate(serialized)
    fresh.slave.setFMUstate(restored)
    fresh.slave.freeFMUstate(restored)
    again = run_on(fresh, start)
    fresh.free()
    print(f"serialized state: {len(serialized)} bytes, header {serialized[:8]!r}; "
          f"{len(again)} samples repeated bit for bit in a fresh instance")
    assert serialized[:8] == b"FMU3DST4"
    assert_identical(again, first, "after fmi2DeSerializeFMUstate into a fresh instance")
