//! Regression: a mechanism whose only joint is motion-driven has no states. Loading it used to
//! panic in the start-derivative solve (an LU of a 0×0 matrix), and the integrator refused a
//! system of size 0. It must simulate, and its drive torque must be the statics of the
//! prescribed motion: holding a point mass m at distance d horizontal takes m·g·d.

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
