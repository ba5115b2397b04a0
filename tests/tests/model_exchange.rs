//! Model Exchange through the C API and the simulation's explicit form: the state machine of
//! FMI 2.0 §3.2.3 with its argument checks, the derivatives of a pendulum against its equation
//! of motion, a four-bar integrated by an explicit integrator (the loop held closed by the
//! projection events it asks for, and the motion of Co-Simulation), an FMU state restored, and
//! one of a Co-Simulation instance refused.

use fmu3d_tests::fmi2_host::{unwritten_event_info, value_reference, Resources, Slave};
use fmu_runtime::fmi2::exports::*;
use fmu_runtime::fmi2::model_exchange::*;
use fmu_runtime::fmi2::types::*;
use fmu_runtime::model;
use fmu_runtime::simulation::{Simulation, SimulationOptions};

/// A damped pendulum driven by a torque input: J φ̈ = τ − m g L cos φ − d ω, J = I + m L².
const PENDULUM: &str = r#"
model pendulum_me "A damped pendulum with a torque input"
parameters {
  m = 1.5 kg    "mass"
  L = 0.4 m     "distance of the center of mass from the axis"
  d = 0.2 N.m.s/rad "damping"
}
gravity uniform { g = [0, -9.81, 0] m/s2 }
experiment { stop_time = 1 s; interval = 10 ms; tolerance = 1e-8 }
object body { mass { m = m; center = [L, 0, 0] m; inertia = diag(0.002, 0.002, 0.003) kg.m2 } }
joint rev revolute { from = world; to = body; axis = z; phi = 0.3; w = -0.5; damper = d; flange = force }
"#;

/// A passive four-bar (the crank-rocker of models/fourbar.m3d without its prescribed motion)
/// swinging under gravity: one degree of freedom, one loop.
const FOURBAR: &str = r#"
model fourbar_me "A passive four-bar under gravity"
parameters { a = 0.1 m; b = 0.35 m; c = 0.3 m; d = 0.3 m }
gravity uniform { g = [0, -9.81, 0] m/s2 }
experiment { stop_time = 1 s; interval = 5 ms; tolerance = 1e-8 }
assembly Bar(Lx = 0.1 m, Ly = 0.1*Lx) {
  object obj1 { }
  object beam {
    parent = obj1; position = [Lx/2, 0, 0]
    shape box { lengths = [Lx, Ly, Ly] }
    mass { material = aluminium }
  }
  object obj2 { parent = obj1; position = [Lx, 0, 0] }
}
object pos1 { parent = world }
object pos2 { parent = world; position = [d, 0, 0] }
instance bar1 = Bar(Lx = a)
instance bar2 = Bar(Lx = b)
instance bar3 = Bar(Lx = c)
joint rev1 revolute { from = pos1; to = bar1.obj1; axis = z; phi = 60 deg; w = 3 }
joint rev2 revolute { from = bar1.obj2; to = bar2.obj1; axis = z; phi_guess = -20 deg }
joint rev3 revolute { from = bar3.obj2; to = bar2.obj2; axis = z; phi_guess = -50 deg }
joint rev4 revolute { from = pos2; to = bar3.obj1; axis = z; phi_guess = 90 deg }
"#;

fn states(slave: &Slave, n: usize) -> (Fmi2Status, Vec<f64>) {
    let mut x = vec![f64::NAN; n];
    // SAFETY: an array of n.
    let status = unsafe { fmi2GetContinuousStates(slave.c, x.as_mut_ptr(), n) };
    (status, x)
}

fn derivatives(slave: &Slave, n: usize) -> (Fmi2Status, Vec<f64>) {
    let mut dx = vec![f64::NAN; n];
    // SAFETY: an array of n.
    let status = unsafe { fmi2GetDerivatives(slave.c, dx.as_mut_ptr(), n) };
    (status, dx)
}

