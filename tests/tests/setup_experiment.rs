//! `fmi2SetupExperiment` (FMI 2.0.4 §2.1.6) against the standard's text: the start time is the
//! independent variable's value at initialization, the tolerance is the one the FMU's solver
//! uses, and a defined stop time is one the master will not step past ("the FMU may refuse").
//! Each was checked before only against `fmu3d simulate`, the same code.
//!
//! The start time shows in a prescribed motion, φ = 0.5 t, read at initialization and after a
//! step; the tolerance in a Model Exchange event indicator, which for a contact recorded at the
//! start is the contact's hold gap, the tolerance times the ball's radius, less its gap
//! (docs/engine.md, "A contact ends at its hold gap").

use fmu3d_tests::fmi2_host::{value_reference, Resources, Slave};
use fmu_runtime::fmi2::model_exchange::*;
use fmu_runtime::fmi2::types::*;

/// A motion-driven wheel, and a ball held 2 nm deep in a floor by a motion-driven slider.
const MODEL: &str = r#"
model setup "a prescribed turn, and a ball held in contact with a floor"
parameters { R = 10 mm; d0 = 2e-9 m }
gravity none
experiment { stop_time = 1 s; interval = 10 ms; tolerance = 1e-6 }
object wheel { mass { m = 1 kg; inertia = diag(0.01, 0.01, 0.01) kg.m2 } }
joint turn revolute { from = world; to = wheel; axis = z; motion = 0.5*t }
object floor { parent = world; position = [0, -0.01, 0] m; shape box { lengths = [0.2, 0.02, 0.2] m }; contact { material = dry_wood } }
object ball { shape sphere { diameter = 2*R }; mass { material = steel }; contact { material = steel } }
joint lift prismatic { from = world; to = ball; axis = y; motion = R - d0; can_collide = true }
"#;

const RADIUS: f64 = 0.01;
const DEPTH: f64 = 2e-9;

fn vr(name: &str) -> u32 {
    value_reference(MODEL, name)
}

/// How many event indicators the model has (one per collider: the floor's vertex spheres and
/// edge capsules among them), from the engine read directly.
fn indicator_count() -> usize {
    let spec = fmu_runtime::model::load_str(MODEL, "setup.m3d").expect("the model loads");
    fmu_runtime::simulation::Simulation::new(spec, Default::default())
        .expect("the simulation starts")
        .event_indicator_count()
}

/// fmi2SetupExperiment with every argument given, fmi2EnterInitializationMode and
/// fmi2ExitInitializationMode.
fn set_up(slave: &Slave, tolerance: Option<f64>, start: f64, stop: Option<f64>) {
    slave.enter_initialization_at(tolerance, start, stop);
    slave.exit_initialization();
}

/// The start time is the time of initialization: φ = 0.5 t at t = 0.3 s, and after a step of
/// 0.1 s from there, 0.5 × 0.4 s. A start time ignored gives 0 and 0.05.
#[test]
fn the_start_time_is_the_time_the_fmu_initializes_at() {
    let resources = Resources::new("setup_start", MODEL);
    let slave = Slave::new(&resources);
    set_up(&slave, None, 0.3, None);
    let phi = vr("turn.phi");
    let (status, at_start) = slave.get(&[phi]);
    assert_eq!(status, Fmi2Status::Ok);
    assert_eq!(slave.step(0.3, 0.1), Fmi2Status::Ok);
    let after = slave.get(&[phi]).1;
    println!(
        "φ at the start {} rad, after a step {} rad",
        at_start[0], after[0]
    );
    assert!((at_start[0] - 0.15).abs() < 1e-12, "{}", at_start[0]);
    assert!((after[0] - 0.2).abs() < 1e-12, "{}", after[0]);
}

/// A defined stop time: a step that ends past it is refused with fmi2Error and a message that
/// names it; up to it, steps are taken. Undefined, the model's own stop time (1 s) binds no
/// step.
#[test]
fn a_defined_stop_time_refuses_a_step_past_it_an_undefined_one_none() {
    let resources = Resources::new("setup_stop", MODEL);
    let slave = Slave::new(&resources);
    set_up(&slave, None, 0.0, Some(0.5));
    assert_eq!(slave.step(0.0, 0.5), Fmi2Status::Ok);
    assert_eq!(slave.step(0.5, 0.1), Fmi2Status::Error);
    let error = slave.last_error();
    assert!(error.contains("stop time 0.5"), "{error}");

    let free = Slave::new(&resources);
    set_up(&free, None, 0.0, None);
    assert_eq!(free.step(0.0, 1.5), Fmi2Status::Ok, "{}", free.last_error());
    let phi = free.get(&[vr("turn.phi")]).1[0];
    assert!((phi - 0.75).abs() < 1e-12, "{phi}");
}

/// The tolerance reaches the solver: the contact's event indicator is tolerance × R − gap, at
/// the model's 1e-6 when none is given, and at 1e-7 and 1e-5 when set. Ignored, every run
/// would show 1e-6 × R.
#[test]
fn the_tolerance_is_the_one_the_solver_uses() {
    let resources = Resources::new("setup_tolerance", MODEL);
    for (given, used) in [(None, 1e-6), (Some(1e-7), 1e-7), (Some(1e-5), 1e-5)] {
        let slave = Slave::model_exchange(&resources);
        set_up(&slave, given, 0.0, None);
        let mut indicators = vec![0.0f64; indicator_count()];
        // SAFETY: a live instance; the buffer holds the model's indicators.
        let status =
            unsafe { fmi2GetEventIndicators(slave.c, indicators.as_mut_ptr(), indicators.len()) };
        assert_eq!(status, Fmi2Status::Ok, "{}", slave.last_error());
        let least = indicators.iter().copied().fold(f64::INFINITY, f64::min);
        // In contact 2 nm deep: the hold gap less a gap of −2 nm.
        let expected = used * RADIUS + DEPTH;
        println!("tolerance {given:?}: indicator {least:e} m, expected {expected:e} m");
        assert!(
            (least - expected).abs() < 1e-15,
            "{least} against {expected}"
        );
    }
}
