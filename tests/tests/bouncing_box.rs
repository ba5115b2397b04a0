//! An aluminium cube dropped tilted onto a dry-wood floor: with a sphere at every vertex of each
//! box, it lands on a corner, tumbles and comes to rest flat on a face, standing on four vertex
//! spheres, instead of chattering between corners. It never sinks into the floor by more than
//! the elastic penetration of its contacts.

use fmu3d_tests::{load, simulate};
use nalgebra::{Matrix3, Vector3};

/// Modelica's `Frames.from_Q`: the matrix that resolves world vectors in the frame.
fn from_modelica_q(q: [f64; 4]) -> Matrix3<f64> {
    let v = Vector3::new(q[0], q[1], q[2]);
    let s = q[3];
    Matrix3::identity() * (2.0 * s * s - 1.0) + 2.0 * v * v.transpose() - 2.0 * s * v.cross_matrix()
}

#[test]
fn tilted_box_comes_to_rest_on_a_face() {
    let run = simulate(load("bouncing_box", &[]), 1e-6, 3.0, 1e-3);
    let half = run.parameter("edge") / 2.0;
    // The rounded box: a core box of half extent `half - margin` swept by a 1 mm sphere.
    let margin = 1e-3;
    let core = half - margin;
    let mut deepest = f64::MAX;
    for k in 0..run.time.len() {
        let r = Vector3::from(run.vector::<3>("box.r", k));
        let to_world = from_modelica_q(run.vector("box.Q", k)).transpose();
        for corner in 0..8 {
            let sign = |bit: usize| if corner & bit == 0 { -core } else { core };
            let vertex = r + to_world * Vector3::new(sign(1), sign(2), sign(4));
            deepest = deepest.min(vertex.y - margin);
        }
    }
    let last = run.time.len() - 1;
    let height = run.column("box.r[2]")[last];
    let v = Vector3::from(run.vector::<3>("box.v", last)).norm();
    let w = Vector3::from(run.vector::<3>("box.w", last)).norm();
    eprintln!(
        "bouncing box: rests at height {height:.6} m (half edge {half}), |v| = {v:.2e} m/s, \
         |w| = {w:.2e} rad/s, deepest point {deepest:.2e} m, {} events",
        run.simulation.events()
    );
    assert!(
        (height - half).abs() < 1e-3,
        "the box rests on a face: center height {height} m"
    );
    assert!(v < 1e-3, "the box is at rest: |v| = {v} m/s");
    assert!(w < 1e-2, "the box is at rest: |w| = {w} rad/s");
    assert!(deepest > -2e-3, "the box sinks {deepest} m into the floor");
    assert!(
        run.simulation.events() >= 2,
        "contact starts and ends are events"
    );
}
