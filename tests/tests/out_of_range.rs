//! Regression: values too large for the model are reported as what the user set.
//!
//! - A prescribed motion whose expression overflows (`fourbar` with w1 = 1e300 rad/s and
//!   A = 1.7e308 rad) was reported as "the mass matrix is singular at the start: some joint
//!   moves a body without mass or inertia"; its parameters are now refused by name, and a
//!   finite motion that moves a body faster than light names the body.
//! - A torque input of 1e15 N·m spins the drives model's arm up to 1.5e13 rad/s within 4 ms,
//!   where the integrator gives up; the message said "mass matrix singular at the start" for an
//!   instant that was not the start. It now names the instant, says the motion ran away, and
//!   the failure lists the inputs with their values.
//! - A start speed of 1e300 m/s (`rolling_ball` with v0 = 1e300) failed inside the integrator
//!   ("tstop = 0.001 is behind current t = 0"), and a ball of radius 1e99 m as "the mass matrix
//!   is singular at the start". Values are now refused where they are given: any value above
//!   1e100 in SI units (products of three stay finite), a speed faster than light, mass
//!   properties that overflow, each naming the parameter, field or object. `fmi2SetReal`
//!   refuses the same values for inputs and parameters, by the variable's name.

use fmu3d_tests::{load, try_load};
use fmu_runtime::model;
use fmu_runtime::simulation::{Simulation, SimulationOptions};

#[test]
fn an_overflowing_motion_is_refused_naming_what_moves() {
    // Beyond 1e100 the parameter itself is refused, by name.
    let refused = try_load("fourbar", &[("w1", 1e300), ("A", 1.7e308)])
        .expect_err("refused")
        .to_string();
    eprintln!("{refused}");
    assert!(
        refused.contains("parameter `w1` is out of range"),
        "{refused}"
    );
    // Within it, motions too fast for the links: the crank at 1e99 rad/s, or its sine of
    // amplitude 1e100 rad and period 1e-100 s, moves the bars faster than light (their speeds
    // overflow in the loop), which the accelerations turned into "a singular mass matrix".
    for overrides in [vec![("w1", 1e99)], vec![("A", 1e100), ("T", 1e-100)]] {
        let spec = load("fourbar", &overrides);
        let message = Simulation::new(spec, SimulationOptions::default())
            .expect_err("refused")
            .to_string();
        eprintln!("{message}");
        assert!(
            message.contains("body `bar") && message.contains("faster than light"),
            "{message}"
        );
        assert!(!message.contains("mass matrix"), "{message}");
    }
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

fn refusal(overrides: &[(&str, f64)]) -> String {
    match try_load("rolling_ball", overrides) {
        Err(error) => error.to_string(),
        Ok(spec) => Simulation::new(spec, SimulationOptions::default())
            .expect_err("refused")
            .to_string(),
    }
}

#[test]
fn values_beyond_what_the_engine_computes_with_are_refused_by_name() {
    let huge = refusal(&[("v0", 1e300)]);
    eprintln!("{huge}");
    assert!(
        huge.contains("parameter `v0` is out of range") && huge.contains("1e100"),
        "{huge}"
    );
    let light = refusal(&[("v0", 1e9)]);
    eprintln!("{light}");
    assert!(
        light.contains("`v` is faster than light, found [1e9, 0, 0] m/s"),
        "{light}"
    );
    let heavy = refusal(&[("r", 1e99)]);
    eprintln!("{heavy}");
    assert!(
        heavy.contains("object `ball`") && heavy.contains("not finite"),
        "{heavy}"
    );
    assert!(!heavy.contains("mass matrix"), "{heavy}");
    // Below the limits the same model runs: the checks refuse only what cannot be computed.
    assert!(Simulation::new(
        load("rolling_ball", &[("v0", 1e5), ("r", 1e3)]),
        SimulationOptions::default()
    )
    .is_ok());
}

/// `fmi2SetReal` refuses what the model file refuses: a torque input or a parameter above 1e100,
/// a speed input faster than light, each by the variable's name (an `fmi2Error`, as for a value
/// that is not finite); values within the limits are taken.
#[test]
fn fmi2_set_real_refuses_values_out_of_range_by_name() {
    use fmu3d_tests::fmi2_host::{value_reference, Resources, Slave};
    use fmu_runtime::fmi2::types::Fmi2Status;
    const MODEL: &str = r#"
model limits "A torque-driven pendulum and a slider whose speed is prescribed"
parameters { L = 0.5 m "arm" }
experiment { stop_time = 1 s; interval = 10 ms; tolerance = 1e-6 }
object body { mass { m = 1 kg; center = [L, 0, 0]; inertia = diag(0.001, 0.001, 0.001) kg.m2 } }
joint rev revolute { from = world; to = body; axis = z; flange = force }
object cart { mass { m = 1 kg; inertia = diag(0.001, 0.001, 0.001) kg.m2 } }
joint slide prismatic { from = world; to = cart; axis = x; flange = motion }
"#;
    let resources = Resources::new("limits", MODEL);
    let (tau, length, speed) = (
        value_reference(MODEL, "rev.tau"),
        value_reference(MODEL, "L"),
        value_reference(MODEL, "slide.v"),
    );
    for (vr, value, expected) in [
        (tau, 1e101, "`rev.tau` cannot be set to 1e101"),
        (length, -2e100, "`L` cannot be set to -2e100"),
        (
            speed,
            3e8,
            "`slide.v` cannot be set to 3e8 m/s, faster than light",
        ),
    ] {
        // A refused value is an error (FMI 2.0.4: the instance needs a reset), so one
        // instance per value.
        let slave = Slave::new(&resources);
        assert_eq!(slave.set(&[vr], &[value]), Fmi2Status::Error);
        let message = slave.messages().pop().map(|m| m.text).unwrap_or_default();
        eprintln!("{message}");
        assert!(message.contains(expected), "{message}");
    }
    let slave = Slave::new(&resources);
    assert_eq!(
        slave.set(&[tau, length, speed], &[1e15, 2.0, 2.9e8]),
        Fmi2Status::Ok
    );
}
