#!/usr/bin/env bash
# The whole test suite: formatting, lints, every Rust test (unit, integration, CLI).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy"
cargo clippy --workspace --all-targets --release -- -D warnings
echo "== cargo test"
cargo test --workspace --release
