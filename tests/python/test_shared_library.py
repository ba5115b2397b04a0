"""The FMU's shared library as the importer's dynamic loader sees it: it needs only the C
runtime, exports only the FMI functions (so two FMUs, or an FMU and its importer, cannot clash
on SUNDIALS or Rust symbols), and runs on glibc versions at least as old as today's."""

import re
import subprocess
import zipfile

import fmpy
import pytest

from conftest import MODELS

ALLOWED_NEEDED = {
    "libc.so.6",
    "libm.so.6",
    "libgcc_s.so.1",
    "ld-linux-x86-64.so.2",
    "libpthread.so.0",
    "libdl.so.2",
    "librt.so.1",
}

# The newest glibc symbol version the library needs, as measured when this test was written
# (objdump -T). A ceiling to keep, not a target: raising it drops the Linux distributions with
# an older glibc, so do it only on purpose; lowering it when the library needs less is welcome.
GLIBC_CEILING = (2, 34)


@pytest.fixture(scope="module")
def libraries(fmus, tmp_path_factory):
    """{model name: path of the FMU's binaries/linux64/<modelIdentifier>.so, extracted}."""
    folder = tmp_path_factory.mktemp("libraries")
    extracted = {}
    for name, fmu in fmus.items():
        identifier = fmpy.read_model_description(str(fmu)).coSimulation.modelIdentifier
        entry = f"binaries/linux64/{identifier}.so"
        with zipfile.ZipFile(fmu) as archive:
            assert entry in archive.namelist(), f"{name}: no {entry}"
            extracted[name] = archive.extract(entry, folder / name)
    return extracted


def tool(*args):
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


@pytest.mark.parametrize("name", MODELS)
def test_needs_only_the_c_runtime(libraries, name):
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", tool("readelf", "-d", libraries[name]))
    assert needed, "readelf found no NEEDED entry at all"
    assert set(needed) <= ALLOWED_NEEDED, f"{name}: unexpected {set(needed) - ALLOWED_NEEDED}"


@pytest.mark.parametrize("name", MODELS)
def test_exports_only_fmi2_functions(libraries, name):
    symbols = []
    for line in tool("nm", "-D", "--defined-only", libraries[name]).splitlines():
        parts = line.split()
        if len(parts) >= 3:
            symbols.append((parts[1], parts[2]))
    names = {symbol for _, symbol in symbols}
    others = sorted(symbol for symbol in names if not symbol.startswith("fmi2"))
    assert others == [], f"{name}: exports {others[:20]}"
    # The Co-Simulation functions are there, as functions (type T).
    for function in ("fmi2Instantiate", "fmi2DoStep", "fmi2GetReal", "fmi2FreeInstance"):
        assert ("T", function) in symbols, function


@pytest.mark.parametrize("name", MODELS)
def test_needs_no_glibc_newer_than_the_ceiling(libraries, name):
    versions = {
        tuple(int(part) for part in v.split("."))
        for v in re.findall(r"GLIBC_(\d+(?:\.\d+)+)", tool("objdump", "-T", libraries[name]))
    }
    assert versions, "objdump found no GLIBC symbol version"
    newest = max(versions)
    print(f"{name}: needs glibc {'.'.join(map(str, newest))} "
          f"(ceiling {'.'.join(map(str, GLIBC_CEILING))})")
    assert newest <= GLIBC_CEILING
