"""The `fmu3d-sweep` command: `run` a sweep, `plot` one output of it, `bench` runs per second
against the number of workers (docs/sweep.md)."""

import argparse
import os
import secrets
import sys
import time
import uuid
from pathlib import Path

from . import __version__, results, sampling
from .case import Experiment
from .errors import SweepError, UsageError
from .variables import check_names, describe

PROGRAM = "fmu3d-sweep"


def _sampling_options(parser):
    group = parser.add_argument_group("the cases (a grid, or random samples)")
    group.add_argument("--grid", action="append", default=[], metavar="NAME=START:STOP:COUNT",
                       help="values of a parameter: COUNT evenly spaced from START to STOP, or "
                            "a list v1,v2,...; several --grid make their Cartesian product")
    group.add_argument("--samples", type=int, metavar="N", help="N random cases")
    group.add_argument("--uniform", action="append", default=[], metavar="NAME=LO:HI",
                       help="a parameter drawn uniformly from [LO, HI)")
    group.add_argument("--normal", action="append", default=[], metavar="NAME=MEAN:SD",
                       help="a parameter drawn from a normal distribution")
    group.add_argument("--seed", type=int, help="seed of the random samples (default: a new "
                       "one, recorded in the results file)")
    group.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                       help="a start value shared by every case")
    experiment = parser.add_argument_group("the runs")
    experiment.add_argument("--outputs", nargs="+", required=True, metavar="VAR",
                            help="variables whose final values (and time series) are collected")
    experiment.add_argument("--stop-time", type=float, metavar="T",
                            help="stop time [s] (default: the FMU's default experiment)")
    experiment.add_argument("--step", type=float, metavar="H", help="communication step [s] "
                            "(default: the FMU's default experiment)")
    experiment.add_argument("--start-time", type=float, metavar="T0", help="start time [s]")
    experiment.add_argument("--tolerance", type=float, help="relative tolerance of the FMU's "
                            "integrator (default: the FMU's default experiment)")
    experiment.add_argument("--timeout", type=float, metavar="SECONDS",
                            help="wall time after which a run is stopped and recorded failed")


def _cluster_options(parser, many_workers=False):
    group = parser.add_argument_group("where the runs go")
    if many_workers:
        group.add_argument("--workers", type=int, nargs="+", default=[1, 2, 3, 4], metavar="N",
                           help="worker counts to measure (default: 1 2 3 4)")
    else:
        group.add_argument("--workers", type=int, metavar="N", help="worker processes of the "
                           "local cluster (default: one per core, at most one per case)")
        group.add_argument("--scheduler", metavar="ADDRESS", help="a running Dask scheduler, "
                           "e.g. tcp://10.0.0.5:8786, instead of a local cluster")
    group.add_argument("--chunk", type=int, metavar="C", help="cases per task (default: up to "
                       "16 for large sweeps, keeping 8 tasks per worker; 1 for small ones)")
    group.add_argument("--retries", type=int, default=3, metavar="K", help="times a case whose "
                       "run did not come back (its worker died) is submitted again; a case "
                       "the FMU fails is never retried (default: 3)")


def parser():
    top = argparse.ArgumentParser(
        prog=PROGRAM, description="Parameter sweeps, Monte Carlo and tolerance studies of an "
        "FMU on Dask, collected into Parquet files.")
    top.add_argument("--version", action="version", version=f"{PROGRAM} {__version__}")
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = commands.add_parser("run", help="run an FMU over a grid or random samples",
                              description="Runs FMU once per case and writes one row per case.")
    run.add_argument("fmu", metavar="FMU")
    _sampling_options(run)
    _cluster_options(run)
    out = run.add_argument_group("results")
    out.add_argument("-o", "--output", required=True, metavar="RESULTS.parquet",
                     help="the results file: one row per case")
    out.add_argument("--time-series", metavar="SERIES.parquet",
                     help="also write every run's time series of the outputs to this file")
    out.add_argument("-q", "--quiet", action="store_true", help="no progress line")

    plot = commands.add_parser("plot", help="plot one output of a sweep (PNG)",
                               description="The final value of VAR against a swept parameter, "
                               "or with --time-series its time series in every run.")
    plot.add_argument("results", metavar="RESULTS.parquet")
    plot.add_argument("variable", metavar="VAR")
    plot.add_argument("-o", "--output", required=True, metavar="PLOT.png")
    plot.add_argument("--against", metavar="PARAM", help="the swept parameter on the x axis, "
                      "or the colour of the time series (default: the first)")
    plot.add_argument("--time-series", metavar="SERIES.parquet",
                      help="plot the time series of every run from this file")

    bench = commands.add_parser("bench", help="runs per second against the number of workers",
                                description="Runs the same sweep on local clusters of each "
                                "worker count and prints the runs per second.")
    bench.add_argument("fmu", metavar="FMU")
    bench.add_argument("--repeat", type=int, default=3, metavar="R", help="sweeps per worker "
                       "count; the fastest counts, the others ran beside other load "
                       "(default: 3)")
    _sampling_options(bench)
    _cluster_options(bench, many_workers=True)
    return top