fn event_update(slave: &Slave) -> (Fmi2Status, Fmi2EventInfo) {
    let mut info = unwritten_event_info();
    // SAFETY: a live instance and an event info.
    let status = unsafe { fmi2NewDiscreteStates(slave.c, &mut info) };
    (status, info)
}

/// The modes of FMI 2.0 §3.2.3 in order, each function refused outside its states with a
/// message that names them, array arguments checked (null, length against the model's
/// counts) before anything is written, and the Co-Simulation step refused with what to do.
#[test]
fn model_exchange_follows_the_state_machine_and_checks_its_arguments() {
    let resources = Resources::new("me-states", PENDULUM);
    let slave = Slave::model_exchange(&resources);
    // SAFETY: a live instance throughout; arrays of the lengths passed.
    unsafe {
        assert_eq!(fmi2SetTime(slave.c, 0.1), Fmi2Status::Error);
        assert!(
            slave
                .last_error()
                .starts_with("fmi2SetTime is not allowed in state `instantiated`"),
            "{}",
            slave.last_error()
        );
        assert_eq!(slave.reset(), Fmi2Status::Ok);
        // The nominals are readable once instantiated.
        let mut nominals = [0.0; 2];
        assert_eq!(
            fmi2GetNominalsOfContinuousStates(slave.c, nominals.as_mut_ptr(), 2),
            Fmi2Status::Ok
        );
        assert_eq!(nominals, [1.0, 1.0]);
        assert_eq!(
            fmi2SetupExperiment(slave.c, FMI2_FALSE, 0.0, 0.0, FMI2_FALSE, 0.0),
            Fmi2Status::Ok
        );
        assert_eq!(fmi2EnterInitializationMode(slave.c), Fmi2Status::Ok);
        assert_eq!(fmi2ExitInitializationMode(slave.c), Fmi2Status::Ok);
        // Event mode: a Co-Simulation step is refused with the reason.
        assert_eq!(slave.step(0.0, 0.01), Fmi2Status::Error);
        let message = slave.last_error();
        assert!(
            message.contains("state `event mode`")
                && message.contains("made for Model Exchange")
                && message.contains("fmi2GetDerivatives"),
            "{message}"
        );
        assert_eq!(slave.reset(), Fmi2Status::Ok);
        slave.initialize(None);
        let (status, info) = event_update(&slave);
        assert_eq!(status, Fmi2Status::Ok);
        assert_eq!(
            (
                info.new_discrete_states_needed,
                info.terminate_simulation,
                info.values_of_continuous_states_changed,
                info.next_event_time_defined
            ),
            (FMI2_FALSE, FMI2_FALSE, FMI2_FALSE, FMI2_FALSE)
        );
        assert_eq!(
            fmi2SetContinuousStates(slave.c, [0.0, 0.0].as_ptr(), 2),
            Fmi2Status::Error,
            "states are set in continuous-time mode only"
        );
        assert_eq!(slave.reset(), Fmi2Status::Ok);
        slave.initialize(None);
        assert_eq!(event_update(&slave).0, Fmi2Status::Ok);
        assert_eq!(fmi2EnterContinuousTimeMode(slave.c), Fmi2Status::Ok);
        // A state's derivative is not set through fmi2SetReal.
        let derivative = value_reference(PENDULUM, "rev.a");
        assert_eq!(slave.set(&[derivative], &[1.0]), Fmi2Status::Error);
        assert!(slave.last_error().contains("`rev.a` is an output"));
        assert_eq!(slave.reset(), Fmi2Status::Ok);
        slave.initialize(None);
        assert_eq!(event_update(&slave).0, Fmi2Status::Ok);
        assert_eq!(fmi2EnterContinuousTimeMode(slave.c), Fmi2Status::Ok);
        // The start values of the model file.
        let (status, x) = states(&slave, 2);
        assert_eq!(status, Fmi2Status::Ok);
        assert_eq!(x, [0.3, -0.5]);
        // A wrong count, a null array, a state that is not a number: refused, nothing written.
        let (status, x) = states(&slave, 3);
        assert_eq!(status, Fmi2Status::Error);
        assert!(x.iter().all(|v| v.is_nan()));
        assert!(
            slave
                .last_error()
                .contains("nx = 3, but this model has 2 continuous states"),
            "{}",
            slave.last_error()
        );
        assert_eq!(slave.reset(), Fmi2Status::Ok);
        slave.initialize(None);
        assert_eq!(event_update(&slave).0, Fmi2Status::Ok);
        assert_eq!(fmi2EnterContinuousTimeMode(slave.c), Fmi2Status::Ok);
        assert_eq!(
            fmi2GetDerivatives(slave.c, std::ptr::null_mut(), 2),
            Fmi2Status::Error
        );
        assert!(slave
            .last_error()
            .contains("derivatives[] is a null pointer"));
        assert_eq!(slave.reset(), Fmi2Status::Ok);
        slave.initialize(None);
        assert_eq!(event_update(&slave).0, Fmi2Status::Ok);
        assert_eq!(fmi2EnterContinuousTimeMode(slave.c), Fmi2Status::Ok);
        assert_eq!(
            fmi2SetContinuousStates(slave.c, [f64::NAN, 0.0].as_ptr(), 2),
            Fmi2Status::Error
        );
        assert!(slave.last_error().contains("not a finite number"));
        assert_eq!(slave.reset(), Fmi2Status::Ok);
        slave.initialize(None);
        assert_eq!(event_update(&slave).0, Fmi2Status::Ok);
        assert_eq!(fmi2EnterContinuousTimeMode(slave.c), Fmi2Status::Ok);
        // A model without contacts has no event indicators: ni = 0 is the one count accepted.
        assert_eq!(
            fmi2GetEventIndicators(slave.c, std::ptr::null_mut(), 0),
            Fmi2Status::Ok
        );
        let (mut enter, mut terminate) = (7, 7);
        assert_eq!(
            fmi2CompletedIntegratorStep(slave.c, FMI2_TRUE, &mut enter, &mut terminate),
            Fmi2Status::Ok
        );
        assert_eq!((enter, terminate), (FMI2_FALSE, FMI2_FALSE));
        assert_eq!(fmi2EnterEventMode(slave.c), Fmi2Status::Ok);
        assert_eq!(fmi2Terminate(slave.c), Fmi2Status::Ok);
        // Diagnostics after termination: the states are still readable.
        assert_eq!(states(&slave, 2).0, Fmi2Status::Ok);
    }
}

