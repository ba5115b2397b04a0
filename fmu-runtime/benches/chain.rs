//! Scaling of the residual and of whole simulations with the number of bodies, on the shipped
//! `chain` model (N links on revolute joints), N = 2 … 64.
//!
//! `cargo bench -p fmu-runtime --bench chain` prints a Markdown table: the cost of one residual
//! evaluation and of one exact Jacobian (`dynamics::ExactJacobian`, with the residual evaluation
//! it is formed after), the wall time per simulated second and IDA's statistics for 1 s of
//! motion, and the exponents p of least-squares fits time ∝ N^p.

use fmu_runtime::assembly::Assembly;
use fmu_runtime::dynamics::{
    consistent_derivatives, residual, ExactJacobian, FlangeInputs, Mechanism, Workspace,
};
use fmu_runtime::ida::{DenseMatrixView, JacobianMatrix};
use fmu_runtime::model;
use fmu_runtime::scene::Scene;
use fmu_runtime::simulation::{Simulation, SimulationOptions};
use std::hint::black_box;
use std::time::{Duration, Instant};

const SIZES: [usize; 6] = [2, 4, 8, 16, 32, 64];
const SIMULATED: f64 = 1.0;
const TOLERANCE: f64 = 1e-6;

fn chain(n: usize) -> model::ModelSpec {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../models/chain.m3d");
    let source = std::fs::read_to_string(path).expect("models/chain.m3d is readable");
    model::load_str_with(&source, path, &[("N".to_string(), n as f64)]).expect("the chain loads")
}

/// Median over batches of the time of one call of `work`, in nanoseconds.
fn median_nanoseconds(mut work: impl FnMut()) -> f64 {
    let mut time_batch = |batch: usize| {
        let start = Instant::now();
        for _ in 0..batch {
            work();
        }
        start.elapsed()
    };
    let mut batch = 1usize;
    while time_batch(batch) < Duration::from_millis(20) {
        batch *= 2;
    }
    let mut samples: Vec<f64> = (0..15)
        .map(|_| time_batch(batch).as_nanos() as f64 / batch as f64)
        .collect();
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

/// The time of one residual evaluation and of one exact Jacobian (the residual evaluation it
/// is formed after included), in nanoseconds, at the start state.
fn residual_and_jacobian_nanoseconds(spec: &model::ModelSpec) -> (f64, f64) {
    let scene = Scene::from_spec(spec).expect("scene");
    let assembly = Assembly::build(&scene).expect("assembly");
    let mechanism = Mechanism::new(&scene, &assembly);
    let inputs = FlangeInputs::new(&mechanism);
    let mut ws = Workspace::new(&mechanism);
    let y = mechanism.initial_state();
    let yp = consistent_derivatives(&mechanism, &inputs, &mut ws, &y).expect("regular");
    let n = y.len();
    let mut res = vec![0.0; n];
    let residual_ns = median_nanoseconds(|| {
        residual(
            &mechanism,
            &inputs,
            &mut ws,
            black_box(&y),
            black_box(&yp),
            &mut res,
        );
    });
    let exact = ExactJacobian::new(&mechanism).expect("a chain has an exact Jacobian");
    let mut matrix = vec![0.0; n * n];
    let jacobian_ns = median_nanoseconds(|| {
        residual(
            &mechanism,
            &inputs,
            &mut ws,
            black_box(&y),
            black_box(&yp),
            &mut res,
        );
        matrix.fill(0.0);
        let mut view = JacobianMatrix::Dense(DenseMatrixView::new(&mut matrix, n).expect("n × n"));
        exact
            .jacobian(&mechanism, &inputs, &ws, &y, &yp, 1e3, &mut view)
            .expect("formed");
    });
    (residual_ns, jacobian_ns)
}

/// Least-squares slope of ln(time) over ln(N).
fn slope(points: &[(f64, f64)]) -> f64 {
    let count = points.len() as f64;
    let mean_x = points.iter().map(|p| p.0).sum::<f64>() / count;
    let mean_y = points.iter().map(|p| p.1).sum::<f64>() / count;
    points
        .iter()
        .map(|p| (p.0 - mean_x) * (p.1 - mean_y))
        .sum::<f64>()
        / points.iter().map(|p| (p.0 - mean_x).powi(2)).sum::<f64>()
}

fn main() {
    println!("| N | states | residual [µs] | exact Jacobian [µs] | per state [µs] | wall per simulated s [ms] | IDA steps | residual evals | +for Jacobians | Jacobians | error-test fails |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    let (mut points, mut jacobian_points) = (Vec::new(), Vec::new());
    for n in SIZES {
        let spec = chain(n);
        let (residual_ns, jacobian_ns) = residual_and_jacobian_nanoseconds(&spec);
        points.push(((n as f64).ln(), residual_ns.ln()));
        jacobian_points.push(((n as f64).ln(), jacobian_ns.ln()));
        let mut walls = Vec::new();
        let mut stats = None;
        let mut states = 0;
        for _ in 0..3 {
            let options = SimulationOptions {
                tolerance: Some(TOLERANCE),
                ..SimulationOptions::default()
            };
            let start = Instant::now();
            let mut sim = Simulation::new(spec.clone(), options).expect("starts");
            let mut t = 0.0;
            while t < SIMULATED {
                t = (t + 0.01).min(SIMULATED);
                sim.advance_to(t).expect("integrates");
            }
            walls.push(start.elapsed().as_secs_f64() / SIMULATED);
            states = sim.state_count();
            stats = Some(sim.stats());
        }
        walls.sort_by(f64::total_cmp);
        let s = stats.expect("ran");
        println!(
            "| {n} | {states} | {:.2} | {:.2} | {:.3} | {:.2} | {} | {} | {} | {} | {} |",
            residual_ns / 1e3,
            jacobian_ns / 1e3,
            jacobian_ns / 1e3 / states as f64,
            walls[1] * 1e3,
            s.steps,
            s.residual_evals,
            s.jacobian_residual_evals,
            s.jacobian_evals,
            s.error_test_failures
        );
    }
    // From N = 8 on (below, fixed costs dominate).
    println!(
        "\nresidual time ∝ N^{:.3}, exact Jacobian ∝ N^{:.3} (least squares over N = 8 … 64)",
        slope(&points[2..]),
        slope(&jacobian_points[2..])
    );
}
