#!/usr/bin/env bash
# The contact-robustness matrix: contacts that touch, rest, roll and stick (sliding and rolling),
# at the documented settings (v_small 1e-5 … 1e-2 m/s, tolerances 1e-4 … 1e-8), each run to its
# stop time with `fmu3d simulate`. Prints one Markdown row per case: wall time, integrator steps,
# residual evaluations, contact and stick-slip events, or the failure. docs/benchmarks.md
# summarizes the table ("Contacts that last"); docs/benchmarks-history.md records each run.
#
#   bash scripts/bench-contacts.sh            # every case (a few minutes on 2 cores)
#
# Exits with 1 when a case fails: `scripts/test.sh` runs it. The staggered pour must also settle: its
# largest ball speed at the stop time is printed and must be below 5 mm/s; the box on the ramp must
# not creep (below 1 µm from 1 s on) and the rolling ball must not slip (below 1 µm/s).
set -uo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p packager >/dev/null 2>&1 || { echo "cargo build failed"; exit 1; }
fmu3d=target/release/fmu3d
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
printf 'time,left.f,right.f\n0,20,-20\n' >"$scratch/squeeze.csv"

failures=0
echo "| case | setting | stop [s] | wall [s] | steps | residual evaluations | contact events | stick-slip events | result |"
echo "|---|---|---|---|---|---|---|---|---|"
case_row() {
    local name=$1 setting=$2 stop=$3
    shift 3
    local log="$scratch/log"
    rm -f "$scratch/out.csv"
    "$fmu3d" simulate "$@" --stop-time "$stop" -o "$scratch/out.csv" >"$log" 2>&1
    local status=$?
    local line
    line=$(tail -1 "$log")
    if [ $status -eq 0 ]; then
        local wall steps evals events sticks
        wall=$(sed -nE 's/.* simulated in ([0-9.]+) s wall.*/\1/p' <<<"$line")
        steps=$(sed -nE 's/.*; ([0-9]+) steps,.*/\1/p' <<<"$line")
        evals=$(sed -nE 's/.* steps, ([0-9]+ residual evaluations \(\+[0-9]+ for Jacobians\)).*/\1/p' <<<"$line")
        events=$(sed -nE 's/.*; ([0-9]+ contact events, [0-9]+ contacts started).*/\1/p' <<<"$line")
        sticks=$(sed -nE 's/.* ([0-9]+) stick-slip events.*/\1/p' <<<"$line")
        echo "| $name | $setting | $stop | $wall | $steps | ${evals% residual evaluations*} ${evals#* residual evaluations } | $events | $sticks | runs to the end |"
    else
        failures=$((failures + 1))
        local at
        at=$(grep -oE 'failed at t = [0-9.e-]+' "$log" | head -1)
        echo "| $name | $setting | $stop | | | | | | **fails** ${at:-$(head -c 120 "$log")} |"
    fi
}

for v_small in 1e-2 1e-3 1e-4 1e-5; do
    for tolerance in 1e-4 1e-6 1e-8; do
        case_row rolling_ball "v_small $v_small m/s, tol $tolerance" 60 \
            models/rolling_ball.m3d --param v_small=$v_small --tolerance $tolerance
    done
done
for tolerance in 1e-4 1e-6 1e-8; do
    case_row bouncing_ball "tol $tolerance" 60 models/bouncing_ball.m3d --tolerance $tolerance
    case_row bouncing_box "tol $tolerance" 10 models/bouncing_box.m3d --tolerance $tolerance
