"""One run of the FMU with one case's start values, on a Dask worker (or anywhere).

The FMU reaches the workers as bytes (scattered once by the driver, so that workers need no
shared file system); each worker process writes and extracts it once and reads its
modelDescription once, on its first case, and reuses both for every later case.

A run that the FMU refuses or that fails (an FMI call returning an error, a timeout) is a result
of the case: it comes back as a `failed` record with the error text and the FMU's log messages,
and is not retried. An exception that leaves this module (the FMU could not even be extracted) is
an infrastructure failure, which the driver retries elsewhere.
"""

import atexit
import hashlib
import math
import os
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass

import fmpy

#: FMI status of the log messages kept for a failed case's error text: warning and above.
_FMI2_WARNING = 1
#: Log messages kept per run (the last ones: those of the failing call).
_KEPT_MESSAGES = 5


@dataclass(frozen=True)
class Experiment:
    """What every case of a sweep shares: recorded outputs, times and fixed start values."""

    outputs: tuple
    stop_time: float  # resolved from the FMU's default experiment when not given
    step: float | None = None  # the communication step, fmpy's output_interval
    start_time: float | None = None
    tolerance: float | None = None
    timeout: float | None = None  # wall-clock seconds per run
    fixed: tuple = ()  # ((name, value), ...): start values of every case
    time_series: bool = False


def fmu_digest(data):
    """The key under which workers keep an extracted FMU."""
    return hashlib.sha256(data).hexdigest()


_prepared = {}
_prepared_lock = threading.Lock()  # a worker may run several cases at once in threads


def _scratch():
    """The folder to extract into: a Dask worker's local directory, which Dask removes when the
    worker closes or, after a worker was killed, when the next one starts; elsewhere the
    system's temporary folder."""
    try:
        from distributed import get_worker

        return get_worker().local_directory
    except (ImportError, ValueError):  # ValueError: not inside a worker
        return None


def prepared(digest, data):
    """(extracted folder, modelDescription) of the FMU in this process, made on first use."""
    with _prepared_lock:
        if digest not in _prepared:
            folder = tempfile.mkdtemp(prefix="fmu3d-sweep-", dir=_scratch())
            atexit.register(shutil.rmtree, folder, True)
            archive = os.path.join(folder, "model.fmu")
            with open(archive, "wb") as file:
                file.write(data)
            unzipped = fmpy.extract(archive, unzipdir=os.path.join(folder, "extracted"))
            _prepared[digest] = (unzipped, fmpy.read_model_description(unzipped))
        return _prepared[digest]


def run_case(data, digest, case_id, start_values, experiment):
    """Runs case `case_id`; returns its record: {"case", "status" ("ok" or "failed"), "error",
    "finals" ({output: value at the stop time}), "series" (structured array of time and the
    outputs, or None), "seconds" (wall time of the run, the FMU's preparation not included)}."""
    unzipped, description = prepared(digest, data)
    started = time.perf_counter()
    messages = []

    def log(component, instance, status, category, message):
        if status >= _FMI2_WARNING:
            messages.append(message.decode("utf-8", "replace").strip())
            del messages[:-_KEPT_MESSAGES]

    record = {"case": case_id, "status": "ok", "error": None, "finals": None, "series": None}
    try:
        result = fmpy.simulate_fmu(
            unzipped,
            model_description=description,
            start_values={**dict(experiment.fixed), **start_values},
            start_time=experiment.start_time,
            stop_time=experiment.stop_time,
            output_interval=experiment.step,
            relative_tolerance=experiment.tolerance,
            timeout=experiment.timeout,
            output=list(experiment.outputs),
            logger=log,
        )
    except Exception as error:  # fmpy raises plain Exceptions for failed FMI calls
        record.update(status="failed", error=" | ".join([str(error), *messages]))
    else:
        end = float(result["time"][-1])
        if not math.isclose(end, experiment.stop_time, rel_tol=1e-9, abs_tol=1e-12):
            # fmpy ends a run early without an exception: on its timeout, when the FMU asks to
            # terminate, or before a last step shorter than the others that the FMU cannot take.
            timed_out = experiment.timeout is not None and \
                time.perf_counter() - started > experiment.timeout
            why = (f"the timeout of {experiment.timeout:g} s passed" if timed_out else
                   "the FMU asked to terminate, or cannot take the shorter last step to it")
            record.update(status="failed", error=" | ".join(
                [f"the run ended at t = {end:g} s, before the stop time "
                 f"{experiment.stop_time:g} s: {why}", *messages]))
        else:
            record["finals"] = {name: float(result[name][-1]) for name in experiment.outputs}
            if experiment.time_series:
                record["series"] = result
    record["seconds"] = time.perf_counter() - started
    return record


def run_cases(data, digest, work, experiment):
    """The records of the cases `work`, a list of (case id, start values), run one by one."""
    return [run_case(data, digest, case_id, start_values, experiment)
            for case_id, start_values in work]
