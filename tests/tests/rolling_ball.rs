//! The rolling billiard ball of [NO19b] Figs. 6-7 against the textbook solution: a ball that
//! starts sliding at v0 without spin, under sliding friction μ_k, stops slipping at
//! t* = 2·v0 / (7·μ_k·g) and then rolls at 5/7·v0. Rolling resistance is set to zero here, so
//! that the rolling speed stays constant and can be compared.

use fmu3d_tests::{load, simulate};

#[test]
fn sliding_turns_into_rolling_at_the_analytic_time_and_speed() {
    let run = simulate(load("rolling_ball", &[("mu_r", 0.0)]), 1e-8, 0.5, 1e-4);
    let (r, v0, mu_k, g) = (
        run.parameter("r"),
        run.parameter("v0"),
        run.parameter("mu_k"),
        9.81,
    );
    let vx = run.column("ball.v[1]");
    let wz = run.column("ball.w[3]");
    // Slip of the contact point: v + ω × (−r·y) along x = v_x + r·ω_z.
    let slip: Vec<f64> = vx.iter().zip(wz).map(|(v, w)| v + r * w).collect();
    // While sliding, the slip falls linearly; fit the line where it is far from the
    // regularization velocity (0.01 m/s) and find where it reaches zero.
    let points: Vec<(f64, f64)> = run
        .time
        .iter()
        .zip(&slip)
        .filter(|(_, s)| **s > 0.2 && **s < 2.5)
        .map(|(t, s)| (*t, *s))
        .collect();
    let n = points.len() as f64;
    let (mt, ms) = (
        points.iter().map(|p| p.0).sum::<f64>() / n,
        points.iter().map(|p| p.1).sum::<f64>() / n,
    );
    let slope = points.iter().map(|p| (p.0 - mt) * (p.1 - ms)).sum::<f64>()
        / points.iter().map(|p| (p.0 - mt).powi(2)).sum::<f64>();
    let t_star = mt - ms / slope;
    let expected_t = 2.0 * v0 / (7.0 * mu_k * g);
    let v_roll = *vx.last().expect("samples");
    let expected_v = 5.0 / 7.0 * v0;
    eprintln!(
        "rolling ball: t* = {t_star:.6} s (analytic {expected_t:.6} s, {:+.3} %), rolling speed {v_roll:.6} m/s (analytic {expected_v:.6}, {:+.4} %)",
        100.0 * (t_star / expected_t - 1.0),
        100.0 * (v_roll / expected_v - 1.0)
    );
    assert!((t_star / expected_t - 1.0).abs() < 0.005, "t* = {t_star}");
    assert!((v_roll / expected_v - 1.0).abs() < 0.001, "v = {v_roll}");
    assert!(
        slip.last().expect("samples").abs() < 1e-3,
        "it rolls without slipping at the end"
    );
}
