//! End stops of revolute and prismatic joints (`lower`, `upper`, `stop_stiffness`,
//! `stop_damping`) against references that do not come from the engine:
//! - without damping a stop is a spring while it is pressed: a slider arriving at v0 leaves after
//!   half a period π·√(m/c) at −v0, having gone v0·√(m/c) past the stop;
//! - with damping, the law of Modelica's `ElastoGap` (c·δ + d·δ̇, the damper's part limited to
//!   ±c·δ) integrated by a fourth-order Runge–Kutta method in this file;
//! - at rest on a stop under gravity, statics: c·δ = m·g·r·cos δ for the shipped barrier boom.

use fmu3d_tests::{load, refusal, runge_kutta, simulate};
use fmu_runtime::model;
use std::f64::consts::PI;

/// A slider moving at `v0` between stops at ±0.1 m, no gravity; or (`turning`) a wheel of the
/// same inertia about its axle turning at `v0` between stops at ±0.1 rad: the same equation.
fn stopped_joint(turning: bool, damping: f64) -> model::ModelSpec {
    let joint = if turning {
        format!("joint rail revolute {{ from = world; to = body; axis = z; w = v0; lower = -0.1; upper = 0.1; stop_stiffness = c; stop_damping = {damping} }}")
    } else {
        format!("joint rail prismatic {{ from = world; to = body; axis = x; v = v0; lower = -0.1 m; upper = 0.1 m; stop_stiffness = c; stop_damping = {damping} N.s/m }}")
    };
    let source = format!(
        r#"
model slider
parameters {{ m = 2; v0 = 0.5; c = 2e4 }}
gravity none
object body {{ mass {{ m = m; inertia = diag(m/2, m/2, m) kg.m2 }} }}
{joint}
"#
    );
    model::load_str_with(&source, "slider.m3d", &[]).expect("model")
}

fn slider(damping: f64) -> model::ModelSpec {
    stopped_joint(false, damping)
}

#[test]
fn a_slider_bounces_off_undamped_stops_as_off_springs() {
    let run = simulate(slider(0.0), 1e-9, 1.0, 1e-5);
    let (m, v0, c) = (run.parameter("m"), run.parameter("v0"), run.parameter("c"));
    let omega = (c / m).sqrt();
    // It reaches the upper stop at 0.1/v0 and leaves half a period later at −v0, crosses to
    // the lower stop, and leaves that at +v0 half a period after reaching it.
    let half_period = PI / omega;
    let leaves_upper = 0.1 / v0 + half_period;
    let leaves_lower = leaves_upper + 0.2 / v0 + half_period;
    let s = run.column("rail.s");
    let v = run.column("rail.v");
    let at = |t: f64| run.time.partition_point(|&time| time < t - 1e-9);
    let (k_back, last) = (at(0.5), s.len() - 1);
    let expected_back = 0.1 - v0 * (run.time[k_back] - leaves_upper);
    let expected_last = -0.1 + v0 * (run.time[last] - leaves_lower);
    let reach = v0 / omega;
    let upper_overtravel = s[..k_back].iter().fold(f64::MIN, |a, &b| a.max(b)) - 0.1;
    let lower_overtravel = -0.1 - s.iter().fold(f64::MAX, |a, &b| a.min(b));
    let errors = [
        (s[k_back] - expected_back).abs(),
        (v[k_back] + v0).abs() / v0,
        (upper_overtravel / reach - 1.0).abs(),
        (s[last] - expected_last).abs(),
        (v[last] - v0).abs() / v0,
        (lower_overtravel / reach - 1.0).abs(),
    ];
    eprintln!(
        "undamped stops: after the upper one s {:.10} m ({:.1e} from the closed form), speed \
         {:.10} m/s ({:.1e} relative), overtravel {upper_overtravel:.6e} m ({:.1e}); after the \
         lower one s {:.10} m ({:.1e}), speed {:.10} m/s ({:.1e}), overtravel \
         {lower_overtravel:.6e} m ({:.1e}); {} end-stop events",
        s[k_back],
        errors[0],
        v[k_back],
        errors[1],
        errors[2],
        s[last],
        errors[3],
        v[last],
        errors[4],
        errors[5],
        run.simulation.stop_events()
    );
    // Measured 1.8e-8 m, 1.1e-7 and 2.8e-8 after the first stop: the integrator's global
    // error over the half period in the stop (some 50 steps at the tolerance 1e-9; the free
    // flight is exact); 6.2e-8 m, 2.2e-7 and 1.9e-7 after the second.
    let bounds = [4e-8, 2.5e-7, 6e-8, 1.3e-7, 4.5e-7, 4e-7];
    for (error, bound) in errors.iter().zip(bounds) {
        assert!(error < &bound, "{errors:?} against {bounds:?}");
    }
    assert_eq!(
        run.simulation.stop_events(),
        4,
        "reaching and leaving each stop"
    );
}

