//! Loops that cannot be closed are errors that name the loop and the remaining residual, never
//! panics.

use fmu3d_tests::load;
use fmu_runtime::model;
use fmu_runtime::simulation::{Simulation, SimulationOptions};

fn start_error(spec: model::ModelSpec) -> String {
    match Simulation::new(spec, SimulationOptions::default()) {
        Ok(_) => panic!("the simulation should not start"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn four_bar_with_a_too_long_ground_cannot_be_assembled() {
    // a + b + c = 0.75 m < d: the bars cannot reach the second ground pivot.
    let message = start_error(load("fourbar", &[("d", 1.0)]));
    eprintln!("{message}");
    assert!(
        message.contains("the kinematic loop closed by joint `rev"),
        "{message}"
    );
    assert!(message.contains("cannot be assembled"), "{message}");
    assert!(message.contains("keeps a residual of"), "{message}");
}

#[test]
fn slider_crank_with_a_too_short_rod_cannot_be_assembled() {
    // r sin(theta0) = 0.05 m > l: the rod cannot reach the piston's axis.
    let message = start_error(load("slider_crank", &[("l", 0.04)]));
    eprintln!("{message}");
    assert!(message.contains("cannot be assembled"), "{message}");
}

#[test]
fn contradictory_fixed_start_values_are_reported() {
    let source = std::fs::read_to_string(fmu3d_tests::model_path("fourbar")).unwrap();
    // Fixing the rocker angle as well over-determines the one-dof loop.
    let source = source.replace("phi_guess = 90 deg", "phi = 0 deg");
    let spec = model::load_str_with(&source, "fourbar.m3d", &[]).expect("loads");
    let message = start_error(spec);
    eprintln!("{message}");
    assert!(message.contains("cannot be assembled"), "{message}");
}

#[test]
fn a_loop_through_a_free_joint_is_refused() {
    let source = "
        object a { mass { m = 1 kg; inertia = diag(1, 1, 1) kg.m2 } }
        object b { mass { m = 1 kg; inertia = diag(1, 1, 1) kg.m2 } }
        object c { mass { m = 1 kg; inertia = diag(1, 1, 1) kg.m2 } }
        object d { parent = c; position = [1, 0, 0] m }
        joint f free { from = world; to = a }
        joint j1 revolute { from = a; to = b }
        joint j2 revolute { from = world; to = c }
        joint j3 revolute { from = b; to = d }
    ";
    let spec = model::load_str_with(source, "m.m3d", &[]);
    let message = match spec {
        Err(e) => e.to_string(),
        Ok(spec) => start_error(spec),
    };
    eprintln!("{message}");
    assert!(message.contains("through free joint `f`"), "{message}");
}

#[test]
fn contradictory_fixed_start_speeds_are_reported() {
    let source = std::fs::read_to_string(fmu3d_tests::model_path("fourbar")).unwrap();
    // The crank's motion fixes the rocker's start speed; fixing it as well, to another value
    // (0.5 rad/s, a few tenths off), over-determines the loop's speeds.
    let source = source.replace("phi_guess = 90 deg", "phi_guess = 90 deg; w = 0.5 rad/s");
    let spec = model::load_str_with(&source, "fourbar.m3d", &[]).expect("loads");
    let message = start_error(spec);
    eprintln!("{message}");
    assert!(
        message.contains("the start speeds of the kinematic loop"),
        "{message}"
    );
}

/// Regression guard for the assembly's line search: from guesses far from the solution the
/// full Newton step overshoots, and only a shortened step reduces the closure residual.
#[test]
fn a_four_bar_assembles_from_poor_guesses() {
    let source = std::fs::read_to_string(fmu3d_tests::model_path("fourbar")).unwrap();
    let source = source
        .replace("phi_guess = -20 deg", "phi_guess = 150 deg")
        .replace("phi_guess = -50 deg", "phi_guess = -90 deg")
        .replace("phi_guess = 90 deg", "phi_guess = 10 deg");
    let spec = model::load_str_with(&source, "fourbar.m3d", &[]).expect("loads");
    let mut simulation =
        Simulation::new(spec, SimulationOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    simulation.advance_to(0.1).expect("runs");
}
