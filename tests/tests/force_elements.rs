//! Force elements against the closed form of a damped oscillator: a body on a `spring_damper`
//! from a fixed anchor, moving along the line between them (no gravity, no sideways speed),
//! obeys m ẍ = −c (x − L0) − d ẋ: period 2π/ω_d with ω_d = ω0 √(1 − ζ²), ω0 = √(c/m),
//! ζ = d / (2 √(c m)), and successive maxima of x − L0 in the ratio exp(−ζ ω0 T_d).

use fmu3d_tests::{simulate, upward_zero_crossings};
use fmu_runtime::model;

const OSCILLATOR: &str = r#"
model oscillator "a body on a spring-damper"
parameters { m = 2 kg; c = 800 N/m; d = 4 N.s/m; L0 = 0.5 m; x0 = 0.6 m }
gravity none
experiment { stop_time = 2 s; interval = 0.1 ms; tolerance = 1e-10 }
object anchor { parent = world }
object body { mass { m = m; inertia = diag(0.01, 0.01, 0.01) kg.m2 }; output = true }
joint fly free { from = world; to = body; position = [x0, 0, 0] }
force link spring_damper { from = anchor; to = body; c = c; length = L0; d = d }
"#;

#[test]
fn a_spring_damper_rings_down_as_the_closed_form() {
    let spec = model::load_str_with(OSCILLATOR, "oscillator.m3d", &[]).expect("model");
    let run = simulate(spec, 1e-10, 2.0, 1e-4);
    let (m, c, d, l0) = (
        run.parameter("m"),
        run.parameter("c"),
        run.parameter("d"),
        run.parameter("L0"),
    );
    let omega0 = (c / m).sqrt();
    let zeta = d / (2.0 * (c * m).sqrt());
    let period = 2.0 * std::f64::consts::PI / (omega0 * (1.0 - zeta * zeta).sqrt());
    let stretch: Vec<f64> = run.column("body.r[1]").iter().map(|x| x - l0).collect();
    let crossings = upward_zero_crossings(&run.time, &stretch);
    assert!(crossings.len() >= 4, "it oscillates");
    let measured = (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64;
    // Decay: the stretch one period later, at the same phase.
    let at = |t: f64| {
        let k = run.time.partition_point(|&time| time <= t) - 1;
        let f = (t - run.time[k]) / (run.time[k + 1] - run.time[k]);
        stretch[k] + f * (stretch[k + 1] - stretch[k])
    };
    let t0 = 0.1;
    let ratio = at(t0 + period) / at(t0);
    let expected_ratio = (-zeta * omega0 * period).exp();
    let (period_error, ratio_error) = (
        (measured / period - 1.0).abs(),
        (ratio / expected_ratio - 1.0).abs(),
    );
    eprintln!(
        "spring-damper: period {measured:.7} s (closed form {period:.7}, {period_error:.1e}), \
         decay per period {ratio:.6} (closed form {expected_ratio:.6}, {ratio_error:.1e})"
    );
    // Measured 7.6e-9 and 6.0e-7 (the linear interpolation between 0.1 ms samples). The samples
    // are the integrator's dense output between steps of its own length at tolerance 1e-10
    // (4.6e-11 when every sample ended a step).
    assert!(period_error < 8e-8, "period {measured} vs {period}");
    assert!(ratio_error < 1e-5, "decay {ratio} vs {expected_ratio}");
}
