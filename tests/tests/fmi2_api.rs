//! The FMI 2.0 C API as an importer calls it: the state machine (every function in every state,
//! against the table of the FMI 2.0 specification written out here), argument errors, physics
//! through the flanges, FMU-state rollback and serialization, threads.

use fmu3d_tests::fmi2_host::{unwritten_event_info, value_reference, Resources, Slave};
use fmu_runtime::fmi2::exports::*;
use fmu_runtime::fmi2::model_exchange::*;
use fmu_runtime::fmi2::types::*;

/// A force-driven pendulum and a motion-driven slider: inputs of both kinds.
const MODEL: &str = r#"
model drives "A pendulum driven by a torque and a slider moved by a prescribed motion"
parameters {
  m = 1 kg      "mass of the pendulum"
  L = 0.5 m     "distance of its center of mass from the axis"
  M = 2 kg      "mass of the slider"
}
experiment { stop_time = 1 s; interval = 10 ms; tolerance = 1e-8 }
object body {
  mass { m = m; center = [L, 0, 0] m; inertia = diag(0.001, 0.001, 0.001) kg.m2 }
  output = true
}
joint rev revolute { from = world; to = body; axis = z; flange = force }
object slider { mass { m = M; inertia = diag(0.01, 0.01, 0.01) kg.m2 } }
joint slide prismatic { from = world; to = slider; axis = x; flange = motion }
"#;

