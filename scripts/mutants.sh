#!/usr/bin/env bash
# Mutation testing of the physics and FMI modules (.cargo/mutants.toml): each mutant is a small
# change to the code (an operator flipped, a function body replaced by a default value); the
# workspace's tests must fail on it. A full run (about 3 300 mutants, 5 s to build and up to 45 s
# to test each on 2 cores) takes a day, so there are two modes:
#
#   scripts/mutants.sh --in-diff [BASE]   mutants of the lines changed since BASE (default: the
#                                         merge base with origin/main, else HEAD~1): run it
#                                         before calling a change to those modules done
#   scripts/mutants.sh --shard K/N        every N-th mutant from the K-th on (K counts
#                                         from 0): a sample of all modules
#   scripts/mutants.sh --list             count the mutants of each module, run nothing
#
# Results go to target/mutation/mutants.out (--in-diff) or target/mutation/shard-K-of-N/mutants.out
# (--shard), as caught.txt, missed.txt, timeout.txt, unviable.txt and outcomes.json.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! cargo mutants --version >/dev/null 2>&1; then
    echo "== installing cargo-mutants"
    cargo install --locked cargo-mutants
fi

mode="${1:---help}"
# `test_workspace` in .cargo/mutants.toml is not applied by every cargo-mutants version: say it.
judge=(--test-workspace=true)
output=target/mutation
mkdir -p "$output"
case "$mode" in
--in-diff)
    base="${2:-}"
    if [ -z "$base" ]; then
        base="$(git merge-base HEAD origin/main 2>/dev/null || git rev-parse HEAD~1)"
    fi
    diff="$output/changes.diff"
    git diff "$base" -- fmu-runtime/src >"$diff"
    if [ ! -s "$diff" ]; then
        echo "no change to fmu-runtime/src since $base: nothing to mutate"
        exit 0
    fi
    exec cargo mutants "${judge[@]}" --in-diff "$diff" --output "$output"
    ;;
--shard)
    shard="${2:?--shard needs K/N}"
    output="$output/shard-${shard%/*}-of-${shard#*/}"
    mkdir -p "$output"
    # Round-robin: every N-th mutant, so that a shard samples every module.
    exec cargo mutants "${judge[@]}" --shard "$shard" --sharding round-robin --output "$output"
    ;;
--list)
    cargo mutants --list | sed -E 's|^([^:]*):.*|\1|' | sort | uniq -c | sort -rn
    ;;
*)
    sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
    [ "$mode" = --help ] || exit 2
    ;;
esac
