"""fmu3d-sweep (sweep/, docs/sweep.md): sample tables, the names refused before anything runs,
the Parquet files and plots of a sweep on a local Dask cluster, and a sweep that survives one of
its workers being killed.

The physics reference is a closed form that owes nothing to the sweep or to fmu3d: the bouncing
ball falls freely until it touches the floor, so at t = T (before the touch) its center is at
height - g T^2/2 and moves at -g T, whatever `height` the case set (test_physics.py bounds the
engine's error there at 1e-10 m). A case that lands in the wrong row, runs with another case's
parameters, is lost or is counted twice fails that comparison or the exactly-once check.
"""

import math
import os
import signal
import subprocess
import sys
import threading
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from fmu3d_sweep import results, sampling
from fmu3d_sweep.case import Experiment, fmu_digest, prepared, run_case
from fmu3d_sweep.driver import Progress, chunk_size, connect, run_sweep
from fmu3d_sweep.errors import SweepError, UsageError
from fmu3d_sweep.plot import png_size

G = 9.81
#: The free fall's end, before the lowest ball (center 0.5 m up, radius 5 cm) touches the floor.
T = 0.25
SWEEP = Path(sys.executable).parent / "fmu3d-sweep"


def free_fall(height):
    """(height of the ball's center, its vertical speed) at t = T."""
    return height - G * T**2 / 2, -G * T


def sweep(*args):
    """Runs the installed `fmu3d-sweep` command: (exit status, stdout, stderr)."""
    run = subprocess.run([str(SWEEP), *map(str, args)], capture_output=True, text=True,
                         timeout=300)
    return run.returncode, run.stdout, run.stderr


# --- The sample table -------------------------------------------------------------------------

def test_a_grid_is_the_product_of_its_axes_the_first_slowest():
    table = sampling.grid(["a=0:1:3", "b=10,20"])
    assert list(table.columns) == ["a", "b"]
    assert table.to_numpy().tolist() == [[0, 10], [0, 20], [0.5, 10], [0.5, 20], [1, 10],
                                         [1, 20]]


def test_random_samples_repeat_with_their_seed_and_follow_their_distributions():
    table = sampling.random_samples(4000, ["u=2:3"], ["n=5:0.5"], seed=7)
    assert table.equals(sampling.random_samples(4000, ["u=2:3"], ["n=5:0.5"], seed=7))
    assert not table.equals(sampling.random_samples(4000, ["u=2:3"], ["n=5:0.5"], seed=8))
    assert table["u"].between(2, 3).all()
    # Standard errors: 0.29/sqrt(4000) = 0.005 for the uniform mean, 0.008 for the normal's.
    assert abs(table["u"].mean() - 2.5) < 0.02
    assert abs(table["n"].mean() - 5) < 0.03
    assert abs(table["n"].std() - 0.5) < 0.03


@pytest.mark.parametrize("kwargs, message", [
    (dict(grid_specs=["a=0:1"]), "START:STOP:COUNT"),
    (dict(grid_specs=["a=0:1:2.5"]), "whole number"),
    (dict(grid_specs=["a=0:x:2"]), "'x' is not a number"),
    (dict(grid_specs=["a=1", "a=2"]), "more than once"),
    (dict(grid_specs=["a=1"], samples=3, uniform_specs=["b=0:1"]), "not both"),
    (dict(samples=3, uniform_specs=["b=1:0"]), "LO must be below HI"),
    (dict(samples=3), "at least one --uniform or --normal"),
    (dict(uniform_specs=["b=0:1"]), "need --samples"),
    (dict(), "nothing to sweep"),
])
def test_bad_sample_specs_are_refused(kwargs, message):
    with pytest.raises(UsageError, match=message):
        sampling.sample_table(**kwargs)


def test_the_exactly_once_check_names_lost_and_repeated_cases():
    results.check_exactly_once([2, 0, 1], 3)
    with pytest.raises(SweepError, match=r"1 case\(s\) missing: 1; 1 case\(s\) more than "
                                         r"once: 2"):
        results.check_exactly_once([0, 2, 2], 3)
    with pytest.raises(SweepError, match="not in the sample table: 3"):
        results.check_exactly_once([0, 1, 2, 3], 3)


# --- One case, without Dask ------------------------------------------------------------------

def test_a_run_that_ends_early_is_a_failed_record_and_the_fmu_is_prepared_once(fmus):
    """fmpy's timeout ends a run without an exception: the record says failed, and why; the
    same case without the timeout ends at the closed form. The second run reuses the folder
    the first extracted (the bytes given then are not even read)."""
    data = fmus["bouncing_ball"].read_bytes()
    digest = fmu_digest(data)
    experiment = Experiment(outputs=("ball.r[2]",), stop_time=T, step=1e-4, timeout=1e-3)
    record = run_case(data, digest, 7, {"height": 1.0}, experiment)
    assert record["case"] == 7 and record["status"] == "failed" and record["finals"] is None
    assert "before the stop time 0.25 s: the timeout of 0.001 s passed" in record["error"]
    folder = prepared(digest, b"")[0]
    record = run_case(b"", digest, 8, {"height": 1.0}, replace(experiment, timeout=None))
    assert record["status"] == "ok" and record["error"] is None
    assert record["finals"]["ball.r[2]"] == pytest.approx(free_fall(1.0)[0], abs=1e-9)
    assert prepared(digest, b"")[0] == folder and os.path.isdir(folder)


