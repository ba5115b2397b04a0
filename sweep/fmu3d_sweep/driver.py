"""The cases on Dask: one task per case, or per chunk of consecutive cases when the runs are
many, collected by case id as the tasks complete.

Worker deaths. A task whose runs do not come back (its worker died: Dask's KilledWorker; the
worker's data was lost; the FMU could not be prepared on that worker) is submitted again, as a
new task with the same cases, up to `retries` times; after that its cases are recorded as failed
with the last error. A case that the FMU itself fails comes back as a `failed` record (see
`case`) and is never resubmitted: a model that cannot run those parameters would fail again. The
local cluster is made with Dask's `allowed-failures` at 0, so that a worker's death reaches this
loop at once and `retries` is the one bound on how often a case runs; a remote scheduler applies
its own `allowed-failures` first.

Results are kept by case id, and a second record for a case stops the sweep: with retries, a
case counted twice would weigh twice in a Monte Carlo mean. `results.check_exactly_once` checks
the final table again before it is written.
"""

import contextlib
import logging
import os
import sys
import time
import uuid

import dask
from distributed import Client, LocalCluster, as_completed

from .case import fmu_digest, run_cases
from .errors import SweepError


@contextlib.contextmanager
def connect(workers=None, scheduler=None):
    """A Client of the scheduler at `scheduler`, or of a new LocalCluster of `workers`
    processes (default: one per core) with one thread each: the FMU runs hold the GIL in
    fmpy's Python loop, so threads would not run them in parallel."""
    if scheduler:
        try:
            client = Client(scheduler, timeout="20s")
        except OSError as error:
            raise SweepError(f"cannot reach the Dask scheduler at {scheduler}: {error}") from None
        with client:
            yield client
        return
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
        cluster = LocalCluster(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1,
                               processes=True, dashboard_address=":0",
                               silence_logs=logging.CRITICAL)
    with cluster, Client(cluster) as client:
        yield client


class Progress:
    """`sweep: done/total cases, failed, rate, ETA` on stderr: one line rewritten in place on a
    terminal; in a log, a new line every `interval` seconds and at the end."""

    def __init__(self, total, stream=None, interval=5.0):
        self.total, self.stream = total, stream or sys.stderr
        self.terminal = self.stream.isatty()
        self.interval = 0.2 if self.terminal else interval
        self.started = time.monotonic()
        self.shown = self.started

    def update(self, done, failed, resubmitted):
        now = time.monotonic()
        last = done == self.total
        if not last and now - self.shown < self.interval:
            return
        self.shown = now
        elapsed = max(now - self.started, 1e-9)
        rate = done / elapsed
        eta = f"ETA {(self.total - done) / rate:.0f} s" if 0 < done < self.total else (
            f"{elapsed:.1f} s" if last else "ETA ?")
        line = (f"sweep: {done}/{self.total} cases, {failed} failed, {resubmitted} resubmitted, "
                f"{rate:.1f} runs/s, {eta}")
        end = ("\n" if last else "") if self.terminal else "\n"
        self.stream.write(("\r\033[K" if self.terminal else "") + line + end)
        self.stream.flush()


def chunk_size(cases, workers):
    """Cases per task: runs of a few milliseconds cost less than Dask's own work per task, so
    large sweeps group up to 16 consecutive cases, keeping at least 8 tasks per worker for the
    balance of the load and for short retries."""
    return max(1, min(16, cases // (8 * max(workers, 1))))


def run_sweep(client, fmu_data, cases, experiment, retries=3, progress=None, chunk=1):
    """Runs every row of the sample table `cases` (case id = row position) with `experiment`,
    `chunk` consecutive cases per task; returns the records of `case.run_case`, one per case in
    case id order, each with its `attempts`."""
    digest = fmu_digest(fmu_data)
    token = uuid.uuid4().hex[:12]  # task keys unique on a scheduler shared by several sweeps
    names = list(cases.columns)
    rows = cases.to_numpy(dtype=float)
    # hash=False: a key of its own, not shared with another sweep of the same FMU, whose end
    # releases its copy (sharing one key, a release can race the next scatter and lose the FMU).
    data = client.scatter(fmu_data, broadcast=True, hash=False)
    owner = {}  # task future -> (its case ids, attempt, the FMU's future it used)

    def submit(ids, attempt, lost=None):
        nonlocal data
        # Every worker holding the FMU died, or the scheduler lost it: send it again (once, not
        # for each of the tasks that failed for it).
        if data.status != "finished" or lost is data:
            data = client.scatter(fmu_data, broadcast=True, hash=False)
        work = [(case_id, dict(zip(names, map(float, rows[case_id])))) for case_id in ids]
        future = client.submit(
            run_cases, data, digest, work, experiment, pure=False,
            key=f"fmu3d-sweep-{token}-cases-{ids[0]}-{ids[-1]}-attempt-{attempt}")
        owner[future] = (ids, attempt, data)
        return future

    records, failed, resubmitted = {}, 0, 0
    queue = as_completed([submit(range(first, min(first + chunk, len(rows))), 1)
                          for first in range(0, len(rows), chunk)])
    try:
        for batch in queue.batches():
            for future, outcome in zip(batch, _gather(client, batch)):
                ids, attempt, used = owner.pop(future)
                future.release()  # a collected result must not be recomputed if its worker dies
                if isinstance(outcome, Exception):  # the runs did not come back: see above
                    if attempt <= retries:
                        lost = used if "lost dependencies" in str(outcome) else None
                        queue.add(submit(ids, attempt + 1, lost))
                        resubmitted += len(ids)
                        continue
                    outcome = [{"case": case_id, "status": "failed", "finals": None,
                                "series": None, "seconds": None,
                                "error": f"no result after {attempt} attempts, the last: "
                                         f"{type(outcome).__name__}: {outcome}"}
                               for case_id in ids]
                if [record["case"] for record in outcome] != list(ids):
                    raise SweepError(f"the task of cases {ids[0]}..{ids[-1]} returned cases "
                                     f"{[record['case'] for record in outcome]}")
                for record in outcome:
                    if record["case"] in records:
                        raise SweepError(f"case {record['case']} came back twice")
                    records[record["case"]] = {**record, "attempts": attempt}
                    failed += record["status"] != "ok"
            if progress is not None:
                progress.update(len(records), failed, resubmitted)
    finally:
        if owner:  # interrupted: leave nothing running on a shared cluster
            client.cancel(list(owner))
    return [records[case_id] for case_id in sorted(records)]


def _gather(client, futures):
    """The results of completed futures, an exception in place of each that has none: one
    round trip for the whole batch (per future, the driver would wait on every short run)."""
    finished = [future for future in futures if future.status == "finished"]
    try:
        values = dict(zip(finished, client.gather(finished)))
    except Exception:  # a result was lost after its task finished: one by one, below
        values = {}
    outcomes = []
    for future in futures:
        try:
            outcomes.append(values[future] if future in values else future.result())
        except Exception as error:
            outcomes.append(error)
    return outcomes