done
case_row "newtons_cradle, touching" "gap 0" 10 models/newtons_cradle.m3d --param gap=0
case_row "billiard16, touching rack" "gap 0" 5 models/billiard16.m3d --param gap=0
case_row stack "10 boxes" 10 models/stack.m3d
case_row block_on_ramp "15°" 10 models/block_on_ramp.m3d
case_row block_on_ramp "30° (slides off the ramp's end)" 2 models/block_on_ramp.m3d --param theta=0.5235987755982988
case_row ball_on_ramp "0.3° (held by its rolling resistance)" 10 models/ball_on_ramp.m3d
case_row ball_on_ramp "3° (rolls off the ramp's end)" 4 models/ball_on_ramp.m3d --param theta=0.05235987755982988
case_row gripper "squeeze 20 N" 10 models/gripper.m3d --input "$scratch/squeeze.csv"
# Friction at the limit: a steel box landing on a dry-wood ramp at 0.98 atan mu_k, dropped 50 µm
# or placed just touching it, and a steel cone placed lying on its side (each slides, stops and
# must stay: less than 1 µm from 1 s to the stop time), and a steel ball, capsule and
# cylinder (radius 3 cm) rolling down the ramp at 15° (their slip at the contact point must stay
# below 1 µm/s), at three tolerances and three v_small each (at tolerance 1e-4 the rolling ball
# slips at up to 1.1 µm/s). The ramp is the floor with gravity tilted by theta.
ramp_model() {
    local body=$1
    cat <<EOF
model friction_ramp "friction at the limit"
parameters { theta = 0 rad "inclination"; v_small = 0.01 m/s "the pair's small speed" }
contact_pair steel dry_wood { cor = 0.7; mu_k = 0.5; mu_s = 0.6; mu_r = 0.001; v_small = v_small }
gravity uniform { g = [9.81*sin(theta), -9.81*cos(theta), 0] m/s2 }
object floor { parent = world; position = [0, -0.05, 0] m; shape box { lengths = [40, 0.1, 1] m }; contact { material = dry_wood } }
$body
EOF
}
ramp_model 'object body { shape box { lengths = [0.1, 0.04, 0.07] m }; mass { material = steel }; contact { material = steel }; output = true }
joint slide free { from = world; to = body; position = [0, 0.02005, 0] m }' >"$scratch/box_ramp.m3d"
sed 's/0.02005, 0] m/0.02, 0] m/' "$scratch/box_ramp.m3d" >"$scratch/placed_box_ramp.m3d"
# A cone (diameter 50 mm, length 100 mm) lying on its side, on its rim disc and its apex, with
# the side line along the slope (tests/tests/friction_limit.rs, LYING_CONE).
ramp_model 'object body { shape cone { diameter = 0.05 m; length = 0.1 m }; mass { material = steel }; contact { material = steel }; output = true }
joint slide free { from = world; to = body; position = [0, 0.024253563, 0] m; rotation = axis_angle([0.12128133, 0.98518104, -0.12128133], 90.85538614 deg) }' >"$scratch/lying_cone_ramp.m3d"
ramp_model 'object body { shape sphere { diameter = 0.06 m }; mass { material = steel }; contact { material = steel }; output = true }
joint roll free { from = world; to = body; position = [-15 m, 0.03 m, 0 m] }' >"$scratch/ball_ramp.m3d"
for rounded in 'capsule { diameter = 0.06 m; length = 0.1 m }' 'cylinder { diameter = 0.06 m; length = 0.1 m }'; do
    ramp_model "object body { shape $rounded; mass { material = steel }; contact { material = steel }; output = true }
