"""fmu3d-sweep: runs an FMU over a parameter grid or random samples on Dask and collects the
final values (and optionally the time series) of chosen outputs into Parquet files.

Modules by what they do: `sampling` (the sample table), `variables` (names checked against the
FMU's modelDescription), `case` (one run, on a worker), `driver` (Dask: submission, retries,
progress, the exactly-once check), `results` (the Parquet files), `plot` (PNG), `cli`.
"""

__version__ = "0.1.0"
