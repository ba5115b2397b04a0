//! Regression: a mechanism whose only joint is motion-driven has no states. Loading it used to
//! panic in the start-derivative solve (an LU of a 0×0 matrix), and the integrator refused a
//! system of size 0. It must simulate, and its drive torque must be the statics of the
//! prescribed motion: holding a point mass m at distance d horizontal takes m·g·d.
//!
//! Its saved state could not be restored either (`fmi2SetFMUstate` refused it as another
//! model's): the integrator holds one padding entry for a system without states, and the saved
//! state's length was compared with the mechanism's zero.

use fmu_runtime::model::load_str;
use fmu_runtime::simulation::{Simulation, SimulationOptions};

#[test]
fn a_fully_prescribed_mechanism_simulates() {
    let source = "model held\n\
                  object b { mass { m = 2 kg; center = [0.1, 0, 0] m } }\n\
                  joint j revolute { from = world; to = b; axis = z; flange = motion }\n";
    let spec = load_str(source, "held.m3d").expect("loads");
    let mut sim =
        Simulation::new(spec, SimulationOptions::default()).expect("starts without states");
    assert_eq!(sim.state_count(), 0);
    sim.advance_to(0.5).expect("integrates");
    let tau = sim
        .variables
        .find("j.tau")
        .expect("the drive torque is an output");
    let value = sim.values_of(&[tau])[0];
    assert!((value - 2.0 * 9.81 * 0.1).abs() < 1e-12, "tau = {value}");
}

#[test]
fn a_saved_state_of_a_mechanism_without_states_restores() {
    let source = "model driven\n\
                  object b { mass { m = 2 kg; center = [0.1, 0, 0] m } }\n\
                  joint j revolute { from = world; to = b; axis = z; motion = 0.5*t }\n";
    let start = || {
        let spec = load_str(source, "driven.m3d").expect("loads");
        Simulation::new(spec, SimulationOptions::default()).expect("starts without states")
    };
    let mut original = start();
    original.advance_to(0.4).expect("integrates");
    let saved = original.snapshot().expect("saves");
    let mut restored = start();
    restored
        .restore(&saved)
        .expect("a saved state of this model restores");
    assert_eq!(restored.time(), 0.4);
    let tau = original.variables.find("j.tau").expect("the drive torque");
    for sim in [&mut original, &mut restored] {
        sim.advance_to(0.6).expect("continues");
    }
    // m g d cos(0.5 t) at t = 0.6 s, the same from both.
    let (a, b) = (original.values_of(&[tau])[0], restored.values_of(&[tau])[0]);
    assert_eq!(a.to_bits(), b.to_bits());
    assert!(
        (a - 2.0 * 9.81 * 0.1 * (0.3f64).cos()).abs() < 1e-12,
        "tau = {a}"
    );
}
