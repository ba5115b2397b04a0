//! The undamped double pendulum conserves its total energy. The energy is computed here from the
//! frame outputs (positions and velocities of the two bobs) and the model's parameters, not
//! from anything inside the engine.

use fmu3d_tests::{load, simulate};

#[test]
fn energy_drift_stays_below_1e_6_over_10_s() {
    let run = simulate(load("double_pendulum", &[]), 1e-8, 10.0, 1e-2);
    let g = 9.81;
    let (m1, m2) = (run.parameter("m1"), run.parameter("m2"));
    let inertia = 1e-6;
    let energy = |k: usize| {
        let mut e = 0.0;
        for (name, m) in [("bob1", m1), ("bob2", m2)] {
            let r: [f64; 3] = run.vector(&format!("{name}.r"), k);
            let v: [f64; 3] = run.vector(&format!("{name}.v"), k);
            let w: [f64; 3] = run.vector(&format!("{name}.w"), k);
            let v2: f64 = v.iter().map(|x| x * x).sum();
            let w2: f64 = w.iter().map(|x| x * x).sum();
            e += 0.5 * m * v2 + 0.5 * inertia * w2 + m * g * r[1];
        }
        e
    };
    let e0 = energy(0);
    // Scale for the relative drift: the largest kinetic energy reached (e0 itself can be near 0).
    let scale = (m1 + m2) * g * (run.parameter("L1") + run.parameter("L2"));
    let drift = (0..run.time.len())
        .map(|k| (energy(k) - e0).abs())
        .fold(0.0, f64::max)
        / scale;
    eprintln!("double pendulum: relative energy drift {drift:.2e} over 10 s");
    assert!(drift < 1e-6, "relative energy drift {drift:e}");
    // It really moves: the second bob travels.
    let x2 = run.column("bob2.r[1]");
    let span =
        x2.iter().cloned().fold(f64::MIN, f64::max) - x2.iter().cloned().fold(f64::MAX, f64::min);
    assert!(span > 0.5, "the pendulum swings: span {span}");
}
