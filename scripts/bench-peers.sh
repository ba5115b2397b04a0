#!/usr/bin/env bash
# fmu3d's contact handling side by side with MuJoCo and PyBullet (benches/peers/compare.py):
# installs the peers into .venv (scripts/setup.sh --peers, timed), builds the release fmu3d and
# prints one table per scene. Options go to compare.py, e.g.
#
#   bash scripts/bench-peers.sh --scenes rolling_ball --repeat 1
#
# The scale scenes run only when named (minutes; docs/benchmarks.md, "Many bodies"):
#
#   bash scripts/bench-peers.sh --scenes pour chain --pour-sizes 27,100,1000 --pour-stop 0.12
#
# and the work–precision figures (fmu3d over tolerances 1e-3 … 1e-9, the peers over their steps;
# one PNG per scene into docs/images):
#
#   bash scripts/bench-peers.sh --scenes work_precision
set -euo pipefail
cd "$(dirname "$0")/.."

started=$(date +%s%N)
bash scripts/setup.sh --peers
elapsed_ms=$(( ($(date +%s%N) - started) / 1000000 ))
echo "== setup.sh --peers (the harness and the peers in .venv) took $((elapsed_ms / 1000)).$(printf %03d $((elapsed_ms % 1000))) s"

echo "== cargo build --release -p packager"
cargo build --release -p packager

echo "== benches/peers/compare.py $*"
.venv/bin/python benches/peers/compare.py "$@"