# --- Names, checked against the modelDescription before anything runs ------------------------

@pytest.mark.parametrize("args, message", [
    (["--grid", "hieght=0.5:1:2", "--outputs", "ball.r[2]"],
     "unknown parameter 'hieght': the FMU bouncing_ball has no such variable; did you mean "
     "'height'?"),
    (["--grid", "height=0.5:1:2", "--outputs", "ball.r2"],
     "unknown output 'ball.r2': the FMU bouncing_ball has no such variable; did you mean "
     "'ball.r[2]'?"),
    (["--grid", "ball.v[2]=0:1:2", "--outputs", "ball.r[2]"],
     "'ball.v[2]' is 'output' in the FMU bouncing_ball, not a parameter or input"),
    (["--grid", "height=0.5:1:2", "--set", "height=1", "--outputs", "ball.r[2]"],
     "the parameter 'height' is given more than once"),
])
def test_unknown_names_are_refused_with_a_suggestion_and_status_2(fmus, tmp_path, args,
                                                                   message):
    status, stdout, stderr = sweep("run", fmus["bouncing_ball"], *args, "-o",
                                   tmp_path / "r.parquet")
    assert status == 2, stderr
    assert stderr.startswith(f"fmu3d-sweep: error: {message}"), stderr
    assert not (tmp_path / "r.parquet").exists()


# --- A sweep through the command line ---------------------------------------------------------

def test_a_sweep_writes_one_row_per_case_the_time_series_and_plots(fmus, tmp_path):
    """Heights 0 (the ball starts 5 cm inside the floor, which the FMU refuses) and 0.5 to 2 m:
    the refused case is recorded failed with the FMU's message and run once; the others agree
    with the free fall in both files; both plots are PNGs."""
    out, series = tmp_path / "results.parquet", tmp_path / "series.parquet"
    status, stdout, stderr = sweep(
        "run", fmus["bouncing_ball"], "--grid", "height=0,0.5,1,1.5,2", "--outputs",
        "ball.r[2]", "ball.v[2]", "--stop-time", T, "--step", 0.005, "--workers", 2, "-o", out,
        "--time-series", series)
    assert status == 0, stderr
    assert stdout.startswith(f"wrote {out}: 5 cases, 4 ok, 1 failed, 0 resubmitted, in "), stdout
    assert "sweep: 5/5 cases, 1 failed" in stderr
    assert "fmu3d-sweep: case 0 failed: fmi2EnterInitializationMode failed" in stderr

    frame = pd.read_parquet(out)
    assert list(frame.columns) == ["case", "height", "ball.r[2]", "ball.v[2]", "status",
                                   "error", "attempts", "seconds"]
    assert frame["case"].tolist() == [0, 1, 2, 3, 4]
    assert frame["height"].tolist() == [0, 0.5, 1, 1.5, 2]
    assert frame["status"].tolist() == ["failed", "ok", "ok", "ok", "ok"]
    assert frame["attempts"].tolist() == [1] * 5
    assert "`floor` and `ball` overlap by 50.0000 mm" in frame["error"][0]
    assert frame["error"][1:].isna().all()
    assert np.isnan(frame["ball.r[2]"][0])
    ok = frame[frame["status"] == "ok"]
    y, v = free_fall(ok["height"])
    np.testing.assert_allclose(ok["ball.r[2]"], y, rtol=0, atol=1e-9)
    np.testing.assert_allclose(ok["ball.v[2]"], v, rtol=0, atol=1e-9)

    meta = results.read(out)[1]
    assert meta["parameters"] == ["height"] and meta["outputs"] == ["ball.r[2]", "ball.v[2]"]
    assert meta["model"] == "bouncing_ball" and meta["stop_time"] == T
    assert meta["sampling"] == {"kind": "grid", "grid": ["height=0,0.5,1,1.5,2"]}

    long = pd.read_parquet(series)
    assert sorted(set(long["case"])) == [1, 2, 3, 4]
    for case_id, run in long.groupby("case"):
        t = run["time"].to_numpy()
        assert len(t) == 51 and t[-1] == pytest.approx(T)
        height = frame["height"][case_id]
        np.testing.assert_allclose(run["ball.r[2]"], height - G * t**2 / 2, rtol=0, atol=1e-9)
    assert pq.read_schema(series).metadata[b"fmu3d-sweep"] == \
        pq.read_schema(out).metadata[b"fmu3d-sweep"]

    for extra, png in (([], "finals.png"), (["--time-series", series], "series.png")):
        status, stdout, stderr = sweep("plot", out, "ball.r[2]", "-o", tmp_path / png, *extra)
        assert status == 0, stderr
        width, height = png_size(tmp_path / png)
        assert stdout.strip() == f"wrote {tmp_path / png} ({width}x{height})"
        assert width > 300 and height > 200

    status, _, stderr = sweep("plot", out, "ball.r", "-o", tmp_path / "x.png")
    assert status == 2 and "did you mean 'ball.r[2]'?" in stderr, stderr


