"""The sample table: which parameter values each case runs with.

A table is a pandas DataFrame with one column per swept parameter and one row per case; the row's
position is the case id, which stays attached to the case through the runs, the retries and the
results file. Two kinds of tables:

- a grid, the Cartesian product of per-parameter value lists (`NAME=START:STOP:COUNT`, evenly
  spaced with both ends included, or `NAME=v1,v2,...`); the first parameter varies slowest;
- random samples, N draws of independent distributions (`NAME=LO:HI` uniform, `NAME=MEAN:SD`
  normal) from one seeded generator, so that a seed gives the same table on every machine.
"""

import itertools
import math

import numpy as np
import pandas as pd

from .errors import UsageError


def _number(text, spec):
    try:
        value = float(text)
    except ValueError:
        raise UsageError(f"{spec!r}: {text!r} is not a number") from None
    if not math.isfinite(value):
        raise UsageError(f"{spec!r}: {text!r} is not a finite number")
    return value


def split_assignment(spec):
    """`NAME=TEXT` as (NAME, TEXT)."""
    name, equals, text = spec.partition("=")
    if not equals or not name.strip() or not text.strip():
        raise UsageError(f"{spec!r}: expected NAME=VALUE")
    return name.strip(), text.strip()


def grid_values(spec):
    """(name, values) of `NAME=START:STOP:COUNT` or `NAME=v1,v2,...`."""
    name, text = split_assignment(spec)
    if ":" in text:
        parts = text.split(":")
        if len(parts) != 3:
            raise UsageError(f"{spec!r}: a range is START:STOP:COUNT")
        start, stop = _number(parts[0], spec), _number(parts[1], spec)
        count = _number(parts[2], spec)
        if count != int(count) or count < 1:
            raise UsageError(f"{spec!r}: COUNT must be a whole number >= 1")
        if count == 1 and start != stop:
            raise UsageError(f"{spec!r}: one value cannot span {start}..{stop}; give COUNT >= 2")
        return name, np.linspace(start, stop, int(count))
    return name, np.array([_number(part.strip(), spec) for part in text.split(",")])


def _two_numbers(spec, what):
    name, text = split_assignment(spec)
    parts = text.split(":")
    if len(parts) != 2:
        raise UsageError(f"{spec!r}: expected NAME={what}")
    return name, _number(parts[0], spec), _number(parts[1], spec)


def uniform(spec):
    """(name, draw) of `NAME=LO:HI`: draw(rng, n) gives n values uniform in [LO, HI)."""
    name, low, high = _two_numbers(spec, "LO:HI")
    if not low < high:
        raise UsageError(f"{spec!r}: LO must be below HI")
    return name, lambda rng, n: rng.uniform(low, high, n)


def normal(spec):
    """(name, draw) of `NAME=MEAN:SD`: draw(rng, n) gives n normal values."""
    name, mean, sd = _two_numbers(spec, "MEAN:SD")
    if sd < 0:
        raise UsageError(f"{spec!r}: SD must not be negative")
    return name, lambda rng, n: rng.normal(mean, sd, n)


def _unique(names):
    seen = set()
    for name in names:
        if name in seen:
            raise UsageError(f"the parameter {name!r} is given more than once")
        seen.add(name)


def grid(specs):
    """The Cartesian product of the `--grid` specs: one case per combination."""
    axes = [grid_values(spec) for spec in specs]
    _unique(name for name, _ in axes)
    rows = list(itertools.product(*(values for _, values in axes)))
    return pd.DataFrame(rows, columns=[name for name, _ in axes], dtype=float)


def random_samples(count, uniform_specs=(), normal_specs=(), seed=None):
    """`count` cases of independent draws; the parameters are drawn in the order given,
    uniform ones first, each as one vector, so a table depends only on the specs and the seed."""
    if count < 1:
        raise UsageError("--samples must be at least 1")
    draws = [uniform(spec) for spec in uniform_specs] + [normal(spec) for spec in normal_specs]
    if not draws:
        raise UsageError("--samples needs at least one --uniform or --normal parameter")
    _unique(name for name, _ in draws)
    rng = np.random.default_rng(seed)
    return pd.DataFrame({name: draw(rng, count) for name, draw in draws}, dtype=float)


def fixed_values(specs):
    """{name: value} of the `--set NAME=VALUE` specs: start values shared by every case."""
    values = {}
    for spec in specs:
        name, text = split_assignment(spec)
        if name in values:
            raise UsageError(f"the parameter {name!r} is given more than once")
        values[name] = _number(text, spec)
    return values


def sample_table(grid_specs=(), samples=None, uniform_specs=(), normal_specs=(), seed=None):
    """The table of a command line: a grid or random samples, not both."""
    random_given = samples is not None or uniform_specs or normal_specs
    if grid_specs and random_given:
        raise UsageError("give either --grid or --samples with --uniform/--normal, not both")
    if grid_specs:
        return grid(grid_specs)
    if samples is None:
        if random_given:
            raise UsageError("--uniform and --normal need --samples N")
        raise UsageError("nothing to sweep: give --grid NAME=START:STOP:COUNT or "
                         "--samples N with --uniform/--normal")
    return random_samples(samples, uniform_specs, normal_specs, seed)
