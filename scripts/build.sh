#!/usr/bin/env bash
# Builds fmu3d and the runtime library that goes into every FMU (release profile):
#
#   target/release/fmu3d, target/release/libfmu_runtime.so     for this machine (tests, tools)
#   target/x86_64-unknown-linux-gnu/release/libfmu_runtime.so  linked by zig against glibc 2.17
#   target/x86_64-win7-windows-gnu/release/fmu_runtime.dll      for Windows 7 and later, x86-64
#   target/viewer/viewer.js     the page script of `fmu3d view` (three.js and viewer/src/main.js,
#                               bundled by esbuild; compiled into fmu3d, so built first)
#
# `fmu3d build` packages the second one when it is there and not older than the first, so the
# FMUs load on every Linux with glibc 2.17 or newer, and the Windows one beside it
# (docs/fmi.md, "The shared library").
# Run `bash scripts/setup.sh` first (it installs cmake, libclang, zig and cargo-zigbuild).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
echo "== the viewer's page script: npm ci (viewer/package-lock.json), esbuild"
(
  cd viewer
  # npm ci only when the installed packages are not those of the lock file.
  if ! cmp -s package-lock.json node_modules/.fmu3d-installed-lock.json; then
    npm ci --no-audit --no-fund --loglevel=error
    cp package-lock.json node_modules/.fmu3d-installed-lock.json
  fi
  npm run --silent build
)
cargo build --release -p fmu-runtime -p packager
echo "== cargo zigbuild: the FMU runtime for glibc 2.17"
# From the package's folder: zig prints its header folders relative to the working directory
# when they lie below it (.tools/ is below the repository root), and cargo-zigbuild hands those
# folders to bindgen, which runs elsewhere; from fmu-runtime/ they are absolute.
(
  cd fmu-runtime
  CARGO_ZIGBUILD_ZIG_PATH="$root/.tools/ziglang/ziglang/zig" PATH="$root/.tools/bin:$PATH" \
    cargo zigbuild --release -p fmu-runtime --target x86_64-unknown-linux-gnu.2.17
)
# Up to date now, whether cargo relinked it or not: newer than the native library, which another
# cargo command may have relinked meanwhile without a change of source (`cargo test
# --workspace` unifies features with the tests' dependencies), so that `fmu3d build` takes it.
touch target/x86_64-unknown-linux-gnu/release/libfmu_runtime.so

echo "== cargo build --target x86_64-win7-windows-gnu: the FMU runtime for Windows"
# The toolchain's environment is in scripts/windows-env.sh (shared with scripts/test-wine.sh).
# panic_unwind: the FMI boundary catches panics.
source scripts/windows-env.sh
(
  cd fmu-runtime
  windows_toolchain_env
  /usr/bin/cargo build --release -p fmu-runtime --target "$win_target" -Zbuild-std=std,panic_unwind
)
# Up to date now (see above): not older than the native library, so that `fmu3d build` takes it.
touch "target/$win_target/release/fmu_runtime.dll"
