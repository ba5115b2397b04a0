//! FMI error semantics of a step the integrator cannot finish, through the C API. A mass on a
//! 100 Hz spring at tolerance 1e-8 needs about 10 000 integrator steps per second; the model's
//! output interval is 1 s, so a step of 1/16 s or more exceeds the step budget (500 per output
//! interval). Such a step used to return `fmi2Error`, after which nothing could be read. Now:
//!
//! - `fmi2Discard`, with `fmi2LastSuccessfulTime` where the integrator stopped, and the state
//!   there consistent: the position read equals the closed form x0·cos(ω·t) at that time;
//! - a master that saves the FMU state before each step and, on `fmi2Discard`, restores it and
//!   halves the step, completes the run and ends on the closed form;
//! - after `fmi2Error`, the getters and the FMU-state functions work (FMI 2.0.4's state table),
//!   and restoring a saved state makes the instance usable again.

use fmu3d_tests::fmi2_host::{value_reference, Resources, Slave};
use fmu_runtime::fmi2::exports::*;
use fmu_runtime::fmi2::types::*;

const MODEL: &str = r#"
model stiff "A mass on a 100 Hz spring"
parameters { k = 4e5 N/m "stiffness" }
gravity none
experiment { stop_time = 1 s; interval = 1 s; tolerance = 1e-8 }
object b { mass { m = 1 kg; inertia = diag(1, 1, 1) kg.m2 }; output = true }
joint slide prismatic { from = world; to = b; axis = x; s = 0.001 m; spring = k }
"#;

const X0: f64 = 0.001;

/// The closed form of the undamped oscillator released at rest from X0: x = X0·cos(ω·t).
fn closed_form(t: f64) -> f64 {
    let omega = (4e5f64 / 1.0).sqrt();
    X0 * (omega * t).cos()
}

fn vr(name: &str) -> u32 {
    value_reference(MODEL, name)
}

fn last_successful_time(slave: &Slave) -> (Fmi2Status, f64) {
    let mut t = f64::NAN;
    // SAFETY: a live instance and a valid output pointer.
    let status = unsafe { fmi2GetRealStatus(slave.c, FMI2_LAST_SUCCESSFUL_TIME, &mut t) };
    (status, t)
}

fn save(slave: &Slave) -> Fmi2FmuState {
    let mut state: Fmi2FmuState = std::ptr::null_mut();
    // SAFETY: a live instance and a valid output pointer.
    assert_eq!(
        unsafe { fmi2GetFMUstate(slave.c, &mut state) },
        Fmi2Status::Ok
    );
    state
}

fn restore(slave: &Slave, state: Fmi2FmuState) {
    // SAFETY: a state of this instance.
    assert_eq!(unsafe { fmi2SetFMUstate(slave.c, state) }, Fmi2Status::Ok);
}

fn free(slave: &Slave, mut state: Fmi2FmuState) {
    // SAFETY: a state of this instance, freed once.
    assert_eq!(
        unsafe { fmi2FreeFMUstate(slave.c, &mut state) },
        Fmi2Status::Ok
    );
}

#[test]
fn a_step_too_long_for_the_integrator_is_discarded_at_a_consistent_state() {
    let resources = Resources::new("discard", MODEL);
    let slave = Slave::new(&resources);
    slave.initialize(Some(1.0));
    assert_eq!(slave.step(0.0, 1.0), Fmi2Status::Discard);
    let warning = slave
        .messages()
        .into_iter()
        .find(|m| m.status == Fmi2Status::Discard)
        .expect("the discard is explained");
    assert!(
        warning.text.contains("fmi2LastSuccessfulTime") && warning.text.contains("smaller"),
        "{}",
        warning.text
    );
    let (status, reached) = last_successful_time(&slave);
    assert_eq!(status, Fmi2Status::Ok);
    assert!(reached > 0.0 && reached < 1.0, "stopped at {reached} s");
    let (status, x) = slave.get(&[vr("slide.s")]);
    assert_eq!(status, Fmi2Status::Ok, "readable after the discard");
    let error = (x[0] - closed_form(reached)).abs();
    eprintln!(
        "discarded at t = {reached:.6} s: x = {:.9e} m, closed form {:.9e} m, error {error:.1e} m",
        x[0],
        closed_form(reached)
    );
    // About 5 cycles at tolerance 1e-8: the phase error of the integrator is ~1e-7 of X0.
    assert!(error < 1e-8, "x off the closed form by {error:e} m");
    // A discarded step is not continued: the state machine is in `step failed`.
    assert_eq!(slave.step(reached, 0.1), Fmi2Status::Error);
}

