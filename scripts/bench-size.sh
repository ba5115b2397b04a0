#!/usr/bin/env bash
# Model size: the time and peak memory of `fmu3d check`, `fmu3d build` and of instantiating the
# built FMU through fmpy (instantiate, set up, enter and exit initialization: the start state and
# its consistent derivatives), for balls poured into a box (`models/pour.m3d`, free bodies) and a
# Newton's cradle (`models/newtons_cradle.m3d`, balls on revolute joints) of 1 000 and 10 000
# balls (a model above the documented limits is refused: the time and memory of the refusal).
# One run each; prints a Markdown table for docs/benchmarks.md.
#
#     bash scripts/bench-size.sh [SIZES]      # SIZES: default "1000 10000"
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --python >/dev/null
cargo build --release -p packager >/dev/null 2>&1
bash scripts/build.sh >/dev/null
sizes=${*:-"1000 10000"}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The pour's grid for N balls (nx × ny × nz, ny the height).
grid() {
    case $1 in
        1000) echo "10 10 10" ;;
        2000) echo "10 20 10" ;;
        5000) echo "20 25 10" ;;
        10000) echo "20 25 20" ;;
        *) echo "$1 1 1" ;;
    esac
}

# "seconds, peak MB" of a command (wall time and maximum resident set size); "refused in …"
# with the message when it fails.
measure() {
    local status=0
    /usr/bin/time -f "%e %M" -o "$work/time" "$@" >"$work/out" 2>&1 || status=$?
    local figures
    figures=$(awk '/^[0-9.]+ [0-9]+$/ { printf "%.2f s, %.0f MB", $1, $2 / 1024 }' "$work/time")
    if [ "$status" -ne 0 ]; then
        echo "refused in $figures: $(grep -o 'error: .*' "$work/out" | head -1 | cut -c8-)"
        return 1
    fi
    echo "$figures"
}

instantiate() {
    .venv/bin/python - "$1" <<'EOF'
import resource, sys, time
from fmpy import extract, read_model_description
from fmpy.fmi2 import FMU2Slave
path = sys.argv[1]
description = read_model_description(path)
unzipped = extract(path)
importer = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
before = time.perf_counter()
fmu = FMU2Slave(guid=description.guid, unzipDirectory=unzipped,
                modelIdentifier=description.coSimulation.modelIdentifier, instanceName="size")
fmu.instantiate()
fmu.setupExperiment(startTime=0.0)
fmu.enterInitializationMode()
fmu.exitInitializationMode()
elapsed = time.perf_counter() - before
fmu.terminate()
fmu.freeInstance()
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"{elapsed:.2f} s, {peak:.0f} MB ({importer:.0f} MB after fmpy read the model description)")
EOF
}

echo "| model | balls | states | check: wall, peak memory | build: wall, peak memory | FMU size | instantiate + initialize through fmpy: wall, process peak |"
echo "|---|---|---|---|---|---|---|"
for n in $sizes; do
    read -r nx ny nz <<<"$(grid "$n")"
    sed -e "s/^  nx = 2 /  nx = $nx /" -e "s/^  ny = 2 /  ny = $ny /" -e "s/^  nz = 2 /  nz = $nz /" \
        models/pour.m3d >"$work/pour_$n.m3d"
    sed -e "s/for i in 1:5 {/for i in 1:$n {/" models/newtons_cradle.m3d >"$work/cradle_$n.m3d"
    for model in pour cradle; do
        file="$work/${model}_$n.m3d"
        if ! check=$(measure target/release/fmu3d check "$file"); then
            echo "| $model | $n | | $check | | | |"
            continue
        fi
        states=$(grep -o '[0-9]* states' "$work/out" | head -1 | cut -d' ' -f1)
        build=$(measure target/release/fmu3d build "$file" -o "$work/${model}_$n.fmu")
        size=$(du -m "$work/${model}_$n.fmu" | cut -f1)
        start=$(instantiate "$work/${model}_$n.fmu")
        echo "| $model | $n | ${states:-?} | $check | $build | $size MB | $start |"
    done
done
