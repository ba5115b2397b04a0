//! Two billiard balls ([NO19b] Figs. 8-9): with cor = 1 and no friction between the balls, a
//! central impact of equal masses exchanges their velocities: the struck ball leaves with the
//! striker's speed (within 1 %, the issue's bar) and the striker keeps almost none.

use fmu3d_tests::{load, simulate};

#[test]
fn the_struck_ball_leaves_with_the_strikers_speed() {
    let run = simulate(load("two_balls", &[]), 1e-8, 0.6, 1e-4);
    let striker = run.column("striker.v[1]");
    let target = run.column("target.v[1]");
    let k = target
        .iter()
        .position(|v| *v > 1e-3)
        .expect("the target is struck");
    // Compare the sample before the contact with the first one after it (the balls apart
    // again); the table's friction acts on both meanwhile, for a fraction of a millisecond.
    let r = run.parameter("r");
    let gap: Vec<f64> = run
        .column("target.r[1]")
        .iter()
        .zip(run.column("striker.r[1]"))
        .map(|(a, b)| a - b - 2.0 * r)
        .collect();
    let end = k + gap[k..]
        .iter()
        .position(|g| *g > 0.0)
        .expect("the contact ends");
    let (before, after) = (striker[k - 1], target[end]);
    eprintln!(
        "two balls: striker {before:.6} m/s before, target {after:.6} m/s after ({:+.3} %), striker {:.6} m/s after",
        100.0 * (after / before - 1.0),
        striker[end]
    );
    // The table's friction acts on both balls during the 0.4 ms contact: μ_k g t_c ≈ 2e-3 m/s
    // of 1.39 m/s between them (measured: the target 9e-5 short, the striker 1e-4 left over).
    assert!((after / before - 1.0).abs() < 1e-3, "{after} vs {before}");
    assert!(
        striker[end].abs() < 1e-3 * before,
        "the striker stops: {}",
        striker[end]
    );
    // The balls never pass through each other: the deepest penetration is elastic, small.
    let deepest = gap.iter().cloned().fold(f64::MAX, f64::min);
    assert!(deepest > -1e-3, "the balls overlap by {} m", -deepest);
}
