//! The undamped pendulum of [OEM03] §2 at 1° amplitude swings with the small-angle period
//! 2π·sqrt(I_O / (m·g·d)) (I_O: inertia about the pivot, d: distance of the center of mass).

use fmu3d_tests::{load, simulate, upward_zero_crossings};

#[test]
fn small_amplitude_period_matches_the_analytic_period() {
    // phi = 0 is horizontal (gravity along −y, center of mass on x): hang at −90°, swing 1°.
    let amplitude = 1f64.to_radians();
    let hanging = -90f64.to_radians();
    let spec = load("pendulum", &[("d", 0.0), ("phi0", hanging + amplitude)]);
    let run = simulate(spec, 1e-9, 10.0, 1e-3);
    let (m, g, d, inertia) = (run.parameter("m"), 9.81, 0.5, 0.001);
    let expected = 2.0 * std::f64::consts::PI * ((inertia + m * d * d) / (m * g * d)).sqrt();

    let phi: Vec<f64> = run.column("rev.phi").iter().map(|p| p - hanging).collect();
    let crossings = upward_zero_crossings(&run.time, &phi);
    assert!(crossings.len() >= 5, "the pendulum swings: {crossings:?}");
    let periods = crossings.len() - 1;
    let period = (crossings[periods] - crossings[0]) / periods as f64;
    let relative = (period - expected).abs() / expected;
    eprintln!(
        "pendulum: period {period:.9} s, analytic {expected:.9} s, relative error {relative:.2e}"
    );
    assert!(
        relative < 5e-4,
        "period {period} s vs {expected} s: {relative:e} relative"
    );
    // The amplitude is kept: no numerical damping beyond the tolerance.
    let max = phi.iter().cloned().fold(f64::MIN, f64::max);
    assert!(
        (max - amplitude).abs() < 1e-6 * amplitude.max(1.0),
        "amplitude {max} vs {amplitude}"
    );
}

/// The damped pendulum at 0.5° amplitude against the linearized closed form
/// I_O·θ̈ + c·θ̇ + m·g·d·θ = 0: ω0 = √(m·g·d/I_O), ζ = c/(2·√(I_O·m·g·d)), ω_d = ω0·√(1 − ζ²).
/// Successive maxima are a period 2π/ω_d apart and fall by exp(−ζ·ω0·2π/ω_d) (the logarithmic
/// decrement); the amplitude's nonlinear correction is θ²/16 = 5e-6 here.
#[test]
fn damping_decays_as_the_linearized_closed_form() {
    let amplitude = 0.5f64.to_radians();
    let hanging = -90f64.to_radians();
    let spec = load("pendulum", &[("phi0", hanging + amplitude)]);
    let run = simulate(spec, 1e-10, 10.0, 1e-3);
    let (m, g, d, c) = (run.parameter("m"), 9.81, 0.5, run.parameter("d"));
    let inertia = 0.001 + m * d * d;
    let omega0 = (m * g * d / inertia).sqrt();
    let zeta = c / (2.0 * (inertia * m * g * d).sqrt());
    let omega_d = omega0 * (1.0 - zeta * zeta).sqrt();
    let period = 2.0 * std::f64::consts::PI / omega_d;
    let decrement = zeta * omega0 * period;

    // Maxima of θ, each refined by the parabola through the three samples around it.
    let theta: Vec<f64> = run.column("rev.phi").iter().map(|p| p - hanging).collect();
    let h = run.time[1] - run.time[0];
    let mut maxima = Vec::new();
    for k in 1..theta.len() - 1 {
        let (a, b, c) = (theta[k - 1], theta[k], theta[k + 1]);
        if b > a && b >= c {
            let denominator = a - 2.0 * b + c;
            let s = 0.5 * (a - c) / denominator;
            maxima.push((run.time[k] + s * h, b - 0.25 * (a - c) * s));
        }
    }
    assert!(maxima.len() >= 5, "the pendulum swings: {maxima:?}");
    let n = (maxima.len() - 1) as f64;
    let (first, last) = (maxima[0], maxima[maxima.len() - 1]);
    let measured_period = (last.0 - first.0) / n;
    let measured_decrement = (first.1 / last.1).ln() / n;
    let period_error = (measured_period / period - 1.0).abs();
    let decrement_error = (measured_decrement / decrement - 1.0).abs();
    eprintln!(
        "damped pendulum: period {measured_period:.7} s vs {period:.7} s ({period_error:.1e}), \
         log decrement {measured_decrement:.7} vs {decrement:.7} ({decrement_error:.1e}), ζ = {zeta:.4}"
    );
    assert!(period_error < 1e-5, "period off by {period_error:e}");
    assert!(
        decrement_error < 1.5e-5,
        "decrement off by {decrement_error:e}"
    );
}
