//! Static friction without creep: a steel block on steel (shipped μ_k = 0.4, μ_s = 0.5).
//!
//! Regression: friction was the regularized sliding law alone, which holds no load at zero
//! slip, so a block on a ramp below its friction angle crept down at 4 mm/s. Pairs of box
//! colliders now stick below half of `v_small`, held by a spring anchored where the two surfaces
//! met, and slip when the friction force reaches μ_s f_n (`dynamics::contacts`).
//!
//! References, all closed forms of Coulomb friction: below the friction angle the block stays
//! (drift below 0.1 mm over 10 s); above it, it slides with a = g (sin θ − μ_k cos θ); a
//! horizontal pull that grows steadily breaks it away at μ_s m g. The ramp is the floor with
//! gravity tilted by θ (the same mechanics, and the slide runs along x).

use fmu3d_tests::simulate;
use fmu_runtime::model::{self, materials};

const G: f64 = 9.81;
const MU_K: f64 = 0.4;
const MU_S: f64 = 0.5;

/// A 10 × 5 × 10 cm steel block resting on a steel floor; gravity tilted by `theta` about z.
const RAMP: &str = r#"
model ramp "a steel block on a steel ramp"
parameters { theta = 15 deg "inclination" }
gravity uniform { g = [9.81*sin(theta), -9.81*cos(theta), 0] m/s2 }
experiment { stop_time = 10 s; interval = 10 ms; tolerance = 1e-6 }
object floor {
  parent = world; position = [0, -0.05, 0] m
  shape box { lengths = [4, 0.1, 1] m }
  contact { material = steel }
}
object block {
  shape box { lengths = [0.1, 0.05, 0.1] m }
  mass { material = steel }
  contact { material = steel }
  output = true
}
joint slide free { from = world; to = block; position = [0, 0.025, 0] }
"#;

fn ramp(theta_deg: f64, stop: f64) -> fmu3d_tests::Trajectory {
    let spec = model::load_str_with(
        RAMP,
        "ramp.m3d",
        &[("theta".to_string(), theta_deg.to_radians())],
    )
    .expect("model");
    simulate(spec, 1e-6, stop, 0.01)
}

#[test]
fn below_the_friction_angle_the_block_stays() {
    let run = ramp(15.0, 10.0);
    let x = run.column("block.r[1]");
    let drift = x.iter().map(|v| (v - x[0]).abs()).fold(0.0, f64::max);
    let late = (x[x.len() - 1] - x[x.len() / 2]).abs();
    eprintln!(
        "block at 15° (tan 0.268 < μ_s {MU_S}): largest offset {drift:.2e} m over 10 s, \
         {late:.2e} m in the last 5 s; {} stick-slip events",
        run.simulation.friction_events()
    );
    assert!(drift < 1e-4, "the block moves {drift} m");
    // No creep: what offset there is is the elastic offset of the stuck contacts, set in the
    // first instants: the load m g sin θ over the stiffness μ_s m g cos θ / d_s of the four
    // corners together, d_s tan θ / μ_s with the presliding displacement d_s = 10 µm.
    let offset = (x[x.len() - 1] - x[0]).abs();
    let elastic = 1e-5 * 15f64.to_radians().tan() / MU_S;
    eprintln!("offset at the end {offset:.4e} m, elastic offset {elastic:.4e} m");
    // What remains (1.4 %) is the tilt under the friction's moment about the centre of mass.
    assert!((offset / elastic - 1.0).abs() < 0.03, "offset {offset} m");
    assert!(late < 1e-9, "the block creeps {late} m in 5 s");
}

#[test]
fn above_the_friction_angle_the_block_slides_with_coulombs_acceleration() {
    let theta: f64 = 30f64.to_radians();
    let run = ramp(30.0, 1.0);
    let (t, x) = (&run.time, run.column("block.r[1]"));
    // The acceleration from a quadratic fit of x over the second half (the first instants
    // hold the break-away, where the sliding law rises from zero slip to μ_k).
    let samples: Vec<(f64, f64)> = t
        .iter()
        .zip(x)
        .filter(|(t, _)| **t >= 0.5)
        .map(|(t, x)| (*t, *x))
        .collect();
    let acceleration = fmu3d_tests::quadratic_fit_curvature(&samples);
    let expected = G * (theta.sin() - MU_K * theta.cos());
    let error = (acceleration / expected - 1.0).abs();
    eprintln!(
        "block at 30°: slides at {acceleration:.5} m/s² (Coulomb {expected:.5}, relative error \
         {error:.1e})"
    );
    assert!(error < 1e-6, "a = {acceleration} m/s², expected {expected}");
}