def _writable(path, option):
    folder = Path(path).resolve().parent
    if not folder.is_dir():
        raise UsageError(f"{option} {path}: the folder {folder} does not exist")


def prepare(args):
    """The FMU's bytes, the sample table, the experiment and the sweep's description, all
    checked before anything runs."""
    cases = sampling.sample_table(args.grid, args.samples, args.uniform, args.normal, args.seed)
    fixed = sampling.fixed_values(args.set)
    description = describe(args.fmu)
    check_names(description, [*cases.columns, *fixed], args.outputs)
    default = description.defaultExperiment
    stop_time = args.stop_time if args.stop_time is not None else (
        default.stopTime if default and default.stopTime is not None else None)
    if stop_time is None:
        raise UsageError(f"{args.fmu} has no default stop time: give --stop-time")
    step = args.step if args.step is not None else (
        default.stepSize if default and default.stepSize is not None else None)
    for value, option in ((stop_time, "--stop-time"), (step, "--step"),
                          (args.timeout, "--timeout")):
        if value is not None and not float(value) > 0:
            raise UsageError(f"{option} must be positive")
    if args.retries < 0:
        raise UsageError("--retries must not be negative")
    if args.chunk is not None and args.chunk < 1:
        raise UsageError("--chunk must be at least 1")
    experiment = Experiment(
        outputs=tuple(args.outputs), stop_time=float(stop_time),
        step=None if step is None else float(step), start_time=args.start_time,
        tolerance=args.tolerance, timeout=args.timeout, fixed=tuple(fixed.items()),
        time_series=bool(getattr(args, "time_series", None)))
    if args.grid:
        sampling_kind = {"kind": "grid", "grid": args.grid}
    else:
        sampling_kind = {"kind": "random", "samples": args.samples, "uniform": args.uniform,
                         "normal": args.normal, "seed": args.seed}
    metadata = {
        "sweep_id": uuid.uuid4().hex, "fmu": Path(args.fmu).name,
        "model": description.modelName, "guid": description.guid,
        "parameters": list(cases.columns), "fixed": fixed, "outputs": list(args.outputs),
        "start_time": args.start_time, "stop_time": experiment.stop_time,
        "step": experiment.step, "tolerance": args.tolerance, "sampling": sampling_kind,
        "fmu3d_sweep": __version__,
    }
    return Path(args.fmu).read_bytes(), cases, experiment, metadata


def _run(args):
    from .driver import Progress, chunk_size, connect, run_sweep  # dask: only where used

    if args.scheduler and args.workers:
        raise UsageError("give either --workers (a local cluster) or --scheduler, not both")
    if args.workers is not None and args.workers < 1:
        raise UsageError("--workers must be at least 1")
    _writable(args.output, "-o")
    if args.time_series:
        _writable(args.time_series, "--time-series")
    if args.samples is not None and args.seed is None:
        args.seed = secrets.randbits(63)  # drawn here so that the file can record it
    data, cases, experiment, metadata = prepare(args)
    workers = args.workers or min(os.cpu_count() or 1, len(cases))
    started = time.monotonic()
    with connect(workers=workers, scheduler=args.scheduler) as client:
        if args.scheduler:
            workers = len(client.scheduler_info()["workers"])
            if not workers:
                print(f"{PROGRAM}: the scheduler at {args.scheduler} has no workers yet; the "
                      f"cases wait for the first one", file=sys.stderr)
        progress = None if args.quiet else Progress(len(cases))
        records = run_sweep(client, data, cases, experiment, retries=args.retries,
                            progress=progress,
                            chunk=args.chunk or chunk_size(len(cases), workers))
    elapsed = time.monotonic() - started
    results.write(results.results_frame(records, cases, experiment.outputs), args.output,
                  {**metadata, "time_series": args.time_series})
    if args.time_series:
        results.write(results.series_frame(records, experiment.outputs), args.time_series,
                      {**metadata, "time_series": args.time_series})
    failed = [record for record in records if record["status"] != "ok"]
    for record in failed[:5]:
        print(f"{PROGRAM}: case {record['case']} failed: {record['error']}", file=sys.stderr)
    if len(failed) > 5:
        print(f"{PROGRAM}: ... and {len(failed) - 5} more failed cases (column `error`)",
              file=sys.stderr)
    retried = sum(record["attempts"] - 1 for record in records)
    print(f"wrote {args.output}: {len(records)} cases, {len(records) - len(failed)} ok, "
          f"{len(failed)} failed, {retried} resubmitted, in {elapsed:.1f} s on {workers} "
          f"worker{'s' * (workers != 1)}")
    return 0


