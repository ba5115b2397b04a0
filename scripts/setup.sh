#!/usr/bin/env bash
# Installs what building fmu3d needs on a Debian machine with Rust: cmake and libclang (to build
# SUNDIALS from the vendored sources of sundials-sys and generate its bindings), zig and
# cargo-zigbuild (to link the FMU's runtime for glibc 2.17), Debian's Rust and MinGW-w64 (to
# build it for Windows). Safe to run again: it installs only what is missing.
#
#   bash scripts/setup.sh            # the build tools
#   bash scripts/setup.sh --python   # and Wine, and .venv with the Python test harness's packages
#                                    # (tests/python/requirements.txt: fmpy, libcosimpy, pytest, numpy)
#                                    # and the fmi-sim command (crates.io) into .tools/bin
#                                    # and fmu3d-sweep (sweep/: dask, pandas, pyarrow, matplotlib)
#                                    # and the Khronos glTF validator (npm, tests/gltf) into .tools/
#                                    # and chromium (the viewer's browser tests)
#   bash scripts/setup.sh --peers    # and .venv with the peers of the contact benchmark
#                                    # (benches/peers/requirements.txt: mujoco, pybullet)
set -euo pipefail
cd "$(dirname "$0")/.."

python=false
peers=false
for arg in "$@"; do
  case "$arg" in
    --python) python=true ;;
    --peers) python=true; peers=true ;;
    *) echo "usage: bash scripts/setup.sh [--python] [--peers]" >&2; exit 2 ;;
  esac
done

