"""The FMU's shared library as the importer's dynamic loader sees it: it needs only the C
runtime, exports exactly the 44 functions of the official fmi2Functions.h and nothing else (every
one a loader may bind, Model Exchange included; no SUNDIALS or Rust symbol two FMUs, or an FMU
and its importer, could clash on), and loads on glibc 2.17 and newer."""

import re
import subprocess
import zipfile

import fmpy
import pytest

from conftest import MODELS, fmi2_function_names

ALLOWED_NEEDED = {
    "libc.so.6",
    "libm.so.6",
    "libgcc_s.so.1",
    "ld-linux-x86-64.so.2",
    "libpthread.so.0",
    "libdl.so.2",
    "librt.so.1",
}

# The oldest glibc the FMUs must load on: 2.17, the manylinux2014 floor (CentOS 7, RHEL 7,
# Ubuntu 14.04, Debian 8 and every newer one). scripts/build.sh links the runtime with zig
# against glibc 2.17's symbol versions; a runtime linked against this machine's glibc needs
# 2.34 (dladdr, pthread_key_create) and fails here.
GLIBC_CEILING = (2, 17)


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
    assert sorted(extracted) == sorted(MODELS)
    return extracted


def tool(*args):
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def offenders(libraries, problem):
    """Runs `problem(library)` (None when all is well, else what is wrong) on the library of
    every model; the lines `model: what is wrong`."""
    found = ((name, problem(library)) for name, library in libraries.items())
    return [f"{name}: {what}" for name, what in found if what]


def unexpected_dependencies(library):
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", tool("readelf", "-d", library))
    if not needed:
        return "readelf found no NEEDED entry at all"
    unexpected = set(needed) - ALLOWED_NEEDED
    return f"needs {sorted(unexpected)}" if unexpected else None


def test_needs_only_the_c_runtime(libraries):
    problems = offenders(libraries, unexpected_dependencies)
    assert not problems, "\n".join(problems)


def exports_other_than_fmi2(library):
    """What differs between the library's exported symbols (`nm -D --defined-only`) and the
    functions of fmi2Functions.h, each exported as a function (type T)."""
    symbols = set()
    for line in tool("nm", "-D", "--defined-only", library).splitlines():
        parts = line.split()
        if len(parts) >= 3:
            symbols.add((parts[1], parts[2]))
    expected = set(fmi2_function_names())
    others = sorted(symbol for _, symbol in symbols if symbol not in expected)
    missing = sorted(f for f in expected if ("T", f) not in symbols)
    problems = ([f"exports {others[:20]}"] if others else []) \
        + ([f"lacks the functions {missing}"] if missing else [])
    return "; ".join(problems)


def test_exports_exactly_the_fmi2_functions(libraries):
    assert len(fmi2_function_names()) == 44
    problems = offenders(libraries, exports_other_than_fmi2)
    assert not problems, "\n".join(problems)


def newest_glibc(library):
    """The newest glibc symbol version the library needs (objdump -T), or None."""
    versions = {
        tuple(int(part) for part in v.split("."))
        for v in re.findall(r"GLIBC_(\d+(?:\.\d+)+)", tool("objdump", "-T", library))
    }
    return max(versions, default=None)


def test_needs_no_glibc_newer_than_the_ceiling(libraries):
    newest = {name: newest_glibc(library) for name, library in libraries.items()}
    problems = [f"{name}: objdump found no GLIBC symbol version" if version is None else
                f"{name}: needs glibc {'.'.join(map(str, version))}"
                for name, version in newest.items() if version is None or version > GLIBC_CEILING]
    found = max(filter(None, newest.values()), default=())
    print(f"{len(libraries)} libraries need glibc {'.'.join(map(str, found))} at most "
          f"(ceiling {'.'.join(map(str, GLIBC_CEILING))})")
    assert not problems, "\n".join(problems)
