//! The `Simulation` API beyond the physics, each checked against something it must equal:
//!
//! - a saved state of another model is refused (not restored into the wrong vectors);
//! - the Jacobian's residual evaluations that the engine adds to IDA's count are at most the
//!   state count per Jacobian (one column per state, fewer when columns are grouped);
//! - `joint_coordinates` of a tree joint equals the joint's own outputs;
//! - output derivatives at the start time, before the integrator has taken a step, are finite
//!   and agree with the derivative of the closed form;
//! - the step bound against tunnelling of two balls approaching head-on in free space is the
//!   closed form of `dynamics::contacts::separation_time_bound`: half the time in which the
//!   closing speed covers the gap plus a quarter of the pass-through width 2 (r_a + r_b).

use fmu3d_tests::load;
use fmu_runtime::model;
use fmu_runtime::simulation::{Simulation, SimulationOptions};

fn start(name: &str, parameters: &[(&str, f64)]) -> Simulation {
    Simulation::new(load(name, parameters), SimulationOptions::default()).expect("starts")
}

fn index(simulation: &Simulation, name: &str) -> usize {
    simulation
        .variables
        .variables
        .iter()
        .position(|v| v.name == name)
        .unwrap_or_else(|| panic!("no variable {name}"))
}

#[test]
fn a_saved_state_of_another_model_is_refused() {
    let mut pendulum = start("pendulum", &[]);
    let mut double = start("double_pendulum", &[]);
    let saved = pendulum.snapshot().expect("snapshot");
    let error = double.restore(&saved).expect_err("refused").to_string();
    assert!(error.contains("another model"), "{error}");
    // Each part of the state on its own: a snapshot of the double pendulum with one vector of
    // the wrong length is refused too.
    let own = double.snapshot().expect("snapshot");
    for broken in [
        {
            let mut s = own.clone();
            s.y.pop();
            s
        },
        {
            let mut s = own.clone();
            s.yp.push(0.0);
            s
        },
        {
            let mut s = own.clone();
            s.cut_angles.push(0.0);
            s
        },
        {
            let mut s = own.clone();
            s.frictions.push(Default::default());
            s
        },
    ] {
        assert!(double.restore(&broken).is_err());
    }
    double.restore(&own).expect("its own snapshot restores");
}

/// Two balls on a table: free bodies in contact, whose exact Jacobian is formed where IDA asks
/// for it, at the point of the Newton iteration's latest residual, from the kinematics and
/// contacts that residual left in the workspace: no residual evaluation of its own (one per
/// Jacobian before, 1 184 of the billiard break's 6 634).
#[test]
fn jacobians_of_free_bodies_need_no_residual_evaluation_of_their_own() {
    let mut simulation = start("two_balls", &[]);
    simulation.advance_to(1.0).expect("runs");
    let stats = simulation.stats();
    eprintln!(
        "two balls: {} Jacobians, {} residual evaluations for them",
        stats.jacobian_evals, stats.jacobian_residual_evals
    );
    assert!(stats.jacobian_evals > 0);
    assert_eq!(stats.jacobian_residual_evals, 0);
}

#[test]
fn joint_coordinates_of_a_tree_joint_are_its_outputs() {
    let mut simulation = start("pendulum", &[]);
    simulation.advance_to(0.37).expect("runs");
    let outputs: Vec<f64> = ["rev.phi", "rev.w"]
        .iter()
        .map(|name| {
            let i = index(&simulation, name);
            simulation.values_of(&[i])[0]
        })
        .collect();
    let coordinates = simulation
        .joint_coordinates("rev")
        .expect("a revolute joint");
    assert!(outputs[0].abs() > 0.01, "the pendulum has moved");
    assert_eq!(&coordinates[..2], &outputs[..]);
    assert!(simulation.joint_coordinates("no_such_joint").is_none());
}