/// The block on a flat floor, pulled along −x through a spring (c = 1000 N/m) whose far end
/// moves at 1 cm/s: the pull grows at 10 N/s until the block breaks away.
const PULL: &str = r#"
model pull "a steel block pulled through a spring"
parameters { c = 1000 N/m "stiffness of the spring"; v = 0.01 m/s "speed of the spring's far end" }
experiment { stop_time = 3 s; interval = 1 ms; tolerance = 1e-7 }
object floor {
  parent = world; position = [0, -0.05, 0] m
  shape box { lengths = [4, 0.1, 1] m }
  contact { material = steel }
}
object block {
  shape box { lengths = [0.1, 0.05, 0.1] m }
  mass { material = steel }
  contact { material = steel }
  output = true
}
joint slide free { from = world; to = block; position = [0, 0.025, 0] }
object rail { parent = world; position = [0, 0.025, 0] m }
object hand { mass { m = 0.1 kg; inertia = diag(1e-4, 1e-4, 1e-4) kg.m2 }; output = true }
joint pull prismatic { from = rail; to = hand; axis = x; motion = -0.5 - v*t }
force rope spring { from = hand; to = block; c = c; length = 0.5 m }
"#;

#[test]
fn a_growing_pull_breaks_the_block_away_at_static_friction() {
    let spec = model::load_str_with(PULL, "pull.m3d", &[]).expect("model");
    let run = simulate(spec, 1e-7, 3.0, 1e-3);
    let c = run.parameter("c");
    let steel = materials::lookup("steel").expect("steel");
    let weight = steel.density * 0.1 * 0.05 * 0.1 * G;
    let (hand, block) = (run.column("hand.r[1]"), run.column("block.r[1]"));
    let (hand_y, block_y) = (run.column("hand.r[2]"), run.column("block.r[2]"));
    let pull: Vec<f64> = (0..run.time.len())
        .map(|k| c * ((block[k] - hand[k]).hypot(block_y[k] - hand_y[k]) - 0.5))
        .collect();
    // The break-away: where the block's speed after it, which grows at (μ_s − μ_k) g while
    // the pull stays μ_s m g (it changes by 10 N/s), extrapolates to zero. The samples from
    // the first one faster than 0.1 mm/s (stuck, the block moves at the rate its elastic offset
    // grows: about 5 µm/s) over the next 20 ms, after the first 0.1 s, in which it settles onto
    // the floor from just touching it.
    let speed = run.column("block.v[1]");
    let moved = (0..run.time.len())
        .find(|&k| run.time[k] > 0.1 && speed[k].abs() > 1e-4)
        .expect("the block breaks away");
    let (t, v) = (&run.time[moved..moved + 20], &speed[moved..moved + 20]);
    let (mean_t, mean_v) = (t.iter().sum::<f64>() / 20.0, v.iter().sum::<f64>() / 20.0);
    let slope = t
        .iter()
        .zip(v)
        .map(|(t, v)| (t - mean_t) * (v - mean_v))
        .sum::<f64>()
        / t.iter().map(|t| (t - mean_t).powi(2)).sum::<f64>();
    let broke = mean_t - mean_v / slope;
    let before = run
        .time
        .iter()
        .rposition(|t| *t <= broke)
        .expect("a sample before");
    let fraction = (broke - run.time[before]) / (run.time[before + 1] - run.time[before]);
    let peak = pull[before] + fraction * (pull[before + 1] - pull[before]);
    let expected = MU_S * weight;
    let error = (peak / expected - 1.0).abs();
    eprintln!(
        "pull: breaks away at {peak:.5} N (μ_s m g = {expected:.5} N, relative error {error:.1e}) \
         at t = {broke:.5} s; {} stick-slip events",
        run.simulation.friction_events()
    );
    // Measured 9.5e-7 (the issue's bound is 1e-4).
    assert!(
        error < 1e-5,
        "breaks away at {peak} N, expected {expected} N"
    );
    // Before it, the block holds: it has moved less than 0.1 mm when the pull is 90 % of it.
    let holding = pull
        .iter()
        .position(|f| *f > 0.9 * expected)
        .expect("the pull grows");
    assert!((block[holding] - block[0]).abs() < 1e-4);
}

/// The stick state is part of a saved state: restoring a snapshot taken while the block is
/// stuck, and continuing, gives the same break-away to the last bit; restored with every pair
/// slipping instead, the block breaks away at once.
#[test]
fn a_restored_state_keeps_the_block_stuck_where_it_was() {
    let spec = model::load_str_with(PULL, "pull.m3d", &[]).expect("model");
    fmu3d_tests::assert_stick_states_are_saved(spec, 1.0, 200, 0.01);
}
