//! Kinematic loops: the shipped `fourbar` (crank driven at constant speed through its motion
//! inputs) and `engine` (four coupled loops, released with a crank speed).
//!
//! `cargo bench -p fmu-runtime --bench loops` prints a Markdown table: the cost of the start-up
//! (closing the loops from the guesses, ranking the constraints, consistent derivatives and
//! IDA's set-up), the wall time per simulated second and IDA's statistics for 1 s of motion.

use fmu_runtime::model;
use fmu_runtime::simulation::{Simulation, SimulationOptions};
use std::time::Instant;

const SIMULATED: f64 = 1.0;

fn load(name: &str) -> model::ModelSpec {
    let path = format!("{}/../models/{name}.m3d", env!("CARGO_MANIFEST_DIR"));
    let source = std::fs::read_to_string(&path).expect("the model is readable");
    model::load_str_with(&source, &path, &[]).expect("the model loads")
}

fn main() {
    println!("| model | tolerance | states | constraints kept / removed | start-up [ms] | wall per simulated s [ms] | IDA steps | residual evals | +for Jacobians | Jacobians | error-test fails |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for (name, tolerance) in [
        ("fourbar", 1e-6),
        ("fourbar", 1e-8),
        ("engine", 1e-6),
        ("engine", 1e-8),
    ] {
        let spec = load(name);
        let mut walls = Vec::new();
        let mut startups = Vec::new();
        let mut result = None;
        for _ in 0..5 {
            let options = SimulationOptions {
                tolerance: Some(tolerance),
                ..SimulationOptions::default()
            };
            let start = Instant::now();
            let mut sim = Simulation::new(spec.clone(), options).expect("starts");
            startups.push(start.elapsed().as_secs_f64());
            let start = Instant::now();
            let mut t = 0.0;
            while t < SIMULATED {
                t = (t + 0.01).min(SIMULATED);
                sim.advance_to(t).expect("integrates");
            }
            walls.push(start.elapsed().as_secs_f64() / SIMULATED);
            let m = sim.mechanism();
            result = Some((
                sim.state_count(),
                m.rows.len(),
                m.dropped.len(),
                sim.stats(),
            ));
        }
        walls.sort_by(f64::total_cmp);
        startups.sort_by(f64::total_cmp);
        let (states, kept, dropped, s) = result.expect("ran");
        println!(
            "| {name} | {tolerance:e} | {states} | {kept} / {dropped} | {:.3} | {:.2} | {} | {} | {} | {} | {} |",
            startups[2] * 1e3,
            walls[2] * 1e3,
            s.steps,
            s.residual_evals,
            s.jacobian_residual_evals,
            s.jacobian_evals,
            s.error_test_failures
        );
    }
}
