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
}
