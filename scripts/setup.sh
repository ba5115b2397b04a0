#!/usr/bin/env bash
# Installs what building fmu3d needs on a Debian machine with Rust: cmake and libclang (to build
# SUNDIALS from the vendored sources of sundials-sys and generate its bindings). Safe to run
# again: it installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v cmake >/dev/null 2>&1 || need_apt+=(cmake)
ls /usr/lib/llvm-*/lib/libclang*.so* >/dev/null 2>&1 || need_apt+=(libclang-dev)
command -v cc >/dev/null 2>&1 || need_apt+=(build-essential)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "== installing ${need_apt[*]} (apt-get)"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