/// fmi2GetDerivatives at states and inputs the importer sets is the pendulum's equation of
/// motion, [ω, (τ − m g L cos φ − d ω) / (I + m L²)], at every one of them (to round-off), and
/// the acceleration the table reports (`der(rev.w)`) is the same number.
#[test]
fn pendulum_derivatives_are_its_equation_of_motion() {
    let resources = Resources::new("me-pendulum", PENDULUM);
    let slave = Slave::model_exchange(&resources);
    slave.initialize(None);
    let (m, l, d, g, inertia) = (1.5, 0.4, 0.2, 9.81, 0.003);
    let tau = value_reference(PENDULUM, "rev.tau");
    let acceleration = value_reference(PENDULUM, "rev.a");
    let mut worst = 0.0f64;
    // SAFETY: a live instance; arrays of the lengths passed.
    unsafe {
        assert_eq!(event_update(&slave).0, Fmi2Status::Ok);
        assert_eq!(fmi2EnterContinuousTimeMode(slave.c), Fmi2Status::Ok);
        for k in 0..50 {
            let phi = -3.0 + 0.13 * k as f64;
            let w = 4.0 * (0.7 * k as f64).sin();
            let torque = 2.0 * (1.3 * k as f64).cos();
            assert_eq!(fmi2SetTime(slave.c, 0.01 * k as f64), Fmi2Status::Ok);
            assert_eq!(
                fmi2SetContinuousStates(slave.c, [phi, w].as_ptr(), 2),
                Fmi2Status::Ok
            );
            assert_eq!(slave.set(&[tau], &[torque]), Fmi2Status::Ok);
            let (status, dx) = derivatives(&slave, 2);
            assert_eq!(status, Fmi2Status::Ok);
            let expected = (torque - m * g * l * phi.cos() - d * w) / (inertia + m * l * l);
            assert_eq!(dx[0], w, "q̇ = v exactly");
            worst = worst.max((dx[1] - expected).abs() / (1.0 + expected.abs()));
            let (status, reported) = slave.get(&[acceleration]);
            assert_eq!(status, Fmi2Status::Ok);
            assert_eq!(reported[0], dx[1]);
        }
    }
    eprintln!("pendulum: fmi2GetDerivatives against the equation of motion within {worst:.1e}");
    assert!(worst < 1e-13, "{worst:e}");
}