def _plot(args):
    from . import plot

    _writable(args.output, "-o")
    if args.time_series:
        plot.plot_series(args.results, args.time_series, args.variable, args.output,
                         args.against)
    else:
        plot.plot_finals(args.results, args.variable, args.output, args.against)
    width, height = plot.png_size(args.output)
    print(f"wrote {args.output} ({width}x{height})")
    return 0


def _cpu_seconds():
    """User + system CPU time of this process so far."""
    import psutil  # a dependency of distributed

    times = psutil.Process().cpu_times()
    return times.user + times.system


def _bench(args):
    from .driver import chunk_size, connect, run_sweep

    if any(count < 1 for count in args.workers):
        raise UsageError("--workers counts must be at least 1")
    if args.repeat < 1:
        raise UsageError("--repeat must be at least 1")
    if args.samples is not None and args.seed is None:
        args.seed = 0  # the same cases for every worker count
    data, cases, experiment, _ = prepare(args)
    print(f"{len(cases)} cases of {Path(args.fmu).name}, outputs {' '.join(args.outputs)}, "
          f"stop time {experiment.stop_time:g} s; best and median of {args.repeat} sweeps; "
          f"cores: CPU seconds per second of the best sweep, of the workers and of this process "
          f"(client and scheduler)")
    print("workers  cases/task  best [s]  runs/s  median runs/s  speed-up  worker cores  "
          "driver cores")
    baseline = None
    for count in args.workers:
        chunk = args.chunk or chunk_size(len(cases), count)
        sweeps = []  # (runs/s, worker CPU s, driver CPU s)
        with connect(workers=count) as client:
            # Warm-up: every worker imports fmpy and extracts the FMU before the clock starts.
            warm = cases.iloc[: 2 * count].reset_index(drop=True)
            run_sweep(client, data, warm, experiment, retries=args.retries)
            for _ in range(args.repeat):
                workers_before, driver_before = client.run(_cpu_seconds), _cpu_seconds()
                started = time.perf_counter()
                records = run_sweep(client, data, cases, experiment, retries=args.retries,
                                    chunk=chunk)
                elapsed = time.perf_counter() - started
                workers_after, driver_after = client.run(_cpu_seconds), _cpu_seconds()
                results.check_exactly_once([record["case"] for record in records], len(cases))
                failed = sum(record["status"] != "ok" for record in records)
                if failed:
                    raise SweepError(f"{failed} cases failed with {count} workers: not a fair "
                                     f"measure")
                worker_cpu = sum(workers_after[w] - workers_before.get(w, 0.0)
                                 for w in workers_after)
                sweeps.append((len(cases) / elapsed, worker_cpu / elapsed,
                               (driver_after - driver_before) / elapsed))
        rates = sorted(rate for rate, _, _ in sweeps)
        best, worker_cores, driver_cores = max(sweeps)
        baseline = baseline or best
        print(f"{count:7d}  {chunk:10d}  {len(cases) / best:8.2f}  {best:6.1f}  "
              f"{rates[len(rates) // 2]:13.1f}  {best / baseline:8.2f}  {worker_cores:12.2f}  "
              f"{driver_cores:12.2f}", flush=True)
    return 0


def main(argv=None):
    args = parser().parse_args(argv)
    try:
        return {"run": _run, "plot": _plot, "bench": _bench}[args.command](args)
    except UsageError as error:
        print(f"{PROGRAM}: error: {error}", file=sys.stderr)
        return 2
    except SweepError as error:
        print(f"{PROGRAM}: error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{PROGRAM}: interrupted", file=sys.stderr)
        return 130