fn vr(name: &str) -> u32 {
    value_reference(MODEL, name)
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum State {
    Instantiated,
    Initialization,
    StepComplete,
    Terminated,
    Error,
}

const STATES: [State; 5] = [
    State::Instantiated,
    State::Initialization,
    State::StepComplete,
    State::Terminated,
    State::Error,
];

fn drive_to(slave: &Slave, state: State) {
    // SAFETY: a live instance.
    unsafe {
        if state == State::Instantiated {
            return;
        }
        assert_eq!(
            fmi2SetupExperiment(slave.c, FMI2_FALSE, 0.0, 0.0, FMI2_FALSE, 0.0),
            Fmi2Status::Ok
        );
        assert_eq!(fmi2EnterInitializationMode(slave.c), Fmi2Status::Ok);
        if state == State::Initialization {
            return;
        }
        assert_eq!(fmi2ExitInitializationMode(slave.c), Fmi2Status::Ok);
        match state {
            State::Terminated => assert_eq!(fmi2Terminate(slave.c), Fmi2Status::Ok),
            State::Error => assert_eq!(slave.step(0.0, -1.0), Fmi2Status::Error),
            _ => {}
        }
    }
}

type Call = fn(&Slave) -> Fmi2Status;

/// Each function with a valid call, and the states the FMI 2.0 specification (co-simulation
/// state table, §4.2.4) allows it in. After fmi2Error the table allows reset, free, the getters
/// (for diagnostics), the directional and output derivatives, and the FMU-state functions.
fn functions() -> Vec<(&'static str, Call, &'static [State])> {
    use State::*;
    vec![
        (
            "fmi2SetupExperiment",
            |s| unsafe { fmi2SetupExperiment(s.c, FMI2_TRUE, 1e-6, 0.0, FMI2_FALSE, 0.0) },
            &[Instantiated],
        ),
        (
            "fmi2EnterInitializationMode",
            |s| unsafe { fmi2EnterInitializationMode(s.c) },
            &[Instantiated],
        ),
        (
            "fmi2ExitInitializationMode",
            |s| unsafe { fmi2ExitInitializationMode(s.c) },
            &[Initialization],
        ),
        (
            "fmi2Terminate",
            |s| unsafe { fmi2Terminate(s.c) },
            &[StepComplete],
        ),
        (
            "fmi2Reset",
            |s| s.reset(),
            &[
                Instantiated,
                Initialization,
                StepComplete,
                Terminated,
                Error,
            ],
        ),
        (
            "fmi2SetDebugLogging",
            |s| unsafe { fmi2SetDebugLogging(s.c, FMI2_TRUE, 0, std::ptr::null()) },
            &[
                Instantiated,
                Initialization,
                StepComplete,
                Terminated,
                Error,
            ],
        ),
        (
            "fmi2GetReal",
            |s| s.get(&[vr("rev.phi")]).0,
            &[Initialization, StepComplete, Terminated, Error],
        ),
        (
            "fmi2SetReal",
            |s| s.set(&[vr("rev.tau")], &[0.5]),
            &[Instantiated, Initialization, StepComplete],
        ),
        (
            "fmi2SetRealInputDerivatives",
            |s| unsafe {
                fmi2SetRealInputDerivatives(
                    s.c,
                    [vr("rev.tau")].as_ptr(),
                    1,
                    [1].as_ptr(),
                    [0.1].as_ptr(),
                )
            },
            &[Instantiated, Initialization, StepComplete],
        ),
        ("fmi2DoStep", |s| s.step(0.0, 0.01), &[StepComplete]),
        ("fmi2CancelStep", |s| unsafe { fmi2CancelStep(s.c) }, &[]),
        (
            "fmi2GetStatus",
            |s| {
                let mut v = Fmi2Status::Error;
                unsafe { fmi2GetStatus(s.c, FMI2_DO_STEP_STATUS, &mut v) }
            },
            &[StepComplete, Terminated],
        ),
        (
            "fmi2GetRealStatus",
            |s| {
                let mut v = 0.0;
                unsafe { fmi2GetRealStatus(s.c, FMI2_LAST_SUCCESSFUL_TIME, &mut v) }
            },
            &[StepComplete, Terminated],
        ),
        (
            "fmi2GetFMUstate",
            |s| {
                let mut state: Fmi2FmuState = std::ptr::null_mut();
                let status = unsafe { fmi2GetFMUstate(s.c, &mut state) };
                unsafe { fmi2FreeFMUstate(s.c, &mut state) };
                status
            },
            &[
                Instantiated,
                Initialization,
                StepComplete,
                Terminated,
                Error,
            ],
        ),
        (
            "fmi2GetInteger",
            |s| unsafe { fmi2GetInteger(s.c, std::ptr::null(), 0, std::ptr::null_mut()) },
            &[Initialization, StepComplete, Terminated, Error],
        ),
        (
            "fmi2SetBoolean",
            |s| unsafe { fmi2SetBoolean(s.c, std::ptr::null(), 0, std::ptr::null()) },
            &[Instantiated, Initialization, StepComplete],
        ),
        (
            "fmi2GetBoolean",
            |s| unsafe { fmi2GetBoolean(s.c, std::ptr::null(), 0, std::ptr::null_mut()) },
            &[Initialization, StepComplete, Terminated, Error],
        ),
        (
            "fmi2GetString",
            |s| unsafe { fmi2GetString(s.c, std::ptr::null(), 0, std::ptr::null_mut()) },
            &[Initialization, StepComplete, Terminated, Error],
        ),
        (
            "fmi2SetInteger",
            |s| unsafe { fmi2SetInteger(s.c, std::ptr::null(), 0, std::ptr::null()) },
            &[Instantiated, Initialization, StepComplete],
        ),
        (
            "fmi2SetString",
            |s| unsafe { fmi2SetString(s.c, std::ptr::null(), 0, std::ptr::null()) },
            &[Instantiated, Initialization, StepComplete],
        ),
        (
            "fmi2GetIntegerStatus",
            |s| {
                let mut v = 0;
                unsafe { fmi2GetIntegerStatus(s.c, FMI2_DO_STEP_STATUS, &mut v) }
            },
            &[StepComplete, Terminated],
        ),
        (
            "fmi2GetBooleanStatus",
            |s| {
                let mut v = 0;
                unsafe { fmi2GetBooleanStatus(s.c, FMI2_TERMINATED, &mut v) }
            },
            &[StepComplete, Terminated],
        ),
        (
            "fmi2GetStringStatus",
            |s| {
                let mut v: Fmi2String = std::ptr::null();
                unsafe { fmi2GetStringStatus(s.c, FMI2_PENDING_STATUS, &mut v) }
            },
            &[StepComplete, Terminated],
        ),
        (
            "fmi2GetDirectionalDerivative",
            |s| unsafe {
                fmi2GetDirectionalDerivative(
                    s.c,
                    std::ptr::null(),
                    0,
                    std::ptr::null(),
                    0,
                    std::ptr::null(),
                    std::ptr::null_mut(),
                )
            },
            &[Initialization, StepComplete, Terminated, Error],
        ),
        (
            "fmi2GetRealOutputDerivatives",
            |s| unsafe {
                fmi2GetRealOutputDerivatives(
                    s.c,
                    std::ptr::null(),
                    0,
                    std::ptr::null(),
                    std::ptr::null_mut(),
                )
            },
            &[StepComplete, Terminated, Error],
        ),
    ]
}

/// Functions whose capability flag is false: in the states the specification allows them in
/// they still return fmi2Error, but with a message that says they are not provided.
const NOT_PROVIDED: [&str; 1] = ["fmi2GetDirectionalDerivative"];

#[test]
fn every_function_in_every_state_follows_the_specification() {
    let resources = Resources::new("matrix", MODEL);
    let mut checked = 0;
    for (name, call, allowed) in functions() {
        for state in STATES {
            let slave = Slave::new(&resources);
            drive_to(&slave, state);
            let status = call(&slave);
            let refused = slave
                .messages()
                .iter()
                .any(|m| m.text.contains("is not allowed in state"));
            if NOT_PROVIDED.contains(&name) && allowed.contains(&state) {
                assert_eq!(status, Fmi2Status::Error, "{name} in {state:?}");
                assert!(
                    !refused && slave.last_error().contains("does not provide"),
                    "{name} in {state:?}: {}",
                    slave.last_error()
                );
            } else if allowed.contains(&state) {
                assert!(
                    !refused && status != Fmi2Status::Error,
                    "{name} in {state:?}: {status:?} {}",
                    slave.last_error()
                );
            } else {
                assert_eq!(
                    status,
                    Fmi2Status::Error,
                    "{name} in {state:?} must be refused"
                );
                let message = slave.last_error();
                assert!(
                    message.starts_with(name) && message.contains("is not allowed in state"),
                    "{name} in {state:?}: {message}"
                );
            }
            // Whatever happened, a reset makes the instance usable again.
            assert_eq!(
                slave.reset(),
                Fmi2Status::Ok,
                "reset after {name} in {state:?}"
            );
            slave.initialize(None);
            assert_eq!(
                slave.step(0.0, 0.01),
                Fmi2Status::Ok,
                "{name} in {state:?}: usable after reset"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 25 * 5);
}

#[test]
fn bad_arguments_return_errors_with_messages_and_reset_recovers() {
    let resources = Resources::new("arguments", MODEL);
    let phi = vr("rev.phi");
    let tau = vr("rev.tau");
    type Case = (
        &'static str,
        fn(&Slave, u32, u32) -> Fmi2Status,
        &'static str,
    );
    let cases: [Case; 12] = [
        (
            "null vr[]",
            |s, _, _| unsafe { fmi2GetReal(s.c, std::ptr::null(), 1, [0.0].as_mut_ptr()) },
            "vr[] is a null pointer",
        ),
        (
            "null value[]",
            |s, phi, _| unsafe { fmi2GetReal(s.c, [phi].as_ptr(), 1, std::ptr::null_mut()) },
            "value[] is a null pointer",
        ),
        (
            "unknown value reference",
            |s, _, _| s.get(&[100_000]).0,
            "value reference 100000 does not exist",
        ),
        (
            "NaN input",
            |s, _, tau| s.set(&[tau], &[f64::NAN]),
            "values must be finite",
        ),
        (
            "setting an output",
            |s, phi, _| s.set(&[phi], &[1.0]),
            "is an output",
        ),
        (
            "zero step",
            |s, _, _| s.step(0.0, 0.0),
            "communicationStepSize must be a positive",
        ),
        (
            "negative step",
            |s, _, _| s.step(0.0, -0.01),
            "communicationStepSize must be a positive",
        ),
        (
            // Regression: t + h == t returned fmi2OK without advancing.
            "a step below the resolution of the time",
            |s, _, _| s.step(0.0, 1e-17),
            "below the resolution of the time",
        ),
        (
            "an infinite step",
            |s, _, _| s.step(0.0, f64::INFINITY),
            "communicationStepSize must be a positive",
        ),
        (
            "a step that does not continue",
            |s, _, _| s.step(0.5, 0.01),
            "does not continue from the last communication point",
        ),
        (
            "a communication point that is not a number",
            |s, _, _| s.step(f64::NAN, 0.01),
            "does not continue from the last communication point",
        ),
        (
            "stepping past the stop time",
            |s, _, _| s.step(0.0, 2.0),
            "goes past the stop time",
        ),
    ];
    for (what, call, expected) in cases {
        let slave = Slave::new(&resources);
        slave.initialize(Some(1.0));
        assert_eq!(call(&slave, phi, tau), Fmi2Status::Error, "{what}");
        assert!(
            slave.last_error().contains(expected),
            "{what}: {}",
            slave.last_error()
        );
        // After an error only reset (or set-state, or free) is accepted.
        assert_eq!(
            slave.step(0.0, 0.01),
            Fmi2Status::Error,
            "{what}: refused after the error"
        );
        assert_eq!(slave.reset(), Fmi2Status::Ok);
        slave.initialize(Some(1.0));
        assert_eq!(
            slave.step(0.0, 0.01),
            Fmi2Status::Ok,
            "{what}: usable after reset"
        );
    }
    // A null instance is refused without a crash.
    assert_eq!(
        unsafe { fmi2DoStep(std::ptr::null_mut(), 0.0, 0.1, FMI2_TRUE) },
        Fmi2Status::Error
    );
}

/// §2.1.7 for the types this FMU has no variables of (its modelDescription.xml declares Real
/// variables only): each Integer, Boolean and String getter and setter accepts an empty list
/// (fmi2OK, nothing written), and refuses any value reference with fmi2Error and a message that
/// names the reference and the type, after which reset recovers.
#[test]
fn integer_boolean_and_string_access_refuses_every_reference_by_type() {
    let resources = Resources::new("no_integers", MODEL);
    type Access = fn(&Slave, &[u32]) -> (Fmi2Status, bool);
    let calls: [(&str, &str, Access); 6] = [
        ("fmi2GetInteger", "Integer", |s, vr| {
            let mut v = [7; 1];
            let status = unsafe { fmi2GetInteger(s.c, vr.as_ptr(), vr.len(), v.as_mut_ptr()) };
            (status, v == [7])
        }),
        ("fmi2SetInteger", "Integer", |s, vr| {
            let status = unsafe { fmi2SetInteger(s.c, vr.as_ptr(), vr.len(), [3].as_ptr()) };
            (status, true)
        }),
        ("fmi2GetBoolean", "Boolean", |s, vr| {
            let mut v = [7; 1];
            let status = unsafe { fmi2GetBoolean(s.c, vr.as_ptr(), vr.len(), v.as_mut_ptr()) };
            (status, v == [7])
        }),
        ("fmi2SetBoolean", "Boolean", |s, vr| {
            let status =
                unsafe { fmi2SetBoolean(s.c, vr.as_ptr(), vr.len(), [FMI2_TRUE].as_ptr()) };
            (status, true)
        }),
        ("fmi2GetString", "String", |s, vr| {
            let mut v: [Fmi2String; 1] = [std::ptr::null()];
            let status = unsafe { fmi2GetString(s.c, vr.as_ptr(), vr.len(), v.as_mut_ptr()) };
            (status, v[0].is_null())
        }),
        ("fmi2SetString", "String", |s, vr| {
            let text = c"x";
            let status =
                unsafe { fmi2SetString(s.c, vr.as_ptr(), vr.len(), [text.as_ptr()].as_ptr()) };
            (status, true)
        }),
    ];
    for (name, type_name, call) in calls {
        let slave = Slave::new(&resources);
        slave.initialize(Some(1.0));
        assert_eq!(
            call(&slave, &[]),
            (Fmi2Status::Ok, true),
            "{name} of no variable"
        );
        let (status, untouched) = call(&slave, &[vr("rev.phi")]);
        assert_eq!(status, Fmi2Status::Error, "{name} of a Real's reference");
        assert!(untouched, "{name} wrote a value");
        let message = slave.last_error();
        assert!(
            message.contains(&format!("value reference {}", vr("rev.phi")))
                && message.contains(&format!("no {type_name} variables")),
            "{name}: {message}"
        );
        assert_eq!(
            slave.reset(),
            Fmi2Status::Ok,
            "{name}: reset after the error"
        );
        slave.initialize(Some(1.0));
        assert_eq!(
            slave.step(0.0, 0.01),
            Fmi2Status::Ok,
            "{name}: usable after reset"
        );
    }
}

/// A Model Exchange call: its status, and whether it left its output arguments untouched.
type ModelExchangeCall = fn(Fmi2Component) -> (Fmi2Status, bool);

/// The ten Model Exchange functions, called as a Model Exchange importer would; nothing may be
/// written into their output arguments.
fn model_exchange_functions() -> Vec<(&'static str, ModelExchangeCall)> {
    fn states(
        c: Fmi2Component,
        f: unsafe extern "C" fn(Fmi2Component, *mut f64, usize) -> Fmi2Status,
    ) -> (Fmi2Status, bool) {
        let mut x = [f64::NAN; 2];
        // SAFETY: a live instance or null; an array of 2.
        let status = unsafe { f(c, x.as_mut_ptr(), x.len()) };
        (status, x.iter().all(|v| v.is_nan()))
    }
    vec![
        ("fmi2EnterEventMode", |c| {
            (unsafe { fmi2EnterEventMode(c) }, true)
        }),
        ("fmi2NewDiscreteStates", |c| {
            let mut info = unwritten_event_info();
            let status = unsafe { fmi2NewDiscreteStates(c, &mut info) };
            (
                status,
                info.new_discrete_states_needed == 7 && info.next_event_time == -1.0,
            )
        }),
        ("fmi2EnterContinuousTimeMode", |c| {
            (unsafe { fmi2EnterContinuousTimeMode(c) }, true)
        }),
        ("fmi2CompletedIntegratorStep", |c| {
            let (mut enter, mut terminate) = (7, 7);
            let status =
                unsafe { fmi2CompletedIntegratorStep(c, FMI2_TRUE, &mut enter, &mut terminate) };
            (status, enter == 7 && terminate == 7)
        }),
        ("fmi2SetTime", |c| (unsafe { fmi2SetTime(c, 0.5) }, true)),
        ("fmi2SetContinuousStates", |c| {
            (
                unsafe { fmi2SetContinuousStates(c, [0.1, 0.2].as_ptr(), 2) },
                true,
            )
        }),
        ("fmi2GetDerivatives", |c| states(c, fmi2GetDerivatives)),
        ("fmi2GetEventIndicators", |c| {
            states(c, fmi2GetEventIndicators)
        }),
        ("fmi2GetContinuousStates", |c| {
            states(c, fmi2GetContinuousStates)
        }),
        ("fmi2GetNominalsOfContinuousStates", |c| {
            states(c, fmi2GetNominalsOfContinuousStates)
        }),
    ]
}

/// The Model Exchange functions on a Co-Simulation instance, in every state: fmi2Error, no
/// output written, and a message that names the function, says the instance was made for
/// Co-Simulation and points to fmi2ModelExchange and fmi2DoStep; the instance is in the error
/// state (fmi2DoStep refused) until fmi2Reset. A pointer that is not an instance gets fmi2Error
/// without a crash.
#[test]
fn model_exchange_functions_refuse_a_co_simulation_instance_with_a_message() {
    let resources = Resources::new("model-exchange", MODEL);
    let functions = model_exchange_functions();
    assert_eq!(functions.len(), 10);
    for (name, call) in functions {
        for state in STATES {
            let slave = Slave::new(&resources);
            drive_to(&slave, state);
            let (status, untouched) = call(slave.c);
            assert_eq!(status, Fmi2Status::Error, "{name} in {state:?}");
            assert!(untouched, "{name} in {state:?} wrote an output argument");
            let message = slave.last_error();
            assert!(
                message.starts_with(name)
                    && message.contains("made for Co-Simulation")
                    && message.contains("fmi2ModelExchange")
                    && message.contains("fmi2DoStep"),
                "{name} in {state:?}: {message}"
            );
            assert_eq!(
                slave.step(0.0, 0.01),
                Fmi2Status::Error,
                "{name} in {state:?}"
            );
            assert_eq!(slave.reset(), Fmi2Status::Ok, "{name} in {state:?}");
            slave.initialize(None);
            assert_eq!(slave.step(0.0, 0.01), Fmi2Status::Ok, "{name} in {state:?}");
        }
        assert_eq!(
            call(std::ptr::null_mut()).0,
            Fmi2Status::Error,
            "{name} on null"
        );
    }
}

#[test]
fn instantiation_refuses_a_wrong_guid_and_an_unknown_interface() {
    let resources = Resources::new("guid", MODEL);
    let messages = Slave::try_new(&resources, c"{00000000-0000-0000-0000-000000000000}")
        .err()
        .expect("refused");
    assert!(
        messages
            .iter()
            .any(|m| m.text.contains("does not match this FMU")),
        "{messages:?}"
    );

    let log = std::sync::Mutex::new(Vec::new());
    let functions = fmu3d_tests::fmi2_host::callbacks(&log);
    // An fmuType that is neither fmi2ModelExchange (0) nor fmi2CoSimulation (1).
    let c = unsafe {
        fmi2Instantiate(
            c"me".as_ptr(),
            2,
            resources.guid.as_ptr(),
            resources.uri.as_ptr(),
            &functions,
            0,
            0,
        )
    };
    assert!(c.is_null());
    assert!(log.lock().expect("log").iter().any(|m| m
        .text
        .contains("fmuType 2 is not an FMI 2.0 interface type")
        && m.text.contains("fmi2ModelExchange = 0")));
    // No callbacks at all: nothing to report with, so just no instance.
    let c = unsafe {
        fmi2Instantiate(
            c"x".as_ptr(),
            FMI2_CO_SIMULATION,
            resources.guid.as_ptr(),
            resources.uri.as_ptr(),
            std::ptr::null(),
            0,
            0,
        )
    };
    assert!(c.is_null());
}

#[test]
fn messages_reach_the_logger_as_one_string_argument() {
    // A '%' in a message must arrive as text: the runtime always passes "%s" and the message.
    let resources = Resources::new("percent", MODEL);
    let slave = Slave::new(&resources);
    slave.initialize(None);
    assert_eq!(slave.step(0.0, f64::NAN), Fmi2Status::Error);
    let messages = slave.messages();
    assert!(messages.iter().all(|m| m.format == "%s"));
    assert!(messages
        .iter()
        .any(|m| m.category == "logStatusError" && m.text.contains("NaN")));
}

/// Holding the pendulum horizontal takes τ = m·g·L (independent statics); the slider's drive
/// force for a prescribed acceleration is M·a.
#[test]
fn flanges_carry_the_right_physics() {
    let resources = Resources::new("physics", MODEL);
    let slave = Slave::new(&resources);
    slave.initialize(None);
    let (m, g, l, big_m) = (1.0, 9.81, 0.5, 2.0);
    // Before the torque is applied the pendulum falls: a = −m g L / I_O.
    let (_, a) = slave.get(&[vr("rev.a")]);
    assert!(
        (a[0] + m * g * l / (0.001 + m * l * l)).abs() < 1e-9,
        "falling: {}",
        a[0]
    );
    assert_eq!(slave.set(&[vr("rev.tau")], &[m * g * l]), Fmi2Status::Ok);
    // An output that depends on the input directly follows it without a step.
    let (_, a) = slave.get(&[vr("rev.a")]);
    assert!(a[0].abs() < 1e-9, "held at once: {}", a[0]);
    assert_eq!(
        slave.set(
            &[vr("slide.s"), vr("slide.v"), vr("slide.a")],
            &[0.0, 0.0, 3.0]
        ),
        Fmi2Status::Ok
    );
    for k in 0..50 {
        assert_eq!(slave.step(k as f64 * 0.01, 0.01), Fmi2Status::Ok);
    }
    let (status, values) = slave.get(&[vr("rev.phi"), vr("rev.a"), vr("slide.f")]);
    assert_eq!(status, Fmi2Status::Ok);
    assert!(
        values[0].abs() < 1e-9,
        "held horizontal: phi = {}",
        values[0]
    );
    assert!(values[1].abs() < 1e-9);
    assert!(
        (values[2] - big_m * 3.0).abs() < 1e-9,
        "drive force {}",
        values[2]
    );
}

fn outputs(slave: &Slave) -> Vec<u64> {
    let refs: Vec<u32> = ["rev.phi", "rev.w", "rev.a", "body.r[1]", "body.r[2]"]
        .iter()
        .map(|n| vr(n))
        .collect();
    slave.get(&refs).1.iter().map(|v| v.to_bits()).collect()
}

#[test]
fn fmu_state_rolls_back_exactly_and_restores_into_a_fresh_instance() {
    let resources = Resources::new("state", MODEL);
    let slave = Slave::new(&resources);
    slave.initialize(None);
    slave.set(&[vr("rev.tau")], &[0.3]);
    let mut t = 0.0;
    for _ in 0..20 {
        assert_eq!(slave.step(t, 0.01), Fmi2Status::Ok);
        t += 0.01;
    }
    let mut saved: Fmi2FmuState = std::ptr::null_mut();
    assert_eq!(
        unsafe { fmi2GetFMUstate(slave.c, &mut saved) },
        Fmi2Status::Ok
    );
    let continue_from = |s: &Slave, mut t: f64| {
        for _ in 0..10 {
            assert_eq!(s.step(t, 0.01), Fmi2Status::Ok);
            t += 0.01;
        }
        outputs(s)
    };
    let first = continue_from(&slave, t);
    assert_eq!(unsafe { fmi2SetFMUstate(slave.c, saved) }, Fmi2Status::Ok);
    let again = continue_from(&slave, t);
    assert_eq!(
        first, again,
        "a repeated step gives the same outputs to the last bit"
    );

    // Serialize, and restore into a fresh instance.
    let mut size = 0usize;
    assert_eq!(
        unsafe { fmi2SerializedFMUstateSize(slave.c, saved, &mut size) },
        Fmi2Status::Ok
    );
    let mut bytes = vec![0 as Fmi2Byte; size];
    assert_eq!(
        unsafe { fmi2SerializeFMUstate(slave.c, saved, bytes.as_mut_ptr(), size) },
        Fmi2Status::Ok
    );
    let fresh = Slave::new(&resources);
    let mut restored: Fmi2FmuState = std::ptr::null_mut();
    assert_eq!(
        unsafe { fmi2DeSerializeFMUstate(fresh.c, bytes.as_ptr(), size, &mut restored) },
        Fmi2Status::Ok
    );
    assert_eq!(
        unsafe { fmi2SetFMUstate(fresh.c, restored) },
        Fmi2Status::Ok
    );
    assert_eq!(
        continue_from(&fresh, t),
        first,
        "the fresh instance continues identically"
    );
    // Truncated bytes are refused with a message.
    let mut other: Fmi2FmuState = std::ptr::null_mut();
    assert_eq!(
        unsafe { fmi2DeSerializeFMUstate(fresh.c, bytes.as_ptr(), size - 1, &mut other) },
        Fmi2Status::Error
    );
    assert!(fresh.last_error().contains("truncated or corrupt"));
    unsafe {
        fmi2FreeFMUstate(slave.c, &mut saved);
        fmi2FreeFMUstate(fresh.c, &mut restored);
    }
    assert!(saved.is_null());
}

#[test]
fn instances_on_threads_run_independently() {
    let resources = std::sync::Arc::new(Resources::new("threads", MODEL));
    let run = |tau: f64, resources: &Resources| {
        let slave = Slave::new(resources);
        slave.initialize(None);
        slave.set(&[vr("rev.tau")], &[tau]);
        for k in 0..100 {
            assert_eq!(slave.step(k as f64 * 0.01, 0.01), Fmi2Status::Ok);
        }
        outputs(&slave)
    };
    let alone = [run(0.1, &resources), run(2.0, &resources)];
    let handles: Vec<_> = [0.1, 2.0]
        .into_iter()
        .map(|tau| {
            let resources = resources.clone();
            std::thread::spawn(move || run(tau, &resources))
        })
        .collect();
    let together: Vec<Vec<u64>> = handles
        .into_iter()
        .map(|h| h.join().expect("thread"))
        .collect();
    assert_eq!(together, alone);
    assert_ne!(alone[0], alone[1]);
}

#[test]
fn parameters_change_the_model_before_initialization_only() {
    let resources = Resources::new("parameters", MODEL);
    let slave = Slave::new(&resources);
    // Twice the distance: holding horizontal takes twice the torque.
    assert_eq!(slave.set(&[vr("L")], &[1.0]), Fmi2Status::Ok);
    slave.initialize(None);
    slave.set(&[vr("rev.tau")], &[1.0 * 9.81 * 1.0]);
    assert_eq!(slave.step(0.0, 0.1), Fmi2Status::Ok);
    let (_, values) = slave.get(&[vr("rev.phi"), vr("L")]);
    assert!(values[0].abs() < 1e-9, "phi = {}", values[0]);
    assert_eq!(values[1], 1.0);
    assert_eq!(slave.set(&[vr("L")], &[2.0]), Fmi2Status::Error);
    assert!(slave
        .last_error()
        .contains("can only be set before fmi2ExitInitializationMode"));
}

/// In initialization mode (§2.2.7's table: a fixed parameter and an input may be set from
/// instantiation to fmi2ExitInitializationMode) a parameter and an input set there take
/// effect: with L = 1 m set in initialization mode and the torque m·g·L set there too, the
/// pendulum, released horizontal, stays horizontal (statics), where with the start value
/// L = 0.5 m that torque would lift it.
#[test]
fn a_parameter_and_an_input_set_in_initialization_mode_take_effect() {
    let resources = Resources::new("initialization_mode", MODEL);
    let slave = Slave::new(&resources);
    slave.enter_initialization(None, None);
    assert_eq!(slave.set(&[vr("L")], &[1.0]), Fmi2Status::Ok);
    assert_eq!(slave.set(&[vr("rev.tau")], &[9.81]), Fmi2Status::Ok);
    slave.exit_initialization();
    for k in 0..10 {
        assert_eq!(slave.step(k as f64 * 0.01, 0.01), Fmi2Status::Ok);
    }
    let (_, values) = slave.get(&[vr("rev.phi"), vr("rev.a"), vr("L"), vr("rev.tau")]);
    eprintln!(
        "held by the torque set in initialization mode: phi = {:.1e} rad",
        values[0]
    );
    assert!(
        values[0].abs() < 1e-9 && values[1].abs() < 1e-9,
        "{values:?}"
    );
    assert_eq!((values[2], values[3]), (1.0, 9.81));
}

/// fmi2Reset (§2.1.6): "the FMU goes into the same state as if fmi2Instantiate would have
/// been called": a parameter and an input set before it are back at their start values (read in
/// initialization mode, where values are readable again), the states at the start, and a run
/// after it gives a fresh instance's numbers to the last bit.
#[test]
fn reset_returns_parameters_inputs_and_states_to_their_start_values() {
    let resources = Resources::new("reset", MODEL);
    let fresh = Slave::new(&resources);
    fresh.initialize(None);
    for k in 0..20 {
        assert_eq!(fresh.step(k as f64 * 0.01, 0.01), Fmi2Status::Ok);
    }
    let expected = outputs(&fresh);

    let slave = Slave::new(&resources);
    assert_eq!(slave.set(&[vr("L")], &[1.0]), Fmi2Status::Ok);
    slave.initialize(None);
    assert_eq!(slave.set(&[vr("rev.tau")], &[3.0]), Fmi2Status::Ok);
    for k in 0..30 {
        assert_eq!(slave.step(k as f64 * 0.01, 0.01), Fmi2Status::Ok);
    }
    assert_eq!(slave.reset(), Fmi2Status::Ok);
    // Values are readable again from initialization mode on (§4.2.4).
    slave.enter_initialization(None, None);
    let (status, values) = slave.get(&[vr("L"), vr("rev.tau"), vr("rev.phi"), vr("rev.w")]);
    assert_eq!(status, Fmi2Status::Ok);
    assert_eq!(values, [0.5, 0.0, 0.0, 0.0], "start values after fmi2Reset");
    slave.exit_initialization();
    for k in 0..20 {
        assert_eq!(slave.step(k as f64 * 0.01, 0.01), Fmi2Status::Ok);
    }
    assert_eq!(outputs(&slave), expected, "a run after fmi2Reset");
}

/// fmi2Terminate (§2.1.6, §4.2.4): the final values stay readable, unchanged, and a step is
/// refused with a message.
#[test]
fn terminate_keeps_the_final_values_readable_and_refuses_steps() {
    let resources = Resources::new("terminate", MODEL);
    let slave = Slave::new(&resources);
    slave.initialize(None);
    for k in 0..20 {
        assert_eq!(slave.step(k as f64 * 0.01, 0.01), Fmi2Status::Ok);
    }
    let last = outputs(&slave);
    // SAFETY: a live instance.
    unsafe { assert_eq!(fmi2Terminate(slave.c), Fmi2Status::Ok) };
    assert_eq!(
        outputs(&slave),
        last,
        "the final values after fmi2Terminate"
    );
    assert_ne!(last[0], 0.0f64.to_bits(), "the pendulum has swung");
    assert_eq!(slave.step(0.2, 0.01), Fmi2Status::Error);
    assert!(!slave.last_error().is_empty(), "a message says why");
}

/// The status queries (§4.2.3), kind by kind as the standard defines them, after two steps of
/// 0.1 s: fmi2DoStepStatus is the last step's result (fmi2OK: no step pends),
/// fmi2LastSuccessfulTime the end of the last step, fmi2Terminated false (the slave never asks
/// to stop); a kind a function cannot give (fmi2PendingStatus: nothing pends; no integer
/// kind exists) is fmi2Discard with nothing written; a null value pointer is fmi2Error.
#[test]
fn status_queries_answer_by_kind_as_the_standard_defines() {
    let resources = Resources::new("status", MODEL);
    let slave = Slave::new(&resources);
    slave.initialize(None);
    assert_eq!(slave.step(0.0, 0.1), Fmi2Status::Ok);
    assert_eq!(slave.step(0.1, 0.1), Fmi2Status::Ok);
    // SAFETY: a live instance and writable values.
    unsafe {
        let mut status = Fmi2Status::Fatal;
        assert_eq!(
            fmi2GetStatus(slave.c, FMI2_DO_STEP_STATUS, &mut status),
            Fmi2Status::Ok
        );
        assert_eq!(status, Fmi2Status::Ok);
        let mut time = f64::NAN;
        assert_eq!(
            fmi2GetRealStatus(slave.c, FMI2_LAST_SUCCESSFUL_TIME, &mut time),
            Fmi2Status::Ok
        );
        assert!((time - 0.2).abs() < 1e-15, "last successful time {time}");
        let mut terminated = 7;
        assert_eq!(
            fmi2GetBooleanStatus(slave.c, FMI2_TERMINATED, &mut terminated),
            Fmi2Status::Ok
        );
        assert_eq!(terminated, FMI2_FALSE);

        let mut untouched = Fmi2Status::Fatal;
        assert_eq!(
            fmi2GetStatus(slave.c, FMI2_LAST_SUCCESSFUL_TIME, &mut untouched),
            Fmi2Status::Discard
        );
        assert_eq!(untouched, Fmi2Status::Fatal, "nothing written");
        let mut time = f64::NAN;
        assert_eq!(
            fmi2GetRealStatus(slave.c, FMI2_DO_STEP_STATUS, &mut time),
            Fmi2Status::Discard
        );
        assert!(time.is_nan(), "nothing written");
        let mut flag = 7;
        assert_eq!(
            fmi2GetBooleanStatus(slave.c, FMI2_LAST_SUCCESSFUL_TIME, &mut flag),
            Fmi2Status::Discard
        );
        assert_eq!(flag, 7, "nothing written");
        let mut integer = 7;
        for kind in [
            FMI2_DO_STEP_STATUS,
            FMI2_PENDING_STATUS,
            FMI2_LAST_SUCCESSFUL_TIME,
            FMI2_TERMINATED,
        ] {
            assert_eq!(
                fmi2GetIntegerStatus(slave.c, kind, &mut integer),
                Fmi2Status::Discard
            );
        }
        assert_eq!(integer, 7, "nothing written");
        let mut text: Fmi2String = std::ptr::null();
        assert_eq!(
            fmi2GetStringStatus(slave.c, FMI2_PENDING_STATUS, &mut text),
            Fmi2Status::Discard
        );
        assert!(text.is_null(), "nothing written");
        assert_eq!(
            fmi2GetRealStatus(slave.c, FMI2_LAST_SUCCESSFUL_TIME, std::ptr::null_mut()),
            Fmi2Status::Error
        );
    }
    assert!(
        slave.last_error().contains("value"),
        "the message names the argument: {}",
        slave.last_error()
    );
}

/// A wheel (J = 0.02 kg·m², no gravity) driven through its flange.
const WHEEL: &str = r#"
model wheel "a wheel driven by a torque"
gravity none
object wheel { mass { m = 1 kg; inertia = diag(0.01, 0.01, 0.02) kg.m2 } }
joint rev revolute { from = world; to = wheel; axis = z; flange = force }
"#;

/// fmi2SetRealInputDerivatives (§4.2.1): over the next step the FMU takes the input as
/// u(t) = u + u′ (t − t_k) + u″ (t − t_k)²/2. With τ = 0.1 N·m, τ′ = 0.3 N·m/s and τ″ = 0.6 N·m/s²
/// set at t_k = 0, one step of 0.5 s turns the wheel to
/// φ = (τ t²/2 + τ′ t³/6 + τ″ t⁴/24)/J at ω = (τ t + τ′ t²/2 + τ″ t³/6)/J. An order dropped (8 %
/// of φ for τ″) or taken as the other changes them by percent.
///
/// Regression: an input set with its derivatives was taken as continuous however far its value
/// jumped, so the integrator kept the start's ẏ (the wheel at rest, τ = 0) past the jump to
/// 0.1 N·m, and at the tolerance 1e-9 and below the step was discarded (the error test failed
/// down to the smallest step at t = 0); `fmu3d simulate --input` with a ramp failed alike.
#[test]
fn input_derivatives_extrapolate_the_input_over_the_step() {
    let resources = Resources::new("input_derivatives", WHEEL);
    let slave = Slave::new(&resources);
    // The tolerance 1e-10: the integrator follows the quartic to its tolerance (2.3e-6 at the
    // default 1e-6, 3.9e-10 here).
    slave.enter_initialization(Some(1e-10), None);
    slave.exit_initialization();
    let tau = value_reference(WHEEL, "rev.tau");
    assert_eq!(slave.set(&[tau], &[0.1]), Fmi2Status::Ok);
    assert_eq!(slave.set_derivatives(&[tau], 1, &[0.3]), Fmi2Status::Ok);
    assert_eq!(slave.set_derivatives(&[tau], 2, &[0.6]), Fmi2Status::Ok);
    assert_eq!(
        slave.step(0.0, 0.5),
        Fmi2Status::Ok,
        "{:?}",
        slave.messages()
    );
    let (j, t) = (0.02, 0.5f64);
    let phi = (0.1 * t * t / 2.0 + 0.3 * t.powi(3) / 6.0 + 0.6 * t.powi(4) / 24.0) / j;
    let w = (0.1 * t + 0.3 * t * t / 2.0 + 0.6 * t.powi(3) / 6.0) / j;
    let (status, values) = slave.get(&[
        value_reference(WHEEL, "rev.phi"),
        value_reference(WHEEL, "rev.w"),
    ]);
    assert_eq!(status, Fmi2Status::Ok);
    let error = ((values[0] - phi) / phi)
        .abs()
        .max(((values[1] - w) / w).abs());
    eprintln!(
        "input extrapolated by its derivatives: phi {} (closed form {phi}), {error:.1e}",
        values[0]
    );
    assert!(error < 2e-9, "phi {}, w {}", values[0], values[1]);
}
