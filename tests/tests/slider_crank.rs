//! The slider-crank (`models/slider_crank.m3d`), undamped and released under gravity with a
//! start speed: the piston follows the closed-form kinematics x(θ) = r cos θ + √(l² − r² sin² θ)
//! over full crank revolutions, and the total energy, computed here from the frame outputs and
//! the parameters, is conserved.

use fmu3d_tests::{load, simulate};
use std::f64::consts::PI;

#[test]
fn piston_follows_the_closed_form_kinematics() {
    let run = simulate(load("slider_crank", &[]), 1e-8, 1.0, 1e-3);
    let (r, l) = (run.parameter("r"), run.parameter("l"));
    let mut error = 0.0f64;
    let mut turned = 0.0;
    let mut previous = None;
    for k in 0..run.time.len() {
        let pin: [f64; 3] = run.vector("crank_pin.r", k);
        let piston: [f64; 3] = run.vector("piston.r", k);
        let theta = pin[1].atan2(pin[0]);
        let x = r * theta.cos() + (l * l - r * r * theta.sin().powi(2)).sqrt();
        error = error.max((piston[0] - x).abs()).max(piston[1].abs());
        if let Some(p) = previous {
            turned += ((theta - p + PI) as f64).rem_euclid(2.0 * PI) - PI;
        }
        previous = Some(theta);
    }
    eprintln!(
        "slider-crank: piston position error {error:.2e} m over {:.1} revolutions",
        turned / (2.0 * PI)
    );
    assert!(
        turned.abs() > 2.0 * PI,
        "the crank turns fully: {turned} rad"
    );
    // Measured 1.9e-10 m.
    assert!(error < 2e-9, "piston position error {error:e} m");
}

#[test]
fn energy_is_conserved_over_10_s() {
    let run = simulate(load("slider_crank", &[]), 1e-10, 10.0, 1e-2);
    let g = 9.81;
    let bodies = [
        ("crank_cm", run.parameter("m1"), run.parameter("J1")),
        ("rod_cm", run.parameter("m2"), run.parameter("J2")),
        ("piston", run.parameter("m3"), 0.001),
    ];
    let drift = run.relative_energy_drift(&bodies, g);
    eprintln!("slider-crank: relative energy drift {drift:.2e} over 10 s");
    assert!(drift < 1e-6, "relative energy drift {drift:e}");
}

/// The same mechanism closed at its prismatic joint (declared last, the pin before it): the cut
/// prismatic joint's position follows the closed form x = r cos θ + √(l² − r² sin² θ), and its
/// speed and the derivative of its speed (`fmi2GetRealOutputDerivatives`, exact for a cut-joint:
/// its acceleration) are the time derivatives of its position and speed (central differences
/// of 0.1 ms samples).
#[test]
fn a_prismatic_cut_joint_reports_its_position_speed_and_acceleration() {
    use fmu_runtime::simulation::{Simulation, SimulationOptions};
    let source = std::fs::read_to_string(fmu3d_tests::model_path("slider_crank")).unwrap();
    let slide = "joint slide prismatic { from = world; to = piston; axis = x; s_guess = 0.4 m }\n";
    let source = source.replace(slide, "") + slide;
    let spec = fmu_runtime::model::load_str_with(&source, "slider_crank.m3d", &[]).expect("model");
    let options = SimulationOptions {
        tolerance: Some(1e-10),
        ..SimulationOptions::default()
    };
    let mut simulation = Simulation::new(spec, options).expect("starts");
    assert_eq!(simulation.assembly.cut_joints.len(), 1);
    let index = |name: &str| {
        simulation
            .variables
            .variables
            .iter()
            .position(|v| v.name == name)
            .expect("a variable")
    };
    let (theta_i, s_i, v_i) = (index("crank_rev.phi"), index("slide.s"), index("slide.v"));
    let (r, l) = (0.1, 0.3);
    let h = 1e-4;
    let (mut theta, mut s, mut v, mut a) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for k in 0..=3000 {
        simulation.advance_to(k as f64 * h).expect("runs");
        let values = simulation.values_of(&[theta_i, s_i, v_i]);
        let mut derivative = [0.0];
        simulation.output_derivatives_into(&[v_i], &mut derivative);
        theta.push(values[0]);
        s.push(values[1]);
        v.push(values[2]);
        a.push(derivative[0]);
    }
    let (mut position, mut speed, mut acceleration) = (0.0f64, 0.0f64, 0.0f64);
    for k in 1..s.len() - 1 {
        let x = r * theta[k].cos() + (l * l - (r * theta[k].sin()).powi(2)).sqrt();
        position = position.max((s[k] - x).abs());
        speed = speed.max((v[k] - (s[k + 1] - s[k - 1]) / (2.0 * h)).abs());
        acceleration = acceleration.max((a[k] - (v[k + 1] - v[k - 1]) / (2.0 * h)).abs());
    }
    eprintln!(
        "prismatic cut: position off the closed form by {position:.1e} m, speed off the \
         difference of positions by {speed:.1e} m/s, acceleration by {acceleration:.1e} m/s²"
    );
    assert!(position < 1e-8, "position {position}");
    // Central differences over 0.1 ms; the acceleration comes from the integrator's derivative
    // estimate ẏ, less accurate than y (measured 6.7e-5 m/s and 3.6e-2 m/s², of 3 m/s and 90
    // m/s²).
    assert!(speed < 2e-4, "speed {speed}");
    assert!(acceleration < 0.1, "acceleration {acceleration}");
}
