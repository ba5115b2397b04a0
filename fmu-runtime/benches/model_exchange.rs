//! The cost of Model Exchange's derivatives with the number of bodies, on the shipped `chain`
//! model (N links on revolute joints), N = 2 … 128: one `fmi2GetDerivatives` is one
//! [`explicit_derivatives`] (the articulated-body algorithm, two residual evaluations around
//! it), against the dense solve of the same equations that serves mechanisms with loops
//! (n_v + 1 evaluations and an LU).
//!
//! `cargo bench -p fmu-runtime --bench model_exchange` prints a Markdown table and the exponent
//! p of least-squares fits time ∝ N^p.

use fmu_runtime::assembly::Assembly;
use fmu_runtime::dynamics::{
    explicit_derivatives, stabilised_derivatives, FlangeInputs, Mechanism, Workspace,
};
use fmu_runtime::model;
use fmu_runtime::scene::Scene;
use std::hint::black_box;
use std::time::{Duration, Instant};

const SIZES: [usize; 7] = [2, 4, 8, 16, 32, 64, 128];

fn chain(n: usize) -> model::ModelSpec {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../models/chain.m3d");
    let source = std::fs::read_to_string(path).expect("models/chain.m3d is readable");
    model::load_str_with(&source, path, &[("N".to_string(), n as f64)]).expect("the chain loads")
}

/// Median over batches of the time of one call of `f`, in microseconds.
fn median_microseconds(mut f: impl FnMut()) -> f64 {
    let mut time_batch = |batch: usize| {
        let start = Instant::now();
        for _ in 0..batch {
            f();
        }
        start.elapsed()
    };
    let mut batch = 1usize;
    while time_batch(batch) < Duration::from_millis(20) {
        batch *= 2;
    }
    let mut samples: Vec<f64> = (0..11)
        .map(|_| time_batch(batch).as_secs_f64() * 1e6 / batch as f64)
        .collect();
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

/// The exponent p of a least-squares fit y ∝ N^p.
fn exponent(points: &[(f64, f64)]) -> f64 {
    let n = points.len() as f64;
    let (sx, sy) = points
        .iter()
        .fold((0.0, 0.0), |(a, b), (x, y)| (a + x.ln(), b + y.ln()));
    let (mx, my) = (sx / n, sy / n);
    let (num, den) = points.iter().fold((0.0, 0.0), |(a, b), (x, y)| {
        (a + (x.ln() - mx) * (y.ln() - my), b + (x.ln() - mx).powi(2))
    });
    num / den
}

fn main() {
    println!("| N | states | articulated [µs] | dense solve [µs] |");
    println!("|---|---|---|---|");
    let (mut fast, mut dense) = (Vec::new(), Vec::new());
    for n in SIZES {
        let spec = chain(n);
        let scene = Scene::from_spec(&spec).expect("scene");
        let assembly = Assembly::build(&scene).expect("assembly");
        let mechanism = Mechanism::new(&scene, &assembly);
        let inputs = FlangeInputs::new(&mechanism);
        let mut ws = Workspace::new(&mechanism);
        let y = mechanism.initial_state();
        let articulated = median_microseconds(|| {
            black_box(
                explicit_derivatives(&mechanism, &inputs, &mut ws, black_box(&y), 0.0)
                    .expect("regular"),
            );
        });
        let solved = median_microseconds(|| {
            black_box(
                stabilised_derivatives(&mechanism, &inputs, &mut ws, black_box(&y), 0.0)
                    .expect("regular"),
            );
        });
        println!("| {n} | {} | {articulated:.2} | {solved:.1} |", y.len());
        fast.push((n as f64, articulated));
        dense.push((n as f64, solved));
    }
    println!(
        "\nfitted exponents over N = 2 … 128: articulated N^{:.2}, dense solve N^{:.2}",
        exponent(&fast),
        exponent(&dense)
    );
}
