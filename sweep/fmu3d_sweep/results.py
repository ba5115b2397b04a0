"""The Parquet files of a sweep (layout: docs/sweep.md, "Results").

The results file has one row per case, in case id order: `case`, the swept parameters, the final
value of each output (NaN for a failed case), `status` ("ok" or "failed"), `error` (the error
text of a failed case, else null), `attempts` (how many times it was submitted) and `seconds`
(the wall time of its run). The optional time-series file is long: one row per case and
communication point, `case`, `time` and the outputs. Both carry, under the schema metadata key
`fmu3d-sweep`, a JSON object describing the sweep (the FMU, the experiment, the sampling, which
columns are parameters and outputs), which `plot` reads back.
"""

import json
from collections import Counter

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from .errors import SweepError, UsageError

METADATA_KEY = b"fmu3d-sweep"


def check_exactly_once(case_ids, total):
    """Every case id of 0..total-1 occurs once: none lost, none counted twice."""
    counts = Counter(int(case_id) for case_id in case_ids)
    twice = sorted(case_id for case_id, count in counts.items() if count > 1)
    missing = sorted(set(range(total)) - counts.keys())
    stray = sorted(counts.keys() - set(range(total)))
    problems = []
    for ids, what in ((missing, "missing"), (twice, "more than once"),
                      (stray, "not in the sample table")):
        if ids:
            shown = ", ".join(map(str, ids[:10])) + (", ..." if len(ids) > 10 else "")
            problems.append(f"{len(ids)} case(s) {what}: {shown}")
    if problems:
        raise SweepError("the results are not one per case: " + "; ".join(problems))


def results_frame(records, cases, outputs):
    """The results table of the records of `driver.run_sweep` and the sample table."""
    check_exactly_once([record["case"] for record in records], len(cases))
    records = sorted(records, key=lambda record: record["case"])
    frame = pd.DataFrame({"case": np.arange(len(cases), dtype=np.int64)})
    for name in cases.columns:
        frame[name] = cases[name].to_numpy(dtype=float)
    for name in outputs:
        frame[name] = [record["finals"][name] if record["finals"] else np.nan
                       for record in records]
    frame["status"] = pd.array([record["status"] for record in records], dtype="string")
    frame["error"] = pd.array([record["error"] for record in records], dtype="string")
    frame["attempts"] = np.array([record["attempts"] for record in records], dtype=np.int64)
    frame["seconds"] = np.array([record["seconds"] for record in records], dtype=float)
    return frame


def series_frame(records, outputs):
    """The long time-series table of the cases that ran."""
    parts = []
    for record in records:
        series = record["series"]
        if series is None:
            continue
        part = pd.DataFrame({"case": np.full(len(series), record["case"], dtype=np.int64),
                             "time": series["time"]})
        for name in outputs:
            part[name] = series[name]
        parts.append(part)
    if not parts:
        return pd.DataFrame({"case": pd.Series(dtype=np.int64), "time": pd.Series(dtype=float),
                             **{name: pd.Series(dtype=float) for name in outputs}})
    return pd.concat(parts, ignore_index=True)


def write(frame, path, metadata):
    """Writes a table with the sweep's description in its schema metadata."""
    table = pa.Table.from_pandas(frame, preserve_index=False)
    table = table.replace_schema_metadata(
        {**(table.schema.metadata or {}), METADATA_KEY: json.dumps(metadata).encode()})
    pq.write_table(table, path)


def read(path):
    """(DataFrame, sweep description) of a file written by `write`."""
    try:
        table = pq.read_table(path)
    except (OSError, pa.ArrowException) as error:
        raise UsageError(f"{path}: not a readable Parquet file ({error})") from None
    raw = (table.schema.metadata or {}).get(METADATA_KEY)
    if raw is None:
        raise UsageError(f"{path}: not written by fmu3d-sweep (no {METADATA_KEY.decode()} "
                         f"metadata)")
    return table.to_pandas(), json.loads(raw)
