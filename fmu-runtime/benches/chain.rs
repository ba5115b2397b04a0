//! Scaling of the residual and of whole simulations with the number of bodies, on the shipped
//! `chain` model (N links on revolute joints), N = 2 … 64.
//!
//! `cargo bench -p fmu-runtime --bench chain` prints two Markdown tables. The first: the cost of
//! one residual evaluation, of one exact Jacobian (`dynamics::ExactJacobian`, with the residual
//! evaluation it is formed after) and of the articulated iteration matrix
//! (`dynamics::ArticulatedIteration`: kinematics and factors; one solve). The second: the wall
//! time per simulated second and IDA's statistics for 1 s of motion with each (the exact one
//! with SUNDIALS' dense LU). Then the exponents p of least-squares fits time ∝ N^p.

use fmu_runtime::assembly::Assembly;
use fmu_runtime::dynamics::{
    consistent_derivatives, kinematics, residual, ArticulatedIteration, ExactJacobian,
    FlangeInputs, Mechanism, Workspace,
};
use fmu_runtime::ida::{DenseMatrixView, FactoredMatrix, JacobianMatrix, LinearSolverKind};
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

/// Nanoseconds, at the start state, of one call of each.
struct Costs {
    residual: f64,
    /// The exact Jacobian, the residual evaluation it is formed after included.
    exact: f64,
    /// The articulated iteration matrix: the kinematics at y and the factors.
    factor: f64,
    /// One solve with those factors.
    solve: f64,
}

fn costs(spec: &model::ModelSpec) -> Costs {
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
    let iteration = ArticulatedIteration::new(&mechanism).expect("a chain of revolute joints");
    let factor_ns = median_nanoseconds(|| {
        kinematics(&mechanism, &inputs, &mut ws, black_box(&y), black_box(&yp));
        black_box(iteration.factor(&mechanism, &ws, 1e3, n).expect("regular"));
    });
    let factors = iteration.factor(&mechanism, &ws, 1e3, n).expect("regular");
    let mut x = res.clone();
    let solve_ns = median_nanoseconds(|| {
        x.copy_from_slice(black_box(&res));
        assert!(factors.solve_in_place(&mut x));
    });
    Costs {
        residual: residual_ns,
        exact: jacobian_ns,
        factor: factor_ns,
        solve: solve_ns,
    }
}

/// The median wall time per simulated second [ms] over 3 runs of 1 s, and the last run's
/// statistics and state count.
fn simulate(
    spec: &model::ModelSpec,
    solver: LinearSolverKind,
) -> (f64, fmu_runtime::ida::SolverStats, usize) {
    let mut walls = Vec::new();
    let mut last = None;
    for _ in 0..3 {
        let options = SimulationOptions {
            tolerance: Some(TOLERANCE),
            linear_solver: Some(solver),
            ..SimulationOptions::default()
        };
        let start = Instant::now();
        let mut sim = Simulation::new(spec.clone(), options).expect("starts");
        let mut t = 0.0;
        while t < SIMULATED {
            t = (t + 0.01).min(SIMULATED);
            sim.advance_to(t).expect("integrates");
        }
        walls.push(start.elapsed().as_secs_f64() / SIMULATED * 1e3);
        last = Some((sim.stats(), sim.state_count()));
    }
    walls.sort_by(f64::total_cmp);
    let (stats, states) = last.expect("ran");
    (walls[1], stats, states)
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
    println!("| N | states | residual [µs] | exact Jacobian [µs] | articulated factors [µs] | articulated solve [µs] |");
    println!("|---|---|---|---|---|---|");
    let mut fits: [Vec<(f64, f64)>; 4] = Default::default();
    let mut runs = Vec::new();
    for n in SIZES {
        let spec = chain(n);
        let c = costs(&spec);
        let ln_n = (n as f64).ln();
        for (fit, ns) in fits
            .iter_mut()
            .zip([c.residual, c.exact, c.factor, c.solve])
        {
            fit.push((ln_n, ns.ln()));
        }
        let exact = simulate(&spec, LinearSolverKind::Dense);
        let articulated = simulate(&spec, LinearSolverKind::Factored);
        println!(
            "| {n} | {} | {:.2} | {:.2} | {:.2} | {:.2} |",
            exact.2,
            c.residual / 1e3,
            c.exact / 1e3,
            c.factor / 1e3,
            c.solve / 1e3
        );
        runs.push((n, exact, articulated));
    }
    println!("\n| N | iteration matrix | wall per simulated s [ms] | IDA steps | residual evals | +for Jacobians | Jacobians | Newton iterations | convergence fails | error-test fails |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    let mut wall_fits: [Vec<(f64, f64)>; 2] = Default::default();
    for (n, exact, articulated) in &runs {
        for (k, (name, (wall, s, _))) in [("exact, dense LU", exact), ("articulated", articulated)]
            .into_iter()
            .enumerate()
        {
            wall_fits[k].push(((*n as f64).ln(), wall.ln()));
            println!(
                "| {n} | {name} | {wall:.2} | {} | {} | {} | {} | {} | {} | {} |",
                s.steps,
                s.residual_evals,
                s.jacobian_residual_evals,
                s.jacobian_evals,
                s.nonlinear_iterations,
                s.nonlinear_conv_failures,
                s.error_test_failures
            );
        }
    }
    // From N = 8 on (below, fixed costs dominate).
    println!(
        "\nleast squares over N = 8 … 64: residual ∝ N^{:.3}, exact Jacobian ∝ N^{:.3}, \
         articulated factors ∝ N^{:.3}, articulated solve ∝ N^{:.3}; wall per simulated s: \
         exact ∝ N^{:.3}, articulated ∝ N^{:.3}",
        slope(&fits[0][2..]),
        slope(&fits[1][2..]),
        slope(&fits[2][2..]),
        slope(&fits[3][2..]),
        slope(&wall_fits[0][2..]),
        slope(&wall_fits[1][2..])
    );
}