/// One classical Runge–Kutta step of the explicit form, through the simulation's Model Exchange
/// API.
fn rk4_step(sim: &mut Simulation, t: f64, x: &[f64], h: f64) -> Vec<f64> {
    let mut slope = |t: f64, x: &[f64]| -> Vec<f64> {
        sim.set_time(t).expect("a finite time");
        sim.set_continuous_states(x).expect("finite states");
        sim.derivatives().expect("derivatives").to_vec()
    };
    let add = |x: &[f64], k: &[f64], s: f64| -> Vec<f64> {
        x.iter().zip(k).map(|(x, k)| x + s * k).collect()
    };
    let k1 = slope(t, x);
    let k2 = slope(t + h / 2.0, &add(x, &k1, h / 2.0));
    let k3 = slope(t + h / 2.0, &add(x, &k2, h / 2.0));
    let k4 = slope(t + h, &add(x, &k3, h));
    (0..x.len())
        .map(|i| x[i] + h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]))
        .collect()
}

/// Integrates the passive four-bar for 1 s with RK4 at step h, calling the completed-step
/// hook after every step; `answer`: do the event update it asks for. Returns the largest
/// closure error the integrator continues from (m), the projections done, and the crank angle at the end.
fn fourbar_by_rk4(h: f64, answer: bool) -> (f64, usize, f64) {
    let spec = model::load_str(FOURBAR, "fourbar_me.m3d").expect("loads");
    let mut sim = Simulation::new(spec, SimulationOptions::default()).expect("assembles");
    sim.enter_model_exchange();
    let mut x = sim.continuous_states().to_vec();
    let (mut worst, mut projections) = (0.0f64, 0);
    for k in 0..(1.0 / h).round() as usize {
        let t = k as f64 * h;
        x = rk4_step(&mut sim, t, &x, h);
        sim.set_time(t + h).expect("time");
        sim.set_continuous_states(&x).expect("states");
        if sim.step_completed() && answer {
            let update = sim.update_discrete_states().expect("projects");
            assert!(update.states_changed);
            x = sim.continuous_states().to_vec();
            projections += 1;
        }
        worst = worst.max(sim.loop_closure().0);
    }
    let crank = sim.joint_coordinates("rev1").expect("a joint")[0];
    (worst, projections, crank)
}