/// m ẍ = −F(x, ẋ) past the upper stop at 0.1 m, ElastoGap's law, integrated with RK4.
fn elasto_gap_reference(m: f64, c: f64, d: f64, v0: f64, until: f64, dt: f64) -> (f64, f64) {
    let acceleration = |x: f64, v: f64| {
        let overtravel = x - 0.1;
        if overtravel <= 0.0 {
            return 0.0;
        }
        let spring = c * overtravel;
        let damper = (d * v).clamp(-spring, spring);
        -(spring + damper) / m
    };
    runge_kutta(acceleration, (0.0, v0), until, dt)
}

#[test]
fn a_damped_stop_follows_the_elasto_gap_law() {
    let damping = 150.0;
    for (turning, (q, v)) in [
        (false, ("rail.s", "rail.v")),
        (true, ("rail.phi", "rail.w")),
    ] {
        let run = simulate(stopped_joint(turning, damping), 1e-10, 0.4, 1e-3);
        let (m, v0, c) = (run.parameter("m"), run.parameter("v0"), run.parameter("c"));
        let (x_ref, v_ref) = elasto_gap_reference(m, c, damping, v0, 0.4, 1e-6);
        let last = run.time.len() - 1;
        let (x, w) = (run.column(q)[last], run.column(v)[last]);
        eprintln!(
            "damped stop ({q}): {x:.10} at 0.4 s, RK4 {x_ref:.10} ({:.1e}); rebound {w:.10}, \
             RK4 {v_ref:.10} ({:.1e}); restitution {:.4}",
            (x - x_ref).abs(),
            (w - v_ref).abs(),
            -w / v0
        );
        // The damper takes energy: it comes back slower, and not by the spring–damper's
        // exp(−ζπ/√(1 − ζ²)) alone (the limit acts at the start and the end of the contact).
        assert!(-w / v0 < 0.7 && -w / v0 > 0.3, "restitution {}", -w / v0);
        // Measured 4.3e-10 and 1.3e-9 (m, m/s; rad, rad/s) at the tolerance 1e-10.
        assert!((x - x_ref).abs() < 1e-9, "position {x} vs {x_ref}");
        assert!((w - v_ref).abs() < 3e-9, "rebound {w} vs {v_ref}");
    }
}

