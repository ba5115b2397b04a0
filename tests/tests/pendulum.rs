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

#[test]
fn damping_takes_energy_out() {
    let spec = load("pendulum", &[]);
    let run = simulate(spec, 1e-6, 20.0, 1e-2);
    let w = run.column("rev.w");
    let late = w[w.len() - 100..]
        .iter()
        .map(|x| x.abs())
        .fold(0.0, f64::max);
    let early = w[..200].iter().map(|x| x.abs()).fold(0.0, f64::max);
    assert!(
        late < 0.5 * early,
        "the damper slows the swing: {late} vs {early}"
    );
}
