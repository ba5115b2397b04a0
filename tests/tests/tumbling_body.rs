//! A free body spinning near its intermediate principal axis flips (the intermediate-axis
//! effect) while its kinetic energy and its angular momentum in world coordinates stay constant.
//! Both are computed here from the frame outputs (Modelica quaternion and world angular
//! velocity) and the body's principal inertias.

use fmu3d_tests::{load, simulate};
use nalgebra::{Matrix3, Vector3};

/// Modelica's `Frames.from_Q`: the matrix that resolves world vectors in the frame.
fn from_modelica_q(q: [f64; 4]) -> Matrix3<f64> {
    let v = Vector3::new(q[0], q[1], q[2]);
    let s = q[3];
    Matrix3::identity() * (2.0 * s * s - 1.0) + 2.0 * v * v.transpose() - 2.0 * s * v.cross_matrix()
}

#[test]
fn energy_and_world_angular_momentum_are_conserved_while_it_flips() {
    let run = simulate(load("tumbling_body", &[]), 1e-10, 20.0, 1e-2);
    let inertia = Matrix3::from_diagonal(&Vector3::new(1.0, 2.0, 3.0));
    let mut body_rates = Vec::new();
    let (mut energies, mut momenta) = (Vec::new(), Vec::new());
    for k in 0..run.time.len() {
        let t = from_modelica_q(run.vector("body.Q", k));
        let w_world = Vector3::from(run.vector::<3>("body.w", k));
        let w_body = t * w_world;
        energies.push(0.5 * w_body.dot(&(inertia * w_body)));
        momenta.push(t.transpose() * (inertia * w_body));
        body_rates.push(w_body);
    }
    let (e0, l0) = (energies[0], momenta[0]);
    let energy_error = energies.iter().map(|e| (e - e0).abs()).fold(0.0, f64::max) / e0;
    let momentum_error = momenta.iter().map(|l| (l - l0).norm()).fold(0.0, f64::max) / l0.norm();
    eprintln!("tumbling body: energy drift {energy_error:.2e}, angular momentum drift {momentum_error:.2e}");
    assert!(energy_error < 1e-7, "energy drift {energy_error:e}");
    assert!(
        momentum_error < 1e-7,
        "angular momentum drift {momentum_error:e}"
    );
    // The spin about the intermediate (y) axis reverses: the body flips.
    let wy: Vec<f64> = body_rates.iter().map(|w| w.y).collect();
    assert!(wy[0] > 1.9, "starts spinning about +y: {}", wy[0]);
    assert!(wy.iter().any(|&w| w < -1.9), "flips to −y within 20 s");
}
