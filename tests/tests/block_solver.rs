//! The block-sparse linear solver on whole simulations: balls poured into a box
//! (`models/pour.m3d`, 27 balls, 351 states: above the size from which the block LU is the
//! default) run with the block LU and with SUNDIALS' dense LU must be the same motion within
//! the integrator's tolerance, and physically sound: every ball stays inside the box (walls and
//! floor, less what a contact can press in), and the mechanical energy (kinetic and potential;
//! the contacts only dissipate) rises between samples by no more than the integrator's relative
//! tolerance (the model's 1e-4) allows of the start energy.

use fmu3d_tests::{load, simulate_with};
use fmu_runtime::ida::LinearSolverKind;
use fmu_runtime::simulation::{SimulationOptions, BLOCK_SOLVER_STATES};

const G: f64 = 9.81;

fn pour(kind: LinearSolverKind) -> fmu3d_tests::Trajectory {
    let spec = load("pour", &[("nx", 3.0), ("ny", 3.0), ("nz", 3.0)]);
    let options = SimulationOptions {
        linear_solver: Some(kind),
        ..SimulationOptions::default()
    };
    simulate_with(spec, options, 0.4, 0.01)
}

#[test]
fn the_block_lu_pours_the_balls_as_the_dense_lu_does() {
    let blocks = pour(LinearSolverKind::Blocks);
    let dense = pour(LinearSolverKind::Dense);
    let stats = blocks.simulation.stats();
    assert!(blocks.simulation.state_count() >= BLOCK_SOLVER_STATES);
    println!(
        "blocks: {} steps, {} Jacobians; dense: {} steps",
        stats.steps,
        stats.jacobian_evals,
        dense.simulation.stats().steps
    );

    let (r, p, h0, count) = (0.01, 0.025, 0.05, 27);
    let half_width = 1.5 * p; // 3 balls of pitch p between the walls
    let mut largest_difference: f64 = 0.0;
    let mut deepest: f64 = 0.0;
    let energy = |t: &fmu3d_tests::Trajectory, k: usize| -> f64 {
        (1..=count)
            .map(|i| {
                let v = t.vector::<3>(&format!("ball[{i}].v"), k);
                let w = t.vector::<3>(&format!("ball[{i}].w"), k);
                let y = t.vector::<3>(&format!("ball[{i}].r"), k)[1];
                // Per unit mass: ½v² + ⅕r²ω² + g·y (a solid sphere).
                0.5 * v.iter().map(|x| x * x).sum::<f64>()
                    + 0.2 * r * r * w.iter().map(|x| x * x).sum::<f64>()
                    + G * y
            })
            .sum()
    };
    let start_energy = energy(&blocks, 0);
    let mut previous = start_energy;
    let mut largest_rise: f64 = 0.0;
    for k in 0..blocks.time.len() {
        for i in 1..=count {
            let name = format!("ball[{i}].r");
            let (a, b) = (blocks.vector::<3>(&name, k), dense.vector::<3>(&name, k));
            for d in 0..3 {
                largest_difference = largest_difference.max((a[d] - b[d]).abs());
            }
            deepest = deepest
                .max(r - a[1])
                .max(a[0].abs() + r - half_width)
                .max(a[2].abs() + r - half_width);
        }
        let e = energy(&blocks, k);
        largest_rise = largest_rise.max(e - previous);
        previous = e;
    }
    // The balls fell h0 = 5 cm and more, and hit the floor.
    let lowest_start = blocks.vector::<3>("ball[1].r", 0)[1];
    assert!((lowest_start - h0).abs() < 1e-12);
    println!(
        "largest position difference block vs dense LU {largest_difference:.2e} m, \
         deepest reach into floor or wall {deepest:.2e} m, largest energy rise \
         {largest_rise:.2e} J/kg"
    );
    assert!(largest_difference < 1e-4, "{largest_difference:e}");
    assert!(deepest < 1e-5, "{deepest:e}");
    let allowed = 1e-4 * start_energy;
    println!("energy rise allowed by the tolerance {allowed:.2e} J/kg");
    assert!(largest_rise < allowed, "{largest_rise:e}");
}
