//! Direct feedthrough as the FMU shows it, measured through the C API: within a communication
//! point, which outputs change when an input changes. For the torque-driven crank of the
//! co-simulation example the angle, the speed and the frame outputs are integrator states (the
//! modelDescription.xml says they depend on no input) and only the acceleration follows the
//! torque at once (it says `crank.a` depends on every known, `crank.tau` among them).

use fmu3d_tests::fmi2_host::{Resources, Slave};
use fmu_runtime::fmi2::types::Fmi2Status;
use fmu_runtime::model::load_str;
use fmu_runtime::simulation::{Simulation, SimulationOptions};

const CRANK: &str = include_str!("../../examples/cosimulation/crank.m3d");

#[test]
fn only_the_acceleration_of_the_torque_driven_crank_follows_the_torque_within_a_step() {
    let sim = Simulation::new(
        load_str(CRANK, "crank.m3d").expect("loads"),
        SimulationOptions::default(),
    )
    .expect("starts");
    let outputs: Vec<(String, u32)> = sim
        .variables
        .outputs()
        .map(|(i, v)| (v.name.clone(), i as u32))
        .collect();
    let references: Vec<u32> = outputs.iter().map(|(_, vr)| *vr).collect();
    let tau = sim.variables.find("crank.tau").expect("a torque input") as u32;

    let resources = Resources::new("feedthrough-crank", CRANK);
    let slave = Slave::new(&resources);
    slave.initialize(None);
    assert_eq!(slave.set(&[tau], &[0.5]), Fmi2Status::Ok);
    let mut t = 0.0;
    for _ in 0..20 {
        assert_eq!(slave.step(t, 0.01), Fmi2Status::Ok);
        t += 0.01;
    }
    let before = slave.get(&references).1;
    assert_eq!(slave.set(&[tau], &[2.0]), Fmi2Status::Ok);
    let after = slave.get(&references).1;
    let changed: Vec<&str> = outputs
        .iter()
        .zip(before.iter().zip(&after))
        .filter(|(_, (b, a))| b != a)
        .map(|((name, _), _)| name.as_str())
        .collect();
    assert_eq!(changed, ["crank.a"]);
    // By the torque over the inertia about the axis: J_fw + J_drive + m_e·r_e².
    let inertia = 0.01 + 0.002 + 0.5 * 0.1 * 0.1;
    let index = outputs
        .iter()
        .position(|(n, _)| n == "crank.a")
        .expect("crank.a");
    let jump = after[index] - before[index];
    // Measured 3.7e-9: the acceleration before the change is the integrator's dense output
    // between its steps (accurate to its tolerance), the one after is solved for at the state.
    assert!(
        (jump - 1.5 / inertia).abs() < 4e-8 * jump,
        "{jump} against {}",
        1.5 / inertia
    );
}
