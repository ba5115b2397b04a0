"""`python -m fmu3d_sweep` is the `fmu3d-sweep` command."""

import sys

from .cli import main

if __name__ == "__main__":  # Dask's worker processes import this module again without running it
    sys.exit(main())
