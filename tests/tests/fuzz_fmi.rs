//! Fuzzing the FMI boundary: random sequences of FMI 2.0 calls with random arguments (value
//! references past the table, NaN, infinities, huge values, negative and tiny steps, steps that
//! do not continue, FMU states taken, restored, serialized into a fresh instance, resets,
//! terminations, all in any state) on an instance with a force and a motion input. Whatever the
//! sequence, no call may return `fmi2Fatal` (our code never gives up the instance), and no panic
//! or crash may reach the host. The number of sequences is proptest's (`PROPTEST_CASES`, 64 by
//! default; `docs/reliability.md` has the long runs); a failing sequence is kept in
//! `tests/tests/regressions/fuzz_fmi.txt` and replayed first from then on.

use fmu3d_tests::fmi2_host::{Resources, Slave};
use fmu_runtime::fmi2::exports::*;
use fmu_runtime::fmi2::types::*;
use proptest::prelude::*;

const MODEL: &str = r#"
model drives "A pendulum driven by a torque and a slider moved by a prescribed motion"
parameters {
  m = 1 kg      "mass of the pendulum"
  L = 0.5 m     "distance of its center of mass from the axis"
}
experiment { stop_time = 2 s; interval = 10 ms; tolerance = 1e-6 }
object body {
  mass { m = m; center = [L, 0, 0] m; inertia = diag(0.001, 0.001, 0.001) kg.m2 }
  shape sphere { diameter = 0.1 m }
  contact { material = steel }
  output = true
}
joint rev revolute { from = world; to = body; axis = z; flange = force }
object wall { parent = world; position = [0, -0.7, 0] m; shape box { lengths = [2, 0.1, 2] m }; contact { material = steel } }
object slider { mass { m = 2 kg; inertia = diag(0.01, 0.01, 0.01) kg.m2 } }
joint slide prismatic { from = world; to = slider; axis = x; flange = motion }
"#;

/// Values that break naive code.
const VALUES: [f64; 12] = [
    0.0,
    1.0,
    -1.0,
    0.5,
    1e3,
    -1e6,
    1e15,
    1e300,
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::MIN_POSITIVE,
];

/// Steps: ordinary, long, tiny, zero, negative, not finite.
const STEPS: [f64; 9] = [1e-3, 0.01, 0.1, 1.0, 5.0, 1e-17, 0.0, -0.1, f64::NAN];

#[derive(Debug, Clone)]
enum Call {
    Setup {
        tolerance: usize,
        stop: usize,
    },
    Enter,
    Exit,
    SetReal {
        reference: u32,
        value: usize,
    },
    SetDerivative {
        reference: u32,
        order: i32,
        value: usize,
    },
    GetReal {
        reference: u32,
    },
    GetOutputDerivative {
        reference: u32,
        order: i32,
    },
    DoStep {
        step: usize,
        off_by: usize,
    },
    SaveRestore,
    SerializeIntoFresh,
    Terminate,
    Reset,
    /// Reset, enter and exit initialization: back to a running simulation after an error.
    Restart,
    Status,
}

/// Mostly calls that succeed, so that sequences get deep into a simulation (contacts, states,
/// derivatives), with bad arguments often enough to reach every refusal and the error state.
fn call() -> impl Strategy<Value = Call> {
    let reference = prop_oneof![4 => 0u32..30, 1 => 30u32..u32::MAX];
    let value = prop_oneof![4 => 0..5usize, 1 => 5..VALUES.len()];
    let step = prop_oneof![5 => 0..4usize, 1 => 4..STEPS.len()];
    let off_by = prop_oneof![9 => Just(0usize), 1 => 1usize..4];
    prop_oneof![
        1 => (0..VALUES.len(), 0..STEPS.len()).prop_map(|(tolerance, stop)| Call::Setup { tolerance, stop }),
        2 => Just(Call::Enter),
        2 => Just(Call::Exit),
        3 => (reference.clone(), value.clone()).prop_map(|(reference, value)| Call::SetReal { reference, value }),
        1 => (reference.clone(), -1i32..5, value).prop_map(|(reference, order, value)| {
            Call::SetDerivative { reference, order, value }
        }),
        2 => reference.clone().prop_map(|reference| Call::GetReal { reference }),
        1 => (reference, -1i32..3).prop_map(|(reference, order)| Call::GetOutputDerivative { reference, order }),
        8 => (step, off_by).prop_map(|(step, off_by)| Call::DoStep { step, off_by }),
        1 => Just(Call::SaveRestore),
        1 => Just(Call::SerializeIntoFresh),
        1 => Just(Call::Terminate),
        1 => Just(Call::Reset),
        3 => Just(Call::Restart),
        1 => Just(Call::Status),
    ]
}

