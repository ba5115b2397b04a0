"""One output over a sweep, as a PNG: its final value against a swept parameter, or its time
series in every case, coloured by a swept parameter. Failed cases are left out and counted in the
title. Matplotlib's Agg backend: no display needed (workers, CI, ssh sessions)."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

from . import results  # noqa: E402
from .errors import UsageError  # noqa: E402
from .variables import unknown  # noqa: E402

#: A grid's other parameters get one line per combination up to this many; else points.
MAX_LINES = 8


def _choose(meta, output, against):
    if output not in meta["outputs"]:
        raise unknown("output", output, meta["outputs"], "the sweep")
    parameters = meta["parameters"]
    against = against or parameters[0]
    if against not in parameters:
        raise unknown("parameter", against, parameters, "the sweep")
    return against, [name for name in parameters if name != against]


def _title(meta, what, frame):
    failed = int((frame["status"] != "ok").sum())
    note = f" ({failed} failed case{'s' * (failed != 1)} not shown)" if failed else ""
    return f"{meta['model']}: {what}{note}"


def _save(figure, path):
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def plot_finals(results_path, output, path, against=None):
    """The final value of `output` against the swept parameter `against` (default: the first)."""
    frame, meta = results.read(results_path)
    against, others = _choose(meta, output, against)
    ok = frame[frame["status"] == "ok"]
    if ok.empty:
        raise UsageError(f"{results_path}: no case ran ok, nothing to plot")
    figure, axes = plt.subplots(figsize=(7, 4.5))
    groups = ok.groupby(others, sort=True) if others else [((), ok)]
    if meta["sampling"]["kind"] == "grid" and len(groups) <= MAX_LINES:
        for key, group in groups:
            key = key if isinstance(key, tuple) else (key,)
            label = ", ".join(f"{name} = {value:g}" for name, value in zip(others, key))
            group = group.sort_values(against)
            axes.plot(group[against], group[output], marker="o", markersize=3,
                      label=label or None)
        if others:
            axes.legend(fontsize="small")
    else:
        axes.plot(ok[against], ok[output], linestyle="none", marker=".", alpha=0.6)
    axes.set_xlabel(against)
    axes.set_ylabel(f"{output} at t = {meta['stop_time']:g} s")
    axes.grid(True, alpha=0.3)
    axes.set_title(_title(meta, f"{output} over {len(frame)} cases", frame), fontsize="medium")
    _save(figure, path)


def plot_series(results_path, series_path, output, path, against=None):
    """The time series of `output` in every case that ran, coloured by `against`."""
    frame, meta = results.read(results_path)
    series, series_meta = results.read(series_path)
    if series_meta.get("sweep_id") != meta.get("sweep_id"):
        raise UsageError(f"{series_path} is not the time series of the sweep in {results_path}")
    against, _ = _choose(meta, output, against)
    values = frame.set_index("case")[against]
    low, high = float(values.min()), float(values.max())
    norm = matplotlib.colors.Normalize(low, high if high > low else low + 1)
    colours = matplotlib.colormaps["viridis"]
    cases = series.groupby("case", sort=True)
    if not len(cases):
        raise UsageError(f"{series_path}: no case ran ok, nothing to plot")
    figure, axes = plt.subplots(figsize=(7, 4.5))
    width, alpha = (1.0, 0.9) if len(cases) <= 50 else (0.5, max(0.05, 50 / len(cases)))
    for case_id, run in cases:
        axes.plot(run["time"], run[output], color=colours(norm(values[case_id])),
                  linewidth=width, alpha=alpha)
    figure.colorbar(matplotlib.cm.ScalarMappable(norm=norm, cmap=colours), ax=axes,
                    label=against)
    axes.set_xlabel("time [s]")
    axes.set_ylabel(output)
    axes.grid(True, alpha=0.3)
    axes.set_title(_title(meta, f"{output} in {len(cases)} runs", frame), fontsize="medium")
    _save(figure, path)


def png_size(path):
    """(width, height) of a PNG file, read from its header."""
    with open(path, "rb") as file:
        header = file.read(24)
    if header[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path} is not a PNG file")
    return int.from_bytes(header[16:20], "big"), int.from_bytes(header[20:24], "big")