def test_random_samples_on_a_running_scheduler(fmus, tmp_path):
    """`--scheduler`: the command uses a cluster it did not start (here a LocalCluster of this
    test); the random heights are those of the seed, recorded in the file, and each row holds
    its own height's free fall."""
    from distributed import LocalCluster

    out = tmp_path / "random.parquet"
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=":0") as cluster:
        status, stdout, stderr = sweep(
            "run", fmus["bouncing_ball"], "--samples", 12, "--uniform", "height=0.5:2",
            "--seed", 5, "--outputs", "ball.r[2]", "--stop-time", T, "--scheduler",
            cluster.scheduler_address, "-o", out)
    assert status == 0, stderr
    assert stdout.startswith(f"wrote {out}: 12 cases, 12 ok, 0 failed, 0 resubmitted, in "), \
        stdout
    assert stdout.rstrip().endswith(" on 2 workers"), stdout
    frame, meta = results.read(out)
    assert meta["sampling"] == {"kind": "random", "samples": 12, "uniform": ["height=0.5:2"],
                                "normal": [], "seed": 5}
    expected = sampling.random_samples(12, ["height=0.5:2"], seed=5)["height"]
    assert frame["height"].tolist() == expected.tolist()
    np.testing.assert_allclose(frame["ball.r[2]"], free_fall(frame["height"])[0], rtol=0,
                               atol=1e-9)


# --- A worker killed during the sweep ---------------------------------------------------------

class KillAfter(Progress):
    """Progress that signals once `count` cases are done."""

    def __init__(self, total, count):
        super().__init__(total, interval=1e9)
        self.count, self.reached = count, threading.Event()

    def update(self, done, failed, resubmitted):
        if done >= self.count:
            self.reached.set()


def test_a_killed_worker_loses_no_case_and_counts_none_twice(fmus):
    """60 free falls of 30 ms each on the CLI's local cluster (3 worker processes, Dask's
    allowed-failures at 0), two cases per task as the CLI chooses: once 10 cases are done, the
    process of a worker that is running a task is killed (SIGKILL). Its tasks come back as
    KilledWorker, the driver submits their cases again, and every case ends ok, once, in its
    row, on the closed form."""
    heights = np.linspace(0.5, 2.0, 60)
    cases = pd.DataFrame({"height": heights})
    experiment = Experiment(outputs=("ball.r[2]", "ball.v[2]"), stop_time=T, step=1e-4)
    data = fmus["bouncing_ball"].read_bytes()
    progress = KillAfter(len(cases), 10)
    outcome = {}

    with connect(workers=3) as client:
        def work():
            try:
                outcome["records"] = run_sweep(client, data, cases, experiment, retries=2,
                                               progress=progress, chunk=chunk_size(60, 3))
            except BaseException as error:  # reported by the test's thread below
                outcome["error"] = error

        thread = threading.Thread(target=work)
        thread.start()
        assert progress.reached.wait(120), "the sweep did not get going"
        busy = [address for address, keys in client.processing().items()
                if any("fmu3d-sweep" in str(key) for key in keys)]
        assert busy, "no worker is running a case after 10 of 60"
        victim = client.run(os.getpid, workers=[busy[0]])[busy[0]]
        os.kill(victim, signal.SIGKILL)
        thread.join(240)
        assert not thread.is_alive(), "the sweep did not finish after the kill"
        survivors = set(client.run(os.getpid).values())

    assert "error" not in outcome, outcome.get("error")
    records = outcome["records"]
    frame = results.results_frame(records, cases, experiment.outputs)  # checks exactly once
    assert victim not in survivors
    assert frame["status"].tolist() == ["ok"] * 60, frame[frame["status"] != "ok"]["error"]
    resubmitted = frame[frame["attempts"] > 1]
    print(f"worker pid {victim} killed; cases submitted again: {resubmitted['case'].tolist()}")
    assert len(resubmitted) >= 1, "the kill hit no running case: the test proved nothing"
    y, v = free_fall(frame["height"])
    np.testing.assert_allclose(frame["ball.r[2]"], y, rtol=0, atol=1e-9)
    np.testing.assert_allclose(frame["ball.v[2]"], v, rtol=0, atol=1e-9)
    assert math.isclose(frame["height"][59], 2.0)