joint roll free { from = world; to = body; position = [-15 m, 0.03 m, 0 m] }" >"$scratch/${rounded%% *}_ramp.m3d"
done
# Prints the creep (box) or the largest contact slip (ball) of the last run; counts a failure
# above 1e-6 (m, or m/s).
friction_figure() {
    local figure
    figure=$(python3 - "$1" "$scratch/out.csv" <<'PY'
import csv, sys
kind, path = sys.argv[1], sys.argv[2]
rows = list(csv.DictReader(open(path)))
col = lambda row, name: float(row[name])
if kind == "box":
    first = next(r for r in rows if col(r, "time") >= 1.0)
    last = rows[-1]
    value = ((col(last, "body.r[1]") - col(first, "body.r[1]")) ** 2 + (col(last, "body.r[2]") - col(first, "body.r[2]")) ** 2) ** 0.5
    print(f"{value:.1e} m creep from 1 s")
else:
    r = 0.03
    value = max(abs(col(row, "body.v[1]") + 0.5 * (r + col(row, "body.r[2]")) * col(row, "body.w[3]")) for row in rows[10:])
    print(f"{value:.1e} m/s largest slip")
PY
)
    friction_lines+=("$2: ${figure:-no result}")
    if ! awk -v s="${figure%% *}" 'BEGIN { exit !(s < 1e-6) }'; then
        failures=$((failures + 1))
    fi
}
friction_lines=()
for v_small in 1e-2 1e-3 1e-4; do
    for tolerance in 1e-5 1e-6 1e-8; do
        case_row "box landing on a ramp" "0.98 atan μ_k, v_small $v_small m/s, tol $tolerance" 5 \
            "$scratch/box_ramp.m3d" --param theta=0.454375 --param v_small=$v_small --tolerance $tolerance
        friction_figure box "box, v_small $v_small, tol $tolerance"
        case_row "box placed on a ramp" "0.98 atan μ_k, v_small $v_small m/s, tol $tolerance" 5 \
            "$scratch/placed_box_ramp.m3d" --param theta=0.454375 --param v_small=$v_small --tolerance $tolerance
        friction_figure box "placed box, v_small $v_small, tol $tolerance"
        case_row "cone placed lying on a ramp" "0.98 atan μ_k, v_small $v_small m/s, tol $tolerance" 5 \
            "$scratch/lying_cone_ramp.m3d" --param theta=0.454375 --param v_small=$v_small --tolerance $tolerance
        friction_figure box "lying cone, v_small $v_small, tol $tolerance"
        case_row "ball rolling down a ramp" "15°, v_small $v_small m/s, tol $tolerance" 2 \
            "$scratch/ball_ramp.m3d" --param theta=0.261799 --param v_small=$v_small --tolerance $tolerance
        friction_figure ball "ball, v_small $v_small, tol $tolerance"
        # A cylinder rolls on its two rim discs, a capsule on its two end spheres.
        case_row "capsule rolling down a ramp" "15°, v_small $v_small m/s, tol $tolerance" 2 \
            "$scratch/capsule_ramp.m3d" --param theta=0.261799 --param v_small=$v_small --tolerance $tolerance
        friction_figure ball "capsule, v_small $v_small, tol $tolerance"
        case_row "cylinder rolling down a ramp" "15°, v_small $v_small m/s, tol $tolerance" 5 \
            "$scratch/cylinder_ramp.m3d" --param theta=0.261799 --param v_small=$v_small --tolerance $tolerance
        friction_figure ball "cylinder, v_small $v_small, tol $tolerance"
    done
done
# The largest speed of a ball in the last row of a pour's CSV (its `ball[i].v[k]` columns), in
# mm/s; a pour that has not settled below 5 mm/s at its stop time counts as failed.
settled() {
    local speed
    speed=$(awk -F, 'NR == 1 { for (c = 1; c <= NF; c++) if ($c ~ /^"?ball\[[0-9]+\]\.v\[1\]"?$/) first[c] = 1; next }
        { last = $0 }
        END { n = split(last, f, ","); top = 0
              for (c in first) { s = sqrt(f[c]^2 + f[c+1]^2 + f[c+2]^2); if (s > top) top = s }
              printf "%.2f", top * 1000 }' "$scratch/out.csv" 2>/dev/null)
    settle_lines+=("$1: largest ball speed at the stop time ${speed:-?} mm/s (settled: below 5 mm/s)")
    if ! awk -v s="${speed:-1e9}" 'BEGIN { exit !(s < 5) }'; then
        failures=$((failures + 1))
    fi
}
settle_lines=()
case_row pour "36 balls (3 × 4 × 3), every other layer 2.5 mm aside" 1 models/pour.m3d \
    --param nx=3 --param ny=4 --param nz=3 --param stagger=2.5e-3 --step 0.01
settled "pour of 36 balls, staggered"
# Columns of eight balls are an unstable equilibrium: they stand as long as round-off keeps
# them symmetric, then topple (here from about 0.85 s). The 200 balls must run to the end; the
# staggered heap above is the case that must settle.
case_row pour "200 balls (5 × 8 × 5), released in columns" 1 models/pour.m3d \
    --param nx=5 --param ny=8 --param nz=5 --step 0.01
echo
printf '%s\n' "${friction_lines[@]}"
printf '%s\n' "${settle_lines[@]}"
echo "$failures case(s) failed"
[ "$failures" -eq 0 ]
