#!/usr/bin/env bash
# The whole test suite: formatting, lints, every Rust test (unit, integration, CLI), then the
# Python harness (tests/python: fmpy and libcosimpy import the built FMUs).
set -euo pipefail
cd "$(dirname "$0")/.."
# --python first: the Rust test of the C header compiles against the official FMI 2.0 headers
# shipped in fmpy, found through .venv.
bash scripts/setup.sh --python
FMI2_HEADERS="$(.venv/bin/python -c 'import fmpy, os; print(os.path.join(os.path.dirname(fmpy.__file__), "c-code"))')"
export FMI2_HEADERS
echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy"
cargo clippy --workspace --all-targets --release -- -D warnings
# The runtime's cdylib first (for this machine, and for glibc 2.17, which the FMUs carry):
# `cargo test` does not rebuild it, and the FMU tests package it.
echo "== bash scripts/build.sh"
bash scripts/build.sh
echo "== cargo test"
cargo test --workspace --release
# The FMI call matrix and the FMI call fuzzer once more under Valgrind's memcheck, where the
# machine has it: invalid reads and writes, uses of uninitialised memory and bad frees fail.
if command -v valgrind >/dev/null; then
    echo "== valgrind: FMI call matrix and fuzzer"
    cargo test --release -p fmu3d-tests --test fmi2_api --test fuzz_fmi \
        --config "target.'cfg(all())'.runner = ['valgrind', '--quiet', '--error-exitcode=99']"
else
    echo "== valgrind not found: memcheck of the FMI calls skipped"
fi
# The FMI call matrix, the FMU-state tests and the rest of the FMI boundary's tests once more
# against the Windows build of the runtime, run under Wine (scripts/test-wine.sh), where the
# machine has the Windows toolchain and Wine (scripts/setup.sh --python, above, installs them).
source scripts/windows-env.sh
if windows_toolchain_present && wine64_loader >/dev/null; then
    echo "== bash scripts/test-wine.sh: the FMI tests against the Windows runtime, under Wine"
    bash scripts/test-wine.sh
else
    echo "== the Windows toolchain or Wine not found: the FMI tests under Wine skipped"
fi
# `cargo test --workspace` may have relinked the native runtime (its features unify with the
# tests' dependencies): build again, so that the harness packages the glibc-2.17 one.
echo "== bash scripts/build.sh (again, for the harness)"
bash scripts/build.sh
echo "== pytest tests/python"
.venv/bin/python -m pytest tests/python -q
# Contacts that touch, rest, roll and stick, at every documented setting, each to its stop time.
echo "== contact-robustness matrix"
bash scripts/bench-contacts.sh
