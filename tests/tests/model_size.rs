//! Regression: the collision pairs were listed in advance, every two colliders, so their number
//! grew with the square of the bodies: 1 000 poured balls held 604 500 pairs (each with a
//! zero-crossing function), and 10 000 balls were refused ("more than the 26000 states this
//! engine supports for separate bodies (its collision pairs grow with the square of the
//! bodies)"), 51 million pairs. The pairs now come from the broad phase as they come near: a
//! started simulation holds the pairs near at the start only, a number in proportion to the
//! balls, and one zero-crossing function per collider.

use fmu3d_tests::load;
use fmu_runtime::dynamics::contacts::near_distances;
use fmu_runtime::dynamics::{kinematics, FlangeInputs, Workspace};
use fmu_runtime::simulation::{Simulation, SimulationOptions};

/// The pairs a started pour of nx × ny × nz balls holds, and its colliders.
fn pairs_at_start(nx: f64, ny: f64, nz: f64) -> (usize, usize) {
    let spec = load("pour", &[("nx", nx), ("ny", ny), ("nz", nz)]);
    let mut simulation = Simulation::new(spec, SimulationOptions::default()).expect("starts");
    let snapshot = simulation.snapshot().expect("a snapshot");
    let mechanism = simulation.mechanism();
    let n = mechanism.len();
    let mut workspace = Workspace::new(mechanism);
    let inputs = FlangeInputs::new(mechanism);
    kinematics(
        mechanism,
        &inputs,
        &mut workspace,
        &snapshot.y[..n],
        &snapshot.yp[..n],
    );
    near_distances(mechanism, &mut workspace, false);
    (workspace.pairs.len(), mechanism.collisions.colliders.len())
}

#[test]
fn the_pairs_of_a_pour_grow_with_the_balls_not_their_square() {
    for (nx, ny, nz) in [(5.0, 4.0, 5.0), (10.0, 10.0, 10.0), (20.0, 25.0, 20.0)] {
        let balls = (nx * ny * nz) as usize;
        let (pairs, colliders) = pairs_at_start(nx, ny, nz);
        // On the release grid (pitch 2.5 R) a ball is near its 6 neighbours (3 pairs per ball)
        // and inside the bounding spheres of the floor and the four walls (5 pairs per ball).
        println!(
            "{balls} balls: {pairs} pairs near at the start ({:.2} per ball; every two \
             colliders: {}), {colliders} colliders",
            pairs as f64 / balls as f64,
            colliders * (colliders - 1) / 2
        );
        assert!(pairs <= 8 * balls, "{pairs} pairs for {balls} balls");
    }
}
