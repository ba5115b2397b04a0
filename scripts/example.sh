#!/usr/bin/env bash
# The main job on the shipped example: build fmu3d and its runtime, check the pendulum model,
# package it as an FMI 2.0 Co-Simulation FMU, and run that FMU through its own FMI API.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
./target/release/fmu3d check models/pendulum.m3d
./target/release/fmu3d build models/pendulum.m3d -o pendulum.fmu
./target/release/fmu3d simulate pendulum.fmu -o pendulum.csv
echo "pendulum.fmu and pendulum.csv written; first and last rows of the CSV:"
head -n 2 pendulum.csv
tail -n 1 pendulum.csv
