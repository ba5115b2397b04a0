#!/usr/bin/env bash
# The main job on the shipped example: build fmu3d, check the pendulum model and simulate it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo build --release -p packager
./target/release/fmu3d check models/pendulum.m3d
./target/release/fmu3d simulate models/pendulum.m3d -o pendulum.csv
echo "first and last rows of pendulum.csv:"
head -n 2 pendulum.csv
tail -n 1 pendulum.csv
