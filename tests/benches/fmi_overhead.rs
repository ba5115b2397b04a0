//! Overhead of the FMI layer: the shipped pendulum stepped with h = 1 ms for 10 s, once through
//! the FMI 2.0 C API (fmi2DoStep + fmi2GetReal of every output per step) and once directly on
//! the simulation (advance_to + output values), the same work without the FMI layer.
//!
//! `cargo bench -p fmu3d-tests --bench fmi_overhead` prints the time per communication step of
//! both, the overhead, IDA steps per communication step and the integrator restarts.
//!
//! Wall times on a shared machine are noisy; for a repeatable figure, `FMI_OVERHEAD_ONLY=direct`
//! or `=fmi` runs one pass of one path only, to be counted in instructions by
//! `valgrind --tool=callgrind`; `FMI_OVERHEAD_STEPS` sets the number of steps, so that two runs
//! of different lengths separate the cost per step from the set-up.

use fmu3d_tests::fmi2_host::{Resources, Slave};
use fmu_runtime::fmi2::exports::fmi2SetDebugLogging;
use fmu_runtime::fmi2::types::{Fmi2Status, FMI2_TRUE};
use fmu_runtime::model::load_str;
use fmu_runtime::simulation::{Simulation, SimulationOptions};
use std::time::Instant;

const H: f64 = 1e-3;
const STEPS: usize = 10_000;
const REPEATS: usize = 15;

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

/// One pass of one path, for instruction counting.
fn one_pass(
    steps: usize,
    only: &str,
    spec: &fmu_runtime::model::ModelSpec,
    resources: &Resources,
    outputs: &[u32],
) -> Vec<f64> {
    let mut values = vec![0.0; outputs.len()];
    if only == "fmi" {
        let slave = Slave::new(resources);
        slave.initialize(None);
        for k in 0..steps {
            assert_eq!(slave.step(k as f64 * H, H), Fmi2Status::Ok);
            values = slave.get(outputs).1;
        }
    } else {
        let mut sim = Simulation::new(spec.clone(), SimulationOptions::default()).expect("starts");
        for k in 1..=steps {
            sim.advance_to(k as f64 * H).expect("integrates");
            sim.values_into(outputs.iter().map(|&vr| vr as usize), &mut values);
        }
    }
    values
}

fn main() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../models/pendulum.m3d");
    let source = std::fs::read_to_string(path).expect("the pendulum model is readable");
    let spec = load_str(&source, path).expect("loads");

    let resources = Resources::new("bench", &source);
    let outputs: Vec<u32> = {
        let sim = Simulation::new(spec.clone(), SimulationOptions::default()).expect("starts");
        sim.variables.outputs().map(|(i, _)| i as u32).collect()
    };
    if let Ok(only) = std::env::var("FMI_OVERHEAD_ONLY") {
        let steps = std::env::var("FMI_OVERHEAD_STEPS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(STEPS);
        let values = one_pass(steps, &only, &spec, &resources, &outputs);
        println!(
            "{only}: one pass of {steps} steps done ({} outputs)",
            values.len()
        );
        return;
    }
    // Direct and FMI runs alternate, so that both see the same load on the machine.
    let (mut direct, mut through_fmi) = (Vec::new(), Vec::new());
    let (mut ida_steps, mut restarts) = (0, 0);
    for _ in 0..REPEATS {
        let mut sim = Simulation::new(spec.clone(), SimulationOptions::default()).expect("starts");
        let mut values = vec![0.0; outputs.len()];
        let started = Instant::now();
        for k in 1..=STEPS {
            sim.advance_to(k as f64 * H).expect("integrates");
            sim.values_into(outputs.iter().map(|&vr| vr as usize), &mut values);
            std::hint::black_box(&values);
        }
        direct.push(started.elapsed().as_secs_f64() / STEPS as f64);
        ida_steps = sim.stats().steps;
        restarts = sim.restarts();

        let slave = Slave::new(&resources);
        slave.initialize(None);
        let started = Instant::now();
        for k in 0..STEPS {
            assert_eq!(slave.step(k as f64 * H, H), Fmi2Status::Ok);
            std::hint::black_box(slave.get(&outputs));
        }
        through_fmi.push(started.elapsed().as_secs_f64() / STEPS as f64);
    }

    // Restarts through the FMI layer, from its solver-statistics log.
    let slave = Slave::new(&resources);
    // SAFETY: a live instance; no category list.
    unsafe { fmi2SetDebugLogging(slave.c, FMI2_TRUE, 0, std::ptr::null()) };
    slave.initialize(None);
    for k in 0..STEPS {
        slave.step(k as f64 * H, H);
    }
    let last = slave
        .messages()
        .into_iter()
        .rev()
        .find(|m| m.category == "logSolverStats")
        .map(|m| m.text)
        .unwrap_or_default();

    let (d, f) = (median(direct), median(through_fmi));
    println!("pendulum, h = 1 ms, 10 s, median of {REPEATS} runs");
    println!("| | time per communication step [µs] |");
    println!("|---|---|");
    println!(
        "| direct (Simulation::advance_to + values_into) | {:.3} |",
        d * 1e6
    );
    println!("| FMI (fmi2DoStep + fmi2GetReal) | {:.3} |", f * 1e6);
    println!("\nFMI overhead: {:+.1} %", 100.0 * (f - d) / d);
    println!("IDA steps per communication step: {:.3} ({ida_steps} steps for {STEPS} communication steps)", ida_steps as f64 / STEPS as f64);
    println!("integrator restarts: direct {restarts}; FMI log of the last step: {last}");
}