/// A hub spinning at w0 about z (no gravity), joined through a drive's torsion spring
/// (c = 10 N·m/rad) to an inertia that starts 0.1 rad ahead and at rest. The spring's torque on
/// the flange changes at c·(w_part − w_joint) = −20 N·m/s at the start, and a point 0.5 m out
/// on the hub has the centripetal acceleration −w0²·0.5 = −2 m/s² along x.
const SPINNER: &str = r#"
model spinner "a hub spinning about z against a torsion spring"
parameters { w0 = 2 rad/s }
gravity none
experiment { stop_time = 1 s; interval = 10 ms; tolerance = 1e-10 }
object hub { mass { m = 1 kg; inertia = diag(0.1, 0.1, 0.1) kg.m2 } }
object tip { parent = hub; position = [0.5, 0, 0] m; output = true }
joint spin revolute { from = world; to = hub; axis = z; w = w0 }
drive wind { joint = spin; inertia { J = 0.01 kg.m2; phi = 0.1 rad; w = 0 rad/s }; spring { c = 10 N.m/rad } }
"#;

#[test]
fn output_derivatives_at_the_start_time_are_those_of_the_closed_form() {
    let spec = model::load_str_with(SPINNER, "spinner.m3d", &[]).expect("model");
    let mut simulation = Simulation::new(spec, SimulationOptions::default()).expect("starts");
    let names = ["tip.v[1]", "wind.tau_flange"];
    let indices: Vec<usize> = names.iter().map(|n| index(&simulation, n)).collect();
    let mut derivatives = vec![f64::NAN; indices.len()];
    simulation.output_derivatives_into(&indices, &mut derivatives);
    eprintln!("derivatives at the start: {derivatives:?}");
    // The tip's is exact (the point's acceleration); the torque's is differenced along the
    // solution over a fraction of the integrator's first step (it has taken none yet).
    assert!((derivatives[0] + 2.0).abs() < 1e-9, "{derivatives:?}");
    assert!(
        (derivatives[1].abs() - 20.0).abs() < 5e-6,
        "{derivatives:?}"
    ); // 2.3e-7 measured
}

const HEAD_ON: &str = r#"
model head_on "two balls approaching head-on"
parameters { gap = 0.1 m; v = 2 m/s }
gravity none
experiment { stop_time = 1 s; interval = 1 ms; tolerance = 1e-8 }
contact_pair steel steel { cor = 1; mu_k = 0; mu_r = 0 }
object a { shape sphere { diameter = 20 mm }; mass { material = steel }; contact { material = steel } }
object b { shape sphere { diameter = 30 mm }; mass { material = steel }; contact { material = steel } }
joint ja free { from = world; to = a; position = [0, 0, 0]; v = [v, 0, 0] }
joint jb free { from = world; to = b; position = [0.025 + gap, 0, 0]; v = [-v, 0, 0] }
"#;

#[test]
fn the_step_bound_of_two_approaching_balls_is_the_closed_form() {
    let spec = model::load_str_with(HEAD_ON, "head_on.m3d", &[]).expect("model");
    let mut simulation = Simulation::new(spec, SimulationOptions::default()).expect("starts");
    let bound = simulation.separation_time_bound();
    // Gap 0.1 m, closing speed 4 m/s, no acceleration, spheres (no turning term): the budget
    // is the gap plus a quarter of 2 (0.01 + 0.015) m, and the bound half of budget / speed.
    let expected = 0.5 * (0.1 + 0.25 * 2.0 * 0.025) / 4.0;
    eprintln!("step bound {bound:.9} s, closed form {expected:.9} s");
    assert!(
        (bound / expected - 1.0).abs() < 1e-12,
        "{bound} vs {expected}"
    );
}

/// A ball at rest above a floor falls at g: with no speed yet the bound is half of
/// √(2 · budget / g), the budget being the gap plus a quarter of 2 (r_ball + r_floor), r_floor the
/// floor's inradius (half its 0.1 m thickness).
#[test]
fn the_step_bound_of_a_ball_starting_to_fall_is_the_closed_form() {
    let mut simulation = start("bouncing_ball", &[("height", 0.75)]);
    let bound = simulation.separation_time_bound();
    let budget = (0.75 - 0.05) + 0.25 * 2.0 * (0.05 + 0.05);
    let expected = 0.5 * (2.0 * budget / 9.81f64).sqrt();
    eprintln!("step bound {bound:.9} s, closed form {expected:.9} s");
    assert!(
        (bound / expected - 1.0).abs() < 1e-12,
        "{bound} vs {expected}"
    );
}
