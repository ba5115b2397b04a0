//! Scaling of the residual and of whole simulations with the number of bodies, on the shipped
//! `chain` model (N links on revolute joints), N = 2 … 64.
//!
//! `cargo bench -p fmu-runtime --bench chain` prints a Markdown table: the cost of one residual
//! evaluation, the wall time per simulated second and IDA's statistics for 1 s of motion, and
//! the exponent p of a least-squares fit residual_time ∝ N^p.

use fmu_runtime::assembly::Assembly;
use fmu_runtime::dynamics::{consistent_derivatives, residual, FlangeInputs, Mechanism, Workspace};
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

/// Median over batches of the time of one residual evaluation, in nanoseconds.
fn residual_nanoseconds(spec: &model::ModelSpec) -> f64 {
    let scene = Scene::from_spec(spec).expect("scene");
    let assembly = Assembly::build(&scene).expect("assembly");
    let mechanism = Mechanism::new(&scene, &assembly);
    let inputs = FlangeInputs::new(&mechanism);
    let mut ws = Workspace::new(&mechanism);
    let y = mechanism.initial_state();
    let yp = consistent_derivatives(&mechanism, &inputs, &mut ws, &y).expect("regular");
    let mut res = vec![0.0; y.len()];
    // Seconds for `batch` evaluations.
    let mut time_batch = |batch: usize| {
        let start = Instant::now();
        for _ in 0..batch {
            residual(
                &mechanism,
                &inputs,
                &mut ws,
                black_box(&y),
                black_box(&yp),
                &mut res,
            );
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

fn main() {
    println!("| N | states | residual [µs] | wall per simulated s [ms] | IDA steps | residual evals | +for Jacobians | Jacobians | error-test fails |");
    println!("|---|---|---|---|---|---|---|---|---|");
    let mut points = Vec::new();
    for n in SIZES {
        let spec = chain(n);
        let residual_ns = residual_nanoseconds(&spec);
        points.push(((n as f64).ln(), residual_ns.ln()));
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
            "| {n} | {states} | {:.2} | {:.2} | {} | {} | {} | {} | {} |",
            residual_ns / 1e3,
            walls[1] * 1e3,
            s.steps,
            s.residual_evals,
            s.jacobian_residual_evals,
            s.jacobian_evals,
            s.error_test_failures
        );
    }
    // Least-squares slope of ln(time) over ln(N), from N = 8 on (below, fixed costs dominate).
    let fit: Vec<(f64, f64)> = points.into_iter().skip(2).collect();
    let count = fit.len() as f64;
    let mean_x = fit.iter().map(|p| p.0).sum::<f64>() / count;
    let mean_y = fit.iter().map(|p| p.1).sum::<f64>() / count;
    let slope = fit
        .iter()
        .map(|p| (p.0 - mean_x) * (p.1 - mean_y))
        .sum::<f64>()
        / fit.iter().map(|p| (p.0 - mean_x).powi(2)).sum::<f64>();
    println!("\nresidual time ∝ N^{slope:.3} (least squares over N = 8 … 64)");
}
