//! Regression: values too large for the model are reported as what the user set.
//!
//! - A prescribed motion whose expression overflows (`fourbar` with w1 = 1e300 rad/s and
//!   A = 1.7e308 rad) was reported as "the mass matrix is singular at the start: some joint
//!   moves a body without mass or inertia"; it is now refused naming the joint and its values.
//! - A torque input of 1e15 N·m spins the drives model's arm up to 1.5e13 rad/s within 4 ms,
//!   where the integrator gives up; the message said "mass matrix singular at the start" for an
//!   instant that was not the start. It now names the instant, says the motion ran away, and
//!   the failure lists the inputs with their values.

use fmu3d_tests::load;
use fmu_runtime::model;
use fmu_runtime::simulation::{Simulation, SimulationOptions};

#[test]
fn an_overflowing_motion_is_refused_naming_its_joint() {
    let spec = load("fourbar", &[("w1", 1e300), ("A", 1.7e308)]);
    let message = Simulation::new(spec, SimulationOptions::default())
        .expect_err("refused")
        .to_string();
    eprintln!("{message}");
    assert!(message.contains("the motion of joint `rev1`"), "{message}");
    assert!(message.contains("speed inf"), "{message}");
    assert!(
        message.contains("not finite at the start time 0 s"),
        "{message}"
    );
    assert!(!message.contains("mass matrix"), "{message}");
}

#[test]
fn a_runaway_torque_is_reported_at_its_instant_with_the_inputs() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("python/models/drives.m3d");
    let source = std::fs::read_to_string(&path).expect("the model file is readable");
    let spec = model::load_str_with(&source, &path.display().to_string(), &[]).expect("model");
    let mut simulation = Simulation::new(spec, SimulationOptions::default()).expect("starts");
    let torque = simulation
        .variables
        .variables
        .iter()
        .position(|v| v.name == "rev.tau")
        .expect("the torque input");
    simulation
        .set_input(torque, 1e15)
        .expect("a finite value is taken");
    let failure = simulation
        .advance_to(0.01)
        .expect_err("the motion runs away");
    assert!(
        matches!(failure, fmu_runtime::simulation::SimulationError::Solver(_)),
        "{failure}"
    );
    let reached = simulation.recover();
    let message = match reached {
        Ok(t) => format!("recovered at {t}"),
        Err(e) => e.to_string(),
    };
    let diagnosis = simulation.diagnosis();
    eprintln!("{failure}\n{message}\n{diagnosis}");
    assert!(
        message.contains("the accelerations cannot be solved for"),
        "{message}"
    );
    assert!(!message.contains("at the start"), "{message}");
    assert!(diagnosis.contains("rev.tau = 1e15 N.m"), "{diagnosis}");
}