sudo_cmd=""
[ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
apt_install() {
  echo "== installing $* (apt-get)"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "$@" >/dev/null
}

# bindgen (through clang-sys) loads libclang itself: libclang.so, libclang-N.so or libclang.so.N,
# from LIBCLANG_PATH, llvm-config's libdir or the usual library folders. libclang-cpp.so.N (the
# C++ interface, on many machines without libclang) is not it, so it must not count here.
has_libclang() {
  local dirs=() dir file
  [ -n "${LIBCLANG_PATH:-}" ] && dirs+=("$LIBCLANG_PATH")
  command -v llvm-config >/dev/null 2>&1 && dirs+=("$(llvm-config --libdir)")
  dirs+=(/usr/lib/llvm-*/lib /usr/lib/x86_64-linux-gnu /usr/lib/aarch64-linux-gnu /usr/lib64 /usr/local/lib)
  for dir in "${dirs[@]}"; do
    for file in "$dir"/libclang.so "$dir"/libclang.so.* "$dir"/libclang-[0-9]*.so "$dir"/libclang-[0-9]*.so.*; do
      # Only a library that really opens counts (a dangling link does not).
      [ -e "$file" ] && [ -r "$file" ] && return 0
    done
  done
  return 1
}

need_apt=()
command -v cmake >/dev/null 2>&1 || need_apt+=(cmake)
has_libclang || need_apt+=(libclang-dev)
command -v cc >/dev/null 2>&1 || need_apt+=(build-essential)
# node and npm bundle the page script of `fmu3d view` (viewer/, scripts/build.sh).
command -v npm >/dev/null 2>&1 || need_apt+=(nodejs npm)
# The FMU's Windows runtime (scripts/build.sh; docs/fmi.md, "The shared library"): Debian's Rust
# with the standard library's source (rustc-web, cargo-web, rust-web-src: the standard library
# of the win7 target is built from it, which rustup cannot fetch here) and the MinGW-w64 cross
# toolchain; with --python also Wine, which runs the Windows binaries in the tests.
[ -x /usr/bin/x86_64-w64-mingw32-gcc ] || need_apt+=(mingw-w64)
{ [ -x /usr/bin/cargo ] && [ -x /usr/bin/rustc ] && [ -d /usr/lib/rustlib/src/rust/library ]; } \
  || need_apt+=(rustc-web cargo-web rust-web-src)
if $python; then
  [ -x /usr/lib/wine/wine64 ] || need_apt+=(wine64)
fi
# readelf, nm and objdump for the checks of the FMU's shared library.
if $python; then
  command -v readelf >/dev/null 2>&1 && command -v nm >/dev/null 2>&1 \
    && command -v objdump >/dev/null 2>&1 || need_apt+=(binutils)
  command -v python3 >/dev/null 2>&1 || need_apt+=(python3)
  # Headless Chromium for the browser tests of `fmu3d view` (tests/python/test_viewer.py).
  command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
fi
command -v python3 >/dev/null 2>&1 && python3 -m pip --version >/dev/null 2>&1 || need_apt+=(python3-pip)
if [ ${#need_apt[@]} -gt 0 ]; then
  apt_install "${need_apt[@]}"
fi

# The FMU's runtime library is linked by zig against glibc 2.17's symbol versions, so that FMUs
# load on old Linux (scripts/build.sh, docs/fmi.md "The shared library"). Both tools go into
# .tools/ (pinned): zig from PyPI's ziglang wheel, cargo-zigbuild from crates.io.
ZIG_VERSION=0.14.1
ZIGBUILD_VERSION=0.24.1
if [ ! -x .tools/ziglang/ziglang/zig ] || [ "$(.tools/ziglang/ziglang/zig version)" != "$ZIG_VERSION" ]; then
  echo "== installing zig $ZIG_VERSION (PyPI: ziglang) into .tools/ziglang"
  rm -rf .tools/ziglang
  python3 -m pip install -q --disable-pip-version-check --target .tools/ziglang "ziglang==$ZIG_VERSION"
fi
if [ "$(.tools/bin/cargo-zigbuild --version 2>/dev/null)" != "cargo-zigbuild $ZIGBUILD_VERSION" ]; then
  echo "== installing cargo-zigbuild $ZIGBUILD_VERSION (crates.io) into .tools/bin"
  cargo install -q --locked --version "$ZIGBUILD_VERSION" --root .tools cargo-zigbuild
fi

if $python; then
  if ! .venv/bin/python -m pip --version >/dev/null 2>&1; then
    echo "== creating .venv"
    rm -rf .venv
    if ! python3 -m venv .venv 2>/dev/null; then
      # Debian ships venv (and ensurepip) separately, as python3-venv.
      rm -rf .venv
      apt_install python3-venv
      python3 -m venv .venv
    fi
  fi
  requirements=(tests/python/requirements.txt)
  $peers && requirements+=(benches/peers/requirements.txt)
  for file in "${requirements[@]}"; do
    if ! .venv/bin/python -m pip install -q --disable-pip-version-check -r "$file"; then
      echo "error: installing $file into .venv failed" >&2
      exit 1
    fi
  done
  # fmi-sim (crates.io, rust-fmi's simulator), an importer of the harness (test_fmi_sim.py), into
  # .tools/bin: its build runs bindgen (libclang) and a C compiler, both checked above. Its
  # `--version` prints "Error: fmi-sim X" and exits 1.
  FMI_SIM_VERSION=0.7.0
  if [[ "$(RUST_BACKTRACE=0 .tools/bin/fmi-sim --version 2>&1 || true)" != *"fmi-sim $FMI_SIM_VERSION" ]]; then
    echo "== installing fmi-sim $FMI_SIM_VERSION (crates.io) into .tools/bin"
    cargo install -q --locked --version "$FMI_SIM_VERSION" --root .tools fmi-sim
  fi
  # The Khronos glTF validator (npm's gltf-validator, pinned by tests/gltf/package-lock.json)
  # into .tools/gltf-validator, for the tests of the animations (test_animation.py); needs node.
  if ! cmp -s tests/gltf/package-lock.json .tools/gltf-validator/package-lock.json \
      || [ ! -f .tools/gltf-validator/node_modules/gltf-validator/package.json ]; then
    command -v npm >/dev/null 2>&1 || apt_install nodejs npm
    echo "== installing gltf-validator (npm) into .tools/gltf-validator"
    mkdir -p .tools/gltf-validator
    cp tests/gltf/package.json tests/gltf/package-lock.json .tools/gltf-validator/
    (cd .tools/gltf-validator && npm ci --silent --no-audit --no-fund)
  fi
  # fmu3d-sweep (sweep/, docs/sweep.md), editable: its dependencies are pinned in the
  # requirements above, and changes to its code need no reinstall.
  if ! .venv/bin/python -c 'import fmu3d_sweep' 2>/dev/null || [ ! -x .venv/bin/fmu3d-sweep ]; then
    if ! .venv/bin/python -m pip install -q --disable-pip-version-check -e ./sweep; then
      echo "error: installing sweep/ (fmu3d-sweep) into .venv failed" >&2
      exit 1
    fi
  fi
fi
