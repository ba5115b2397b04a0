//! The spatial four-bar of Fig. 9 (`models/fourbar_prismatic.m3d`: six revolute joints, one
//! prismatic joint, one degree of freedom), undamped and released under gravity.
//!
//! Checks: every joint keeps its two frames together and its axes aligned (closure residual);
//! the slider follows the closed-form position derived in the test from the crank angle; the
//! total energy, computed from the frame outputs and the parameters, is conserved.

use fmu3d_tests::{load, simulate, Trajectory};
use nalgebra::{Quaternion, Rotation3, UnitQuaternion, Vector3};

fn position(run: &Trajectory, name: &str, k: usize) -> Vector3<f64> {
    Vector3::from(run.vector::<3>(&format!("{name}.r"), k))
}

/// The frame's orientation (frame to world) from its Modelica quaternion output.
fn orientation(run: &Trajectory, name: &str, k: usize) -> UnitQuaternion<f64> {
    let q: [f64; 4] = run.vector(&format!("{name}.Q"), k);
    UnitQuaternion::from_quaternion(Quaternion::new(q[3], q[0], q[1], q[2]))
}

/// Largest violation of any joint of the loop: distance of the two frame origins (m) and the
/// sine of the angle between the joint's axis seen from its two sides.
fn closure(run: &Trajectory, k: usize) -> f64 {
    let r = |name: &str| position(run, name, k);
    let axis = |name: &str, e: Vector3<f64>| orientation(run, name, k) * e;
    let mut worst = 0.0f64;
    for (a, b) in [
        (r("b1_tip"), r("cross1")),
        (r("cross1"), r("cross2")),
        (r("cross2"), r("b3")),
        (r("b3_a"), r("cross3")),
        (r("cross3"), r("b2_b")),
    ] {
        worst = worst.max((a - b).norm());
    }
    let (x, y, z) = (Vector3::x(), Vector3::y(), Vector3::z());
    for (a, b) in [
        (x, axis("b1_tip", x)),
        (axis("b1_tip", x), axis("cross1", x)),
        (axis("cross1", y), axis("cross2", y)),
        (axis("cross2", z), axis("b3", z)),
        (axis("cross3", z), axis("b3_a", z)),
        (axis("b2_b", y), axis("cross3", y)),
    ] {
        worst = worst.max(a.cross(&b).norm());
    }
    // The slider only translates along x: its frame stays parallel to the world, on the x axis.
    let slider = orientation(run, "b2", k);
    worst = worst
        .max(slider.angle())
        .max(r("b2").y.abs())
        .max(r("b2").z.abs());
    worst
}

#[test]
fn loop_stays_closed_and_slider_follows_the_closed_form() {
    let run = simulate(load("fourbar_prismatic", &[]), 1e-8, 5.0, 5e-3);
    let (mut worst_closure, mut slider_error, mut turned) = (0.0f64, 0.0f64, 0.0f64);
    for k in 0..run.time.len() {
        worst_closure = worst_closure.max(closure(&run, k));
        // Crank angle θ (the joint output); the tip P = Rx(θ)·[0, 0.5, 0.1]. The slider's
        // bar ends at Q = [1.2 + s, 0.2, 0] and the coupler keeps |P − Q| = |[-1, 0.3, 0.1]|,
        // so 1.2 + s = √(1.1 − (P_y − 0.2)² − P_z²) on the branch of the start (s = −0.2).
        let theta = run.column("j1.phi")[k];
        let p = Rotation3::from_axis_angle(&Vector3::x_axis(), theta) * Vector3::new(0.0, 0.5, 0.1);
        let x = (1.1 - (p.y - 0.2).powi(2) - p.z.powi(2)).sqrt();
        slider_error = slider_error.max((position(&run, "b2", k).x - x).abs());
        if k > 0 {
            let w0 = run.column("b1_cm.w[1]")[k - 1];
            let w1 = run.column("b1_cm.w[1]")[k];
            turned += 0.5 * (w0 + w1) * (run.time[k] - run.time[k - 1]);
        }
    }
    eprintln!(
        "fourbar_prismatic: closure residual {worst_closure:.2e}, slider position error \
         {slider_error:.2e} m over {:.1} crank revolutions",
        turned / (2.0 * std::f64::consts::PI)
    );
    assert!(
        turned.abs() > 4.0 * std::f64::consts::PI,
        "the crank turns fully"
    );
    // Measured 4.3e-10.
    assert!(worst_closure < 5e-9, "closure residual {worst_closure:e}");
    assert!(
        slider_error < 1e-6,
        "slider position error {slider_error:e} m"
    );
    // One spatial loop: the cut-joint keeps all five of its closure equations.
    let mechanism = run.simulation.mechanism();
    assert_eq!(mechanism.cuts.len(), 1);
    assert_eq!((mechanism.rows.len(), mechanism.dropped.len()), (5, 0));
}

#[test]
fn energy_is_conserved_over_10_s() {
    let run = simulate(load("fourbar_prismatic", &[]), 1e-10, 10.0, 1e-2);
    let g = 9.81;
    let p = |name: &str| run.parameter(name);
    // Every body's mass sits at a frame with an output, with an isotropic inertia about it.
    let bodies = [
        ("b1_cm", p("m1"), p("J1")),
        ("b3_cm", p("m3"), p("J3")),
        ("b2_cm", p("m2"), p("J2")),
        ("b2", p("ms"), p("Js")),
        ("cross1", p("m0"), p("J0")),
        ("cross2", p("m0"), p("J0")),
        ("cross3", p("m0"), p("J0")),
    ];
    let drift = run.relative_energy_drift(&bodies, g);
    eprintln!("fourbar_prismatic: relative energy drift {drift:.2e} over 10 s");
    // Measured 1.0e-8.
    assert!(drift < 1e-7, "relative energy drift {drift:e}");
}
