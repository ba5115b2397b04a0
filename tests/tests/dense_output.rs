//! The integrator's steps do not stop at communication points where nothing forces them to: they
//! pass the point and the solution there is interpolated (IDA's dense output). What it buys, and
//! what must stop the steps, checked through the engine's API:
//!
//! - the step sequence does not depend on the communication step: the pendulum with 1 ms and with
//!   0.5 s steps takes the same IDA steps, and its outputs at the common points agree to round-off
//!   (before, every point ended a step: 810 steps at 10 ms, and two masters whose h differed by an
//!   ulp got results 5e-5 apart);
//! - points one ulp apart (a master that adds h up, another that multiplies) give the same steps;
//! - a master that sets an input at every point gets steps that end there (no work thrown away).
//!
//! These check the stepping, not the physics: the references are runs of the same engine.

use fmu3d_tests::load;
use fmu_runtime::simulation::{Simulation, SimulationOptions};

fn pendulum() -> Simulation {
    let options = SimulationOptions {
        tolerance: Some(1e-8),
        ..SimulationOptions::default()
    };
    Simulation::new(load("pendulum", &[]), options).expect("the pendulum starts")
}

/// Outputs of `sim` at the times `points`, one row per point.
fn outputs_at(sim: &mut Simulation, points: impl IntoIterator<Item = f64>) -> Vec<Vec<f64>> {
    points
        .into_iter()
        .map(|t| {
            sim.advance_to(t).expect("the integrator reaches the time");
            sim.output_values()
        })
        .collect()
}

fn largest_difference(a: &[Vec<f64>], b: &[Vec<f64>]) -> f64 {
    a.iter()
        .zip(b)
        .flat_map(|(x, y)| x.iter().zip(y).map(|(x, y)| (x - y).abs()))
        .fold(0.0, f64::max)
}

#[test]
fn a_small_communication_step_costs_the_outputs_only() {
    let (mut fine, mut coarse) = (pendulum(), pendulum());
    let fine_rows = outputs_at(&mut fine, (1..=5000).map(|k| k as f64 * 1e-3));
    let coarse_rows = outputs_at(&mut coarse, (1..=10).map(|k| k as f64 * 0.5));
    let common: Vec<Vec<f64>> = (1..=10).map(|k| fine_rows[500 * k - 1].clone()).collect();
    let difference = largest_difference(&common, &coarse_rows);
    let (steps_fine, steps_coarse) = (fine.stats().steps, coarse.stats().steps);
    eprintln!(
        "pendulum over 5 s: {steps_fine} steps at 1 ms, {steps_coarse} at 0.5 s; outputs at the \
         common points within {difference:.1e}; {} of 5000 points interpolated",
        fine.interpolated_outputs()
    );
    assert_eq!(steps_fine, steps_coarse);
    assert!(fine.interpolated_outputs() > 4900);
    // The common points are the same numbers up to an ulp (500·k·1e-3 against k·0.5).
    assert!(difference < 1e-12, "outputs differ by {difference:e}");
}

#[test]
fn points_one_ulp_apart_give_the_same_steps() {
    let h = 0.01;
    let (mut multiplied, mut added) = (pendulum(), pendulum());
    let exact: Vec<f64> = (1..=500).map(|k| k as f64 * h).collect();
    let summed: Vec<f64> = exact
        .iter()
        .scan(0.0, |t, _| {
            *t += h;
            Some(*t)
        })
        .collect();
    let apart = exact.iter().zip(&summed).filter(|(a, b)| a != b).count();
    let a = outputs_at(&mut multiplied, exact);
    let b = outputs_at(&mut added, summed);
    let difference = largest_difference(&a, &b);
    eprintln!(
        "pendulum, h = 10 ms: {apart} of 500 points differ between k·h and a sum of h; outputs \
         within {difference:.1e}; {} and {} steps",
        multiplied.stats().steps,
        added.stats().steps
    );
    assert!(apart > 100, "the two grids differ");
    assert_eq!(multiplied.stats().steps, added.stats().steps);
    assert!(difference < 1e-12, "outputs differ by {difference:e}");
}

#[test]
fn a_master_that_sets_inputs_gets_steps_that_end_at_its_points() {
    let crank = include_str!("../../examples/cosimulation/crank.m3d");
    let start = || {
        let spec = fmu_runtime::model::load_str(crank, "crank.m3d").expect("loads");
        Simulation::new(spec, SimulationOptions::default()).expect("starts")
    };
    let tau = start().variables.find("crank.tau").expect("a torque input");
    let (mut driven, mut held) = (start(), start());
    held.set_input(tau, 0.5).expect("an input");
    for k in 1..=100 {
        let t = k as f64 * 0.01;
        driven
            .set_input(tau, 0.5 + 0.1 * (k as f64).sin())
            .expect("an input");
        driven.advance_to(t).expect("steps");
        held.advance_to(t).expect("steps");
        assert_eq!(driven.integrated_to(), t, "a driven step ends at its point");
    }
    eprintln!(
        "crank, 100 points: {} interpolated with the torque set at each, {} with it held",
        driven.interpolated_outputs(),
        held.interpolated_outputs()
    );
    assert_eq!(driven.interpolated_outputs(), 0);
    assert!(held.interpolated_outputs() > 90);
}