/// The loop of a four-bar stays closed under an explicit integrator. At h = 1 ms (RK4's error
/// about 1e-6 rad) Baumgarte's term alone keeps the closure error near 1e-9 m and the motion is
/// that of Co-Simulation (IDA on the DAE at 1e-10). At h = 5 ms the steps leave closure speeds
/// above the bound, each such step asks for an event, and the update projects the states back
/// within it; ignoring the requests, the closure drifts past the bound.
#[test]
fn a_four_bar_stays_closed_under_an_explicit_integrator() {
    let (fine, fine_projections, crank) = fourbar_by_rk4(1e-3, true);
    let (closed, projections, _) = fourbar_by_rk4(5e-3, true);
    let (drifted, _, _) = fourbar_by_rk4(5e-3, false);
    let spec = model::load_str(FOURBAR, "fourbar_me.m3d").expect("loads");
    let options = SimulationOptions {
        tolerance: Some(1e-10),
        ..SimulationOptions::default()
    };
    let mut reference = Simulation::new(spec, options).expect("assembles");
    reference.advance_to(1.0).expect("integrates");
    let expected = reference.joint_coordinates("rev1").expect("a joint")[0];
    eprintln!(
        "four-bar by RK4: h = 1 ms, closure error at most {fine:.2e} m ({fine_projections} \
         projections), crank angle at 1 s {crank:.9} rad against Co-Simulation {expected:.9} rad \
         ({:.2e}); h = 5 ms, {closed:.2e} m with {projections} projections, {drifted:.2e} m \
         without",
        (crank - expected).abs()
    );
    // Baumgarte's term alone: no projection at 1 ms (without it, measured, every step asks for
    // one), and ignoring the requests at 5 ms the closure stays near 1e-6 m (3.1e-5 m without
    // it). The projection's bound: tolerance 1e-8 × (1 + the largest coordinate, about 4 rad).
    assert_eq!(fine_projections, 0);
    assert!(fine < 1e-8, "{fine:e}");
    assert!((crank - expected).abs() < 1e-5);
    assert!(projections > 0);
    assert!(closed < 5e-8, "{closed:e}");
    assert!(drifted > 1e-7 && drifted < 5e-6, "{drifted:e}");
}

/// An FMU state taken in continuous-time mode puts time, states and derivatives back.
#[test]
fn an_fmu_state_restores_time_and_states() {
    let resources = Resources::new("me-state", PENDULUM);
    let slave = Slave::model_exchange(&resources);
    slave.initialize(None);
    // SAFETY: a live instance; arrays of the lengths passed; the state freed once.
    unsafe {
        assert_eq!(event_update(&slave).0, Fmi2Status::Ok);
        assert_eq!(fmi2EnterContinuousTimeMode(slave.c), Fmi2Status::Ok);
        assert_eq!(fmi2SetTime(slave.c, 0.25), Fmi2Status::Ok);
        assert_eq!(
            fmi2SetContinuousStates(slave.c, [1.0, 2.0].as_ptr(), 2),
            Fmi2Status::Ok
        );
        let before = derivatives(&slave, 2).1;
        let mut saved: Fmi2FmuState = std::ptr::null_mut();
        assert_eq!(fmi2GetFMUstate(slave.c, &mut saved), Fmi2Status::Ok);
        assert_eq!(fmi2SetTime(slave.c, 0.5), Fmi2Status::Ok);
        assert_eq!(
            fmi2SetContinuousStates(slave.c, [-1.0, 0.0].as_ptr(), 2),
            Fmi2Status::Ok
        );
        assert_ne!(derivatives(&slave, 2).1, before);
        assert_eq!(fmi2SetFMUstate(slave.c, saved), Fmi2Status::Ok);
        assert_eq!(states(&slave, 2).1, [1.0, 2.0]);
        assert_eq!(derivatives(&slave, 2).1, before);
        assert_eq!(fmi2FreeFMUstate(slave.c, &mut saved), Fmi2Status::Ok);
    }
}