/// Runs one call; returns its status (the worst of its parts).
fn run(slave: &Slave, resources: &Resources, t: &mut f64, call: &Call) -> Fmi2Status {
    // SAFETY (every block below): a live instance, arrays of the announced lengths, output
    // pointers to live locals; the arguments themselves are what is fuzzed.
    match *call {
        Call::Setup { tolerance, stop } => unsafe {
            fmi2SetupExperiment(
                slave.c,
                FMI2_TRUE,
                VALUES[tolerance],
                0.0,
                (STEPS[stop] > 0.0) as i32,
                STEPS[stop],
            )
        },
        Call::Enter => unsafe { fmi2EnterInitializationMode(slave.c) },
        Call::Exit => {
            *t = 0.0;
            unsafe { fmi2ExitInitializationMode(slave.c) }
        }
        Call::SetReal { reference, value } => slave.set(&[reference], &[VALUES[value]]),
        Call::SetDerivative {
            reference,
            order,
            value,
        } => slave.set_derivatives(&[reference], order, &[VALUES[value]]),
        Call::GetReal { reference } => slave.get(&[reference]).0,
        Call::GetOutputDerivative { reference, order } => {
            slave.output_derivatives(&[reference], order).0
        }
        Call::DoStep { step, off_by } => {
            let h = STEPS[step];
            let start = *t + [0.0, 1e-12, -0.5, 0.3][off_by];
            let status = slave.step(start, h);
            if status == Fmi2Status::Ok {
                *t = start + h;
            }
            status
        }
        Call::SaveRestore => unsafe {
            let mut state: Fmi2FmuState = std::ptr::null_mut();
            let a = fmi2GetFMUstate(slave.c, &mut state);
            let b = fmi2SetFMUstate(slave.c, state);
            let c = fmi2FreeFMUstate(slave.c, &mut state);
            a.max(b).max(c)
        },
        Call::SerializeIntoFresh => unsafe {
            let mut state: Fmi2FmuState = std::ptr::null_mut();
            let mut status = fmi2GetFMUstate(slave.c, &mut state);
            let mut size = 0usize;
            status = status.max(fmi2SerializedFMUstateSize(slave.c, state, &mut size));
            let mut bytes = vec![0 as Fmi2Byte; size];
            status = status.max(fmi2SerializeFMUstate(
                slave.c,
                state,
                bytes.as_mut_ptr(),
                size,
            ));
            status = status.max(fmi2FreeFMUstate(slave.c, &mut state));
            let fresh = Slave::new(resources);
            let mut restored: Fmi2FmuState = std::ptr::null_mut();
            let d = fmi2DeSerializeFMUstate(fresh.c, bytes.as_ptr(), size, &mut restored);
            let e = fmi2SetFMUstate(fresh.c, restored);
            let f = fmi2FreeFMUstate(fresh.c, &mut restored);
            let g = fresh.step(*t, 0.01);
            // Only fmi2Fatal matters here: a state refused by the fresh instance is an error.
            status.max(d.max(e).max(f).max(g).min(Fmi2Status::Error))
        },
        Call::Terminate => unsafe { fmi2Terminate(slave.c) },
        Call::Reset => {
            *t = 0.0;
            slave.reset()
        }
        Call::Restart => {
            *t = 0.0;
            let reset = slave.reset();
            // SAFETY: a live instance.
            unsafe {
                reset
                    .max(fmi2EnterInitializationMode(slave.c))
                    .max(fmi2ExitInitializationMode(slave.c))
            }
        }
        Call::Status => unsafe {
            let mut time = 0.0;
            let mut status = Fmi2Status::Ok;
            fmi2GetRealStatus(slave.c, FMI2_LAST_SUCCESSFUL_TIME, &mut time).max(fmi2GetStatus(
                slave.c,
                FMI2_DO_STEP_STATUS,
                &mut status,
            ))
        },
    }
}

proptest! {
    #![proptest_config(fmu3d_tests::fuzz_config())]

    #[test]
    fn no_call_sequence_is_fatal(calls in proptest::collection::vec(call(), 1..40)) {
        let resources = Resources::new("fuzz", MODEL);
        let slave = Slave::new(&resources);
        let mut t = 0.0;
        let mut steps_done = 0;
        // Most sequences start from a running simulation.
        run(&slave, &resources, &mut t, &Call::Restart);
        for (k, call) in calls.iter().enumerate() {
            let status = run(&slave, &resources, &mut t, call);
            if matches!(call, Call::DoStep { .. }) && status == Fmi2Status::Ok {
                steps_done += 1;
            }
            prop_assert!(
                status != Fmi2Status::Fatal,
                "call {k} {call:?} returned fmi2Fatal: {}",
                slave.last_error()
            );
        }
        if std::env::var_os("FUZZ_TRACE").is_some() {
            eprintln!("sequence: {} calls, {steps_done} steps done", calls.len());
        }
    }
}