/// The barrier boom at rest on a stop: its angle at 3 s against statics, c·δ = m·g·r·cos δ
/// (r = L/2), past `stop` by δ in the direction `side`; and the lowest reach past the stop on
/// the way, against what an undamped stop would let it reach.
fn comes_to_rest_on_its_stop(run: &fmu3d_tests::Trajectory, stop: f64, side: f64) {
    let (m, length, c) = (run.parameter("m"), run.parameter("L"), run.parameter("c"));
    let weight = m * 9.81 * length / 2.0;
    let mut deflection = weight / c;
    for _ in 0..5 {
        deflection = weight * deflection.cos() / c;
    }
    let expected = stop + side * deflection;
    let phi = run.column("hinge.phi");
    let last = *phi.last().expect("samples");
    let farthest = phi
        .iter()
        .map(|&p| side * (p - stop))
        .fold(f64::MIN, f64::max);
    let error = (last - expected).abs();
    // It arrives with ½·J·ω² = m·g·r·sin φ0 (the weight's work from φ0 to the stop, 80° in
    // both scenes), and an undamped stop would take that and the weight's work on:
    // ½·c·δ² = ½·J·ω² + m·g·r·δ. The damper only adds to the spring while the boom presses in.
    let arrival = weight * (stop - run.parameter("phi0")).abs().sin();
    let undamped = (weight + (weight * weight + 2.0 * c * arrival).sqrt()) / c;
    eprintln!(
        "boom at rest: {last:.12} rad, statics {expected:.12} rad ({error:.1e}); farthest past \
         the stop {farthest:.6} rad (undamped {undamped:.6}); {} end-stop events",
        run.simulation.stop_events()
    );
    // Measured 8.9e-12 rad on the lower stop and 1.7e-10 rad on the upper one at tolerance
    // 1e-8: it has settled (ζ ≈ 0.3 on the stop).
    assert!(error < 4e-10, "rest angle {last} vs {expected}");
    assert!(run.simulation.stop_events() >= 3, "it bounces");
    assert!(farthest > 0.0 && farthest < undamped, "farthest {farthest}");
}

#[test]
fn the_barrier_boom_comes_to_rest_on_its_stop_as_statics_says() {
    let run = simulate(load("boom_barrier", &[]), 1e-8, 3.0, 0.01);
    comes_to_rest_on_its_stop(&run, 0.0, -1.0);
}

/// Gravity along −x pulls the boom (from 10°, 80° from the upper stop) up onto its stop at 90°:
/// the same statics, on the other side.
#[test]
fn a_boom_pulled_the_other_way_rests_on_its_upper_stop() {
    let source = std::fs::read_to_string(fmu3d_tests::model_path("boom_barrier")).expect("model");
    let source = source.replace("g = [0, -9.81, 0]", "g = [-9.81, 0, 0]");
    assert!(source.contains("[-9.81, 0, 0]"));
    let spec = model::load_str_with(&source, "boom.m3d", &[("phi0".into(), 10f64.to_radians())])
        .expect("model");
    let run = simulate(spec, 1e-8, 3.0, 0.01);
    comes_to_rest_on_its_stop(&run, 90f64.to_radians(), 1.0);
}

#[test]
fn an_end_stop_without_a_stiffness_an_empty_range_or_on_a_loop_is_refused() {
    let body = "object b { mass { m = 1; inertia = diag(1, 1, 1) } }\n";
    let without_stiffness = refusal(&format!(
        "{body}joint j revolute {{ from = world; to = b; lower = -1; upper = 1 }}"
    ));
    assert!(
        without_stiffness.contains("an end stop needs `stop_stiffness`"),
        "{without_stiffness}"
    );
    let empty = refusal(&format!(
        "{body}joint j prismatic {{ from = world; to = b; lower = 1; upper = 1; stop_stiffness = 10 }}"
    ));
    assert!(
        empty.contains("`lower` (1) must be less than `upper` (1)"),
        "{empty}"
    );
    let alone = refusal(&format!(
        "{body}joint j prismatic {{ from = world; to = b; stop_damping = 10 }}"
    ));
    assert!(alone.contains("belongs to an end stop"), "{alone}");
    let moved = refusal(&format!(
        "{body}joint j revolute {{ from = world; to = b; motion = t; upper = 1; stop_stiffness = 10 }}"
    ));
    assert!(moved.contains("`upper` cannot be given with it"), "{moved}");
    let source = std::fs::read_to_string(fmu3d_tests::model_path("fourbar")).expect("fourbar");
    // Stops on every passive joint of the four-bar: one of them closes the loop.
    let stopped = source.replace(
        "phi_guess =",
        "lower = -3; upper = 3; stop_stiffness = 100; phi_guess =",
    );
    let on_loop = refusal(&stopped);
    assert!(on_loop.contains("end stop"), "{on_loop}");
    for message in [without_stiffness, empty, alone, moved, on_loop] {
        eprintln!("{message}");
    }
}