#[test]
fn a_master_that_halves_the_step_on_discard_completes_the_run() {
    let resources = Resources::new("halving", MODEL);
    let slave = Slave::new(&resources);
    slave.initialize(Some(1.0));
    let (mut t, mut h): (f64, f64) = (0.0, 1.0);
    let (mut discards, mut steps) = (0, 0);
    while t < 1.0 - 1e-12 {
        let h_now = h.min(1.0 - t);
        let before = save(&slave);
        match slave.step(t, h_now) {
            Fmi2Status::Ok => {
                t += h_now;
                steps += 1;
            }
            Fmi2Status::Discard => {
                restore(&slave, before);
                h /= 2.0;
                discards += 1;
                assert!(h > 1e-4, "the master gives up at h = {h}");
            }
            other => panic!("{other:?} at t = {t}: {}", slave.last_error()),
        }
        free(&slave, before);
    }
    let (_, x) = slave.get(&[vr("slide.s")]);
    let error = (x[0] - closed_form(1.0)).abs();
    eprintln!(
        "halving master: {discards} discards, {steps} steps of {h} s; x(1 s) = {:.9e} m, closed \
         form {:.9e} m, error {error:.1e} m",
        x[0],
        closed_form(1.0)
    );
    assert!(discards > 0, "the first steps are discarded");
    // 160 cycles at tolerance 1e-8: a phase error of 1.5e-4 rad (9.2e-8 m achieved).
    assert!(error < 3e-7, "x(1 s) off the closed form by {error:e} m");
}

#[test]
fn after_an_error_values_and_states_are_readable_and_a_restore_recovers() {
    let resources = Resources::new("error-state", MODEL);
    let slave = Slave::new(&resources);
    slave.initialize(Some(1.0));
    assert_eq!(slave.step(0.0, 0.01), Fmi2Status::Ok);
    let good = save(&slave);
    let (_, x_good) = slave.get(&[vr("slide.s")]);
    // A step that does not continue from the last communication point is an error.
    assert_eq!(slave.step(0.5, 0.01), Fmi2Status::Error);
    let (status, x) = slave.get(&[vr("slide.s")]);
    assert_eq!(status, Fmi2Status::Ok, "getters work in the error state");
    assert_eq!(
        x, x_good,
        "the values are those of the last instant reached"
    );
    let in_error = save(&slave);
    // Only a restore (or reset) leaves the error state; then the run goes on.
    assert_eq!(slave.step(0.01, 0.01), Fmi2Status::Error);
    restore(&slave, good);
    assert_eq!(slave.step(0.01, 0.01), Fmi2Status::Ok);
    let (_, x) = slave.get(&[vr("slide.s")]);
    let error = (x[0] - closed_form(0.02)).abs();
    eprintln!("after restoring: x(0.02 s) off the closed form by {error:.1e} m");
    assert!(error < 5e-9, "x(0.02 s) = {} m", x[0]);
    free(&slave, in_error);
    free(&slave, good);
}

/// Regression: a torque of 1e15 N·m on a 1 kg pendulum made the step fail with "mass matrix
/// singular" alone. The message now names the input and its value, and the outputs that ran
/// away, so the user sees what they did.
#[test]
fn a_runaway_motion_is_reported_with_the_input_that_drove_it() {
    const PENDULUM: &str = r#"
model driven "A torque-driven pendulum"
experiment { stop_time = 1 s; interval = 10 ms; tolerance = 1e-8 }
object body { mass { m = 1 kg; center = [0.5, 0, 0] m; inertia = diag(0.001, 0.001, 0.001) kg.m2 } }
joint rev revolute { from = world; to = body; axis = z; flange = force }
"#;
    let resources = Resources::new("runaway", PENDULUM);
    let slave = Slave::new(&resources);
    slave.initialize(Some(1.0));
    let tau = value_reference(PENDULUM, "rev.tau");
    assert_eq!(slave.set(&[tau], &[1e15]), Fmi2Status::Ok);
    let status = slave.step(0.0, 0.01);
    let message = slave
        .messages()
        .into_iter()
        .rev()
        .find(|m| m.status >= Fmi2Status::Discard)
        .map(|m| m.text)
        .unwrap_or_default();
    eprintln!("{status:?}: {message}");
    assert_ne!(status, Fmi2Status::Ok);
    assert!(message.contains("rev.tau = 1e15 N.m"), "{message}");
}

/// The step budget is per simulated time, the same wherever the step starts: a step that is
/// too long is discarded after the same stretch of time from t = 0.25 s as from t = 0.
#[test]
fn the_budget_does_not_depend_on_where_the_step_starts() {
    let resources = Resources::new("budget", MODEL);
    let from_zero = {
        let slave = Slave::new(&resources);
        slave.initialize(Some(1.0));
        assert_eq!(slave.step(0.0, 1.0), Fmi2Status::Discard);
        last_successful_time(&slave).1
    };
    let slave = Slave::new(&resources);
    slave.initialize(Some(1.0));
    for k in 0..8 {
        assert_eq!(slave.step(k as f64 / 32.0, 1.0 / 32.0), Fmi2Status::Ok);
    }
    assert_eq!(slave.step(0.25, 0.75), Fmi2Status::Discard);
    let later = last_successful_time(&slave).1 - 0.25;
    eprintln!("discarded after {from_zero:.4} s from t = 0, after {later:.4} s from t = 0.25 s");
    assert!(
        (later / from_zero - 1.0).abs() < 0.2,
        "{later} s vs {from_zero} s"
    );
}
