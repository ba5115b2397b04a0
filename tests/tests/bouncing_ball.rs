//! The bouncing ball of [NO19b] (steel on dry wood, cor = 0.7): while the impact velocity is
//! well above the regularization velocity, each rebound reaches cor² of the height before
//! (within 5 %, the bar); contacts are events, and the ball never sinks into the floor
//! by more than the elastic penetration of the contact.

use fmu3d_tests::{load, simulate};

#[test]
fn rebound_heights_fall_by_cor_squared() {
    let run = simulate(load("bouncing_ball", &[]), 1e-6, 3.0, 1e-4);
    let radius = run.parameter("diameter") / 2.0;
    let height: Vec<f64> = run.column("ball.r[2]").iter().map(|y| y - radius).collect();
    let vy = run.column("ball.v[2]");
    // Apexes: the vertical velocity crosses zero downwards; interpolate the height there.
    let mut apexes = vec![run.parameter("height") - radius];
    for k in 1..vy.len() {
        if vy[k - 1] > 0.0 && vy[k] <= 0.0 {
            let s = vy[k - 1] / (vy[k - 1] - vy[k]);
            apexes.push(height[k - 1] + s * (height[k] - height[k - 1]));
        }
    }
    let cor: f64 = 0.7;
    let v_small = 0.01;
    let mut checked = 0;
    for pair in apexes.windows(2) {
        // Impact speed of the second drop sqrt(2 g h) well above the regularization velocity.
        if (2.0 * 9.81 * pair[1]).sqrt() < 20.0 * v_small {
            break;
        }
        let ratio = pair[1] / pair[0];
        eprintln!(
            "bouncing ball: rebound {:.5} m / {:.5} m = {ratio:.4} (cor² = {:.4})",
            pair[1],
            pair[0],
            cor * cor
        );
        assert!((ratio / (cor * cor) - 1.0).abs() < 0.05, "ratio {ratio}");
        checked += 1;
    }
    assert!(
        checked >= 4,
        "at least four rebounds are checked: {apexes:?}"
    );
    let deepest = height.iter().cloned().fold(f64::MAX, f64::min);
    assert!(deepest > -1e-3, "the ball sinks {deepest} m into the floor");
    assert!(
        run.simulation.events() >= 2 * checked as u64,
        "contact starts and ends are events"
    );
    // At rest, the contact output carries the ball's weight: m g with m = ρ·(4/3)π r³ of steel
    // (7850 kg/m³, the material table's value).
    let weight = 7850.0 * 4.0 / 3.0 * std::f64::consts::PI * radius.powi(3) * 9.81;
    let f_n = *run.column("impact.f_n").last().expect("samples");
    let penetration = *run.column("impact.penetration").last().expect("samples");
    let distance = *run.column("impact.distance").last().expect("samples");
    eprintln!("bouncing ball at rest: f_n = {f_n:.6} N, m g = {weight:.6} N, penetration {penetration:.3e} m");
    assert!(
        (f_n / weight - 1.0).abs() < 1e-3,
        "f_n = {f_n}, m g = {weight}"
    );
    assert!(penetration > 0.0 && (distance + penetration).abs() < 1e-15);
}