/// Regression: an FMU state taken in a mode of one interface was restored by an instance of the
/// other, which was then in a mode none of its functions could leave (a Co-Simulation instance
/// in continuous-time mode refused fmi2DoStep; a Model Exchange instance in step-complete
/// stepped). Such a state is refused with a message that names both interfaces, directly and
/// after serializing. A state taken where both interfaces can be (instantiated) is restored by
/// either.
#[test]
fn an_fmu_state_of_the_other_interface_is_refused() {
    let resources = Resources::new("me-cs-state", PENDULUM);
    let me = Slave::model_exchange(&resources);
    let cs = Slave::new(&resources);
    let fresh = Slave::new(&resources);
    me.initialize(None);
    cs.initialize(None);
    // SAFETY: live instances; the states freed by the instance that made them.
    unsafe {
        let mut in_event_mode: Fmi2FmuState = std::ptr::null_mut();
        let mut stepping: Fmi2FmuState = std::ptr::null_mut();
        let mut instantiated: Fmi2FmuState = std::ptr::null_mut();
        assert_eq!(fmi2GetFMUstate(me.c, &mut in_event_mode), Fmi2Status::Ok);
        assert_eq!(fmi2GetFMUstate(cs.c, &mut stepping), Fmi2Status::Ok);
        assert_eq!(fmi2GetFMUstate(fresh.c, &mut instantiated), Fmi2Status::Ok);
        assert_eq!(fmi2SetFMUstate(cs.c, in_event_mode), Fmi2Status::Error);
        let message = cs.last_error();
        assert!(
            message.contains("taken from a Model Exchange instance (in event mode)")
                && message.contains("made for Co-Simulation"),
            "{message}"
        );
        assert_eq!(fmi2SetFMUstate(me.c, stepping), Fmi2Status::Error);
        assert!(
            me.last_error()
                .contains("taken from a Co-Simulation instance (in step complete)"),
            "{}",
            me.last_error()
        );
        // The serialized form carries the mode as well.
        let mut size = 0;
        assert_eq!(
            fmi2SerializedFMUstateSize(me.c, in_event_mode, &mut size),
            Fmi2Status::Ok
        );
        let mut bytes = vec![0 as Fmi2Byte; size];
        assert_eq!(
            fmi2SerializeFMUstate(me.c, in_event_mode, bytes.as_mut_ptr(), size),
            Fmi2Status::Ok
        );
        let other = Slave::new(&resources);
        other.initialize(None);
        let mut copy: Fmi2FmuState = std::ptr::null_mut();
        assert_eq!(
            fmi2DeSerializeFMUstate(other.c, bytes.as_ptr(), size, &mut copy),
            Fmi2Status::Ok
        );
        assert_eq!(fmi2SetFMUstate(other.c, copy), Fmi2Status::Error);
        assert_eq!(fmi2FreeFMUstate(other.c, &mut copy), Fmi2Status::Ok);
        // A state both interfaces can be in.
        let me_again = Slave::model_exchange(&resources);
        assert_eq!(fmi2SetFMUstate(me_again.c, instantiated), Fmi2Status::Ok);
        me_again.initialize(None);
        assert_eq!(event_update(&me_again).0, Fmi2Status::Ok);
        assert_eq!(fmi2FreeFMUstate(me.c, &mut in_event_mode), Fmi2Status::Ok);
        assert_eq!(fmi2FreeFMUstate(cs.c, &mut stepping), Fmi2Status::Ok);
        assert_eq!(fmi2FreeFMUstate(fresh.c, &mut instantiated), Fmi2Status::Ok);
    }
}

/// A free body's states are local variables: readable, named after the joint, and refused by
/// fmi2SetReal with the way to set them.
#[test]
fn a_free_bodys_states_are_locals_that_fmi2_set_real_refuses() {
    const FALL: &str = r#"
model fall "A free body"
gravity uniform { g = [0, -9.81, 0] m/s2 }
experiment { stop_time = 1 s; interval = 10 ms; tolerance = 1e-8 }
object body { mass { m = 1 kg; inertia = diag(0.1, 0.1, 0.1) kg.m2 } }
joint drop free { from = world; to = body; position = [0, 2, 0] m }
"#;
    let resources = Resources::new("me-locals", FALL);
    let slave = Slave::model_exchange(&resources);
    slave.initialize(None);
    let height = value_reference(FALL, "drop.r_rel[2]");
    let fall_speed = value_reference(FALL, "der(drop.v_rel[2])");
    let (status, values) = slave.get(&[height, fall_speed]);
    assert_eq!(status, Fmi2Status::Ok);
    assert_eq!(values, [2.0, -9.81]);
    assert_eq!(slave.set(&[height], &[1.0]), Fmi2Status::Error);
    let message = slave.last_error();
    assert!(
        message.contains("`drop.r_rel[2]` (value reference")
            && message.contains("fmi2SetContinuousStates"),
        "{message}"
    );
}
